#!/usr/bin/env python3
"""Run libCacheSim (the `libcachesim` Python package) on an oracleGeneral trace and print JSON.

pagelab's differential tests and benchmarks call this; it is the independent implementation pagelab is
checked against. Every request is one object (ignore_obj_size), so cache sizes are object counts.

usage: lcs_run.py TRACE.oracleGeneral.bin --policies lru,fifo,clock,arc,lirs,2q --sizes 100,1000 [--repeat N]
output: {"requests": N, "results": [{"policy": "lru", "size": 100, "misses": M, "seconds": S}, ...]}
"""
import argparse
import json
import sys
import time

import libcachesim as lcs

POLICIES = {
    "lru": lcs.LRU,
    "fifo": lcs.FIFO,
    "clock": lcs.Clock,
    "arc": lcs.ARC,
    "lirs": lcs.LIRS,
    "2q": lcs.TwoQ,
    "opt": lcs.Belady,
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--policies", required=True)
    ap.add_argument("--sizes", required=True)
    ap.add_argument("--hashpower", type=int, default=20,
                    help="log2 of libCacheSim's initial hash table size (its default, 24, costs ~0.1 s per cache)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per point; the fastest time is reported")
    args = ap.parse_args()

    def open_reader():
        return lcs.TraceReader(args.trace, lcs.TraceType.ORACLE_GENERAL_TRACE,
                               lcs.ReaderInitParam(ignore_obj_size=True))

    n_req = open_reader().get_num_of_req()
    results = []
    for name in args.policies.split(","):
        cls = POLICIES.get(name)
        if cls is None:
            print(f"unknown policy {name!r}; expected one of {sorted(POLICIES)}", file=sys.stderr)
            return 2
        for size in (int(s) for s in args.sizes.split(",")):
            best = None
            miss_ratio = None
            for _ in range(max(1, args.repeat)):
                cache = cls(size, hashpower=args.hashpower)
                # The clock covers opening the trace, as pagelab's does: both map the file at open, so
                # both pay for its page tables on every run (a reader opened once and reused would find
                # them in place after its first run, as pagelab's would not).
                start = time.perf_counter()
                reader = open_reader()
                miss_ratio, _byte_mr = cache.process_trace(reader)
                elapsed = time.perf_counter() - start
                del reader
                best = elapsed if best is None else min(best, elapsed)
            results.append({
                "policy": name,
                "size": size,
                "misses": round(miss_ratio * n_req),
                "seconds": best,
            })
    json.dump({"requests": n_req, "results": results}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
