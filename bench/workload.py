#!/usr/bin/env python3
"""Generate a seeded star workload for the hvnet-vs-SimGrid benchmark.

N hosts named ``hv1``..``hvN``; M flows between random distinct host pairs
(src != dst); sizes uniform in [0.1 GB, 10 GB] (integer bytes, 1 GB = 1e9 B);
every flow starts at t = 0, or with ``--spread S`` at a time uniform in
[0, S) (whole milliseconds).  Output: CSV with header ``src,dst,bytes,start_s``.

Standard library only, so it runs under any Python 3.

    python bench/workload.py --hosts 64 --flows 8000 --seed 1 -o flows.csv
    python bench/workload.py --flows 16000 --spread 10 -o staggered.csv
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections.abc import Iterable
from typing import IO

GB = 10**9
MIN_BYTES = GB // 10  # 0.1 GB
MAX_BYTES = 10 * GB  # 10 GB

Flow = tuple[str, str, int, float]  # src, dst, bytes, start_s


def make_flows(hosts: int, flows: int, seed: int = 1, spread: float = 0.0) -> list[Flow]:
    """Return a list of (src, dst, bytes, start_s) tuples; starts over
    [0, spread) seconds (all at 0 when spread is 0, the draws as before)."""
    if hosts < 2:
        raise ValueError("need at least 2 hosts")
    rng = random.Random(seed)
    out: list[Flow] = []
    for _ in range(flows):
        s = rng.randrange(1, hosts + 1)
        d = rng.randrange(1, hosts)  # pick among the hosts-1 others
        if d >= s:
            d += 1
        size = rng.randint(MIN_BYTES, MAX_BYTES)
        start = rng.randrange(int(spread * 1000)) / 1000 if spread > 0 else 0
        out.append((f"hv{s}", f"hv{d}", size, start))
    return out


def write_csv(rows: Iterable[Flow], path_or_file: str | IO[str]) -> None:
    """Write rows to the file at this path, or to this open file (left open)."""
    if isinstance(path_or_file, str):
        with open(path_or_file, "w", newline="") as f:
            write_rows(rows, f)
    else:
        write_rows(rows, path_or_file)


def write_rows(rows: Iterable[Flow], f: IO[str]) -> None:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["src", "dst", "bytes", "start_s"])
    w.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=64, help="number of hosts (default 64)")
    ap.add_argument("--flows", type=int, default=1000, help="number of flows (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument(
        "--spread", type=float, default=0.0, help="seconds over which the flows start (default 0: all at 0)"
    )
    ap.add_argument("-o", "--output", default="-", help="output CSV path ('-' = stdout)")
    a = ap.parse_args(argv)
    if a.spread < 0:
        ap.error("--spread must be >= 0")
    rows = make_flows(a.hosts, a.flows, a.seed, a.spread)
    if a.output == "-":
        write_csv(rows, sys.stdout)
    else:
        write_csv(rows, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
