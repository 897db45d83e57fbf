#!/usr/bin/env python3
"""Two builds of pagelab, the same simulations: does a change that should not move a result move one?

Usage (from the repository root; about 25 s for the two binaries on 2 cores):

    python3 tools/bench/same_results.py OLD_BIN NEW_BIN

Runs the same `pagelab simulate --json` command lines with both binaries and compares their standard output
and standard error byte for byte. The cases cover what a performance change to the engine can break without a
test noticing: every replacement policy under both memory models, the prefetch cache, DULO, writes and swap,
the metadata cache under both reclaims, the rate-aware prefetchers and their streams, MemRx, trace replays
(one with its writes), three schedulers, five devices, held application memory, and a run that ends out of
memory (its error must not change either). Prints each case that differs and exits 1 if any does, else 0;
2 on bad usage. Experiments are compared separately: `pagelab experiment NAME --out DIR` with each binary and
`cmp` of the two `results.csv`.
"""
import os
import subprocess
import sys
import tempfile

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "traces")
# The simulation issue 10's speed target compares against b9b690d (BENCHMARKS.md §4), 100 s of it.
AB = ["--workload", "one-rand:files=2000", "--concurrency", "100", "--memory", "512MiB", "--memory-model",
      "exact", "--nr-requests", "unlimited", "--prefetch", "linux:128KiB,io=128KiB", "--warmup", "0s",
      "--device", "hdd", "--duration", "100s"]


def cases():
    yield AB
    for policy in ["lru", "fifo", "clock", "2q", "arc", "lirs", "dulo", "dulo-linux"]:
        yield AB + ["--policy", policy]
    yield ["--workload", "one-rand", "--concurrency", "100", "--memory", "128MiB", "--duration", "30s"]
    for policy in ["lru", "clock", "2q", "arc", "lirs", "dulo"]:
        yield ["--workload", "one-rand", "--concurrency", "50", "--memory", "64MiB", "--duration", "20s",
               "--policy", policy]
    two_rand = ["--workload", "two-rand", "--concurrency", "200", "--prefetch", "linux-2.6:512KiB", "--memory",
                "128MiB", "--duration", "30s"]
    yield two_rand + ["--prefetch-cache", "pc-coldest+"]
    yield two_rand + ["--prefetch-cache", "pc-longest", "--memory-model", "exact"]
    yield ["--workload", "media-clips:files=4096", "--concurrency", "64", "--memory", "64MiB", "--duration",
           "20s", "--prefetch", "linux-2.6:512KiB", "--prefetch-cache", "pc-optimal"]
    yield ["--workload", "vm-seq:size=96MiB,passes=2", "--memory", "64MiB"]
    yield ["--workload", "vm-random", "--memory", "64MiB", "--duration", "20s"]  # out of memory and swap
    yield ["--workload", "vm-random:size=96MiB", "--memory", "128MiB", "--duration", "20s"]
    yield ["--workload", "stat-batch", "--metadata", "conventional", "--memory", "64MiB"]
    yield ["--workload", "stat-batch", "--metadata", "split:p=50%", "--memory", "64MiB"]
    yield ["--workload", "nfs-mix", "--metadata", "split:p=50%", "--memory", "128MiB", "--duration", "10s"]
    yield ["--workload", "spc2-vod:streams=8,tpch=1", "--prefetch", "ets", "--duration", "10s"]
    yield ["--workload", "rate-streams", "--prefetch", "esf", "--duration", "10s"]
    yield ["--workload", "dbench", "--memory", "96MiB", "--whatif", "up-to=256MiB,step=32MiB"]
    yield ["--workload", "fs-random", "--memory", "64MiB", "--whatif", "up-to=128MiB,step=16MiB", "--duration",
           "20s"]
    yield ["--trace", os.path.join(TRACES, "libcachesim", "cloudPhysicsIO.csv"), "--fold", "--memory", "64MiB",
           "--prefetch", "linux-2.6"]
    yield ["--trace", os.path.join(TRACES, "arc", "P3.lis.zst"), "--memory", "32MiB", "--prefetch", "none",
           "--memory-model", "exact", "--policy", "arc"]
    yield ["--workload", "smm", "--memory", "64MiB"]
    yield ["--workload", "one-rand", "--concurrency", "20", "--memory", "64MiB", "--duration", "20s",
           "--scheduler", "cfq", "--device", "ssd"]
    yield ["--workload", "one-whole", "--concurrency", "10", "--memory", "64MiB", "--duration", "20s",
           "--scheduler", "deadline", "--app-memory", "10%"]


def run(binary, args):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        status = subprocess.run([binary, "simulate", *args, "--json"], stdout=out, stderr=err).returncode
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read()


def main():
    if len(sys.argv) != 3 or not all(os.access(b, os.X_OK) for b in sys.argv[1:]):
        print("usage: python3 tools/bench/same_results.py OLD_BIN NEW_BIN (two executable pagelab binaries)",
              file=sys.stderr)
        sys.exit(2)
    old, new = sys.argv[1:]
    differ = 0
    all_cases = list(cases())
    for n, args in enumerate(all_cases, 1):
        if run(old, args) != run(new, args):
            differ += 1
            print(f"case {n} differs: pagelab simulate {' '.join(args)} --json")
    if differ:
        print(f"same_results: {differ} of {len(all_cases)} cases differ")
        sys.exit(1)
    print(f"same_results: all {len(all_cases)} cases identical (output, errors and exit status)")


if __name__ == "__main__":
    main()
