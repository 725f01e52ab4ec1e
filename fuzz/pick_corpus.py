#!/usr/bin/env python3
"""Picks a small corpus from an afl-cmin output: greedy set cover over the
edge traces that `cargo afl showmap -e -i DIR -o TRACES` writes, taking at
each step the input that covers the most edges not yet covered (the smaller
file on a tie), until N inputs are taken or nothing new is covered.

    pick_corpus.py INPUTS TRACES N EXT OUT

copies the picked inputs to OUT, named by the first 12 hex digits of their
SHA-1 and the extension EXT, and prints how many edges they cover.
"""

import hashlib
import os
import shutil
import sys


def main():
    inputs, traces, n, ext, out = sys.argv[1:6]
    n = int(n)
    edges = {}
    for name in os.listdir(traces):
        with open(os.path.join(traces, name)) as f:
            edges[name] = {line.split(":")[0] for line in f if line.strip()}
    sizes = {name: os.path.getsize(os.path.join(inputs, name)) for name in edges}
    every = set().union(*edges.values()) if edges else set()
    covered, picked = set(), []
    while len(picked) < n and edges:
        best = max(edges, key=lambda k: (len(edges[k] - covered), -sizes[k]))
        if not edges[best] - covered:
            break
        picked.append(best)
        covered |= edges.pop(best)
    os.makedirs(out, exist_ok=True)
    for name in picked:
        path = os.path.join(inputs, name)
        with open(path, "rb") as f:
            digest = hashlib.sha1(f.read()).hexdigest()[:12]
        shutil.copyfile(path, os.path.join(out, f"{digest}.{ext}"))
    share = 100 * len(covered) / max(len(every), 1)
    print(f"{len(picked)} inputs cover {len(covered)} of {len(every)} edges ({share:.1f}%)")


if __name__ == "__main__":
    main()
