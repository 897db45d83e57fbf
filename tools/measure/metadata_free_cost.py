#!/usr/bin/env python3
"""What freeing a dentry and an inode costs on this machine's kernel (pagelab's `ReclaimCosts`).

Usage (root, on an ext4 directory with room for a million empty files; about two minutes):

    python3 tools/measure/metadata_free_cost.py /var/tmp/pagelab-metadata [FILES]

It builds two trees of FILES entries (a million by default): `files`, one empty file per entry, and
`links`, hard links to 100 files. For each it drops the dentry and inode caches, `stat`s every entry (so
each has its dentry, and its inode, cached), and times `echo 2 > /proc/sys/vm/drop_caches`, which frees
them. With `files` the drop frees a dentry and an inode per entry; with `links` a dentry per entry and
100 inodes in all. So a dentry costs links / entries, and an inode the rest of files / entries. The slab
counts before and after (`/proc/slabinfo`) are printed, to check what was freed. The trees are removed
afterwards. The whole machine's other caches are dropped too: run it on an idle machine.
"""
import os
import shutil
import sys
import time

SLABS = ("dentry", "ext4_inode_cache")


def slab_objects():
    counts = {}
    with open("/proc/slabinfo") as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] in SLABS:
                counts[fields[0]] = int(fields[1])
    return counts


def drop_seconds():
    start = time.perf_counter()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2")
    return time.perf_counter() - start


def build(root, kind, entries):
    per_dir = 10_000
    os.makedirs(root)
    if kind == "links":
        os.makedirs(f"{root}/targets")
        for j in range(100):
            open(f"{root}/targets/{j}", "w").close()
    for d in range((entries + per_dir - 1) // per_dir):
        os.makedirs(f"{root}/{d}")
        for i in range(min(per_dir, entries - d * per_dir)):
            path = f"{root}/{d}/{i}"
            if kind == "links":
                os.link(f"{root}/targets/{(d * per_dir + i) % 100}", path)
            else:
                open(path, "w").close()


def measure(base, kind, entries):
    root = os.path.join(base, kind)
    shutil.rmtree(root, ignore_errors=True)
    build(root, kind, entries)
    os.sync()
    drop_seconds()
    for d in os.listdir(root):
        for e in os.listdir(f"{root}/{d}"):
            os.stat(f"{root}/{d}/{e}")
    before = slab_objects()
    seconds = drop_seconds()
    after = slab_objects()
    shutil.rmtree(root)
    freed = {s: before.get(s, 0) - after.get(s, 0) for s in SLABS}
    print(f"{kind}: {entries} entries, drop {seconds:.3f} s; freed {freed['dentry']} dentries, "
          f"{freed['ext4_inode_cache']} inodes")
    return seconds


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    base, entries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1_000_000
    files = measure(base, "files", entries)
    links = measure(base, "links", entries)
    dentry_us = links / entries * 1e6
    print(f"a dentry: {dentry_us:.2f} us; a file (dentry + inode): {files / entries * 1e6:.2f} us; "
          f"an inode: {(files - links) / entries * 1e6:.2f} us (examination included)")


if __name__ == "__main__":
    main()
