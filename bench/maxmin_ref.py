#!/usr/bin/env python3
"""Tiny, obviously-correct max-min fluid reference (pure Python, stdlib only).

Independent cross-check for small star workloads (a few hundred flows): each
flow src -> dst uses ``up[src]`` and ``down[dst]``, each of capacity
nic_bps / 8 bytes/s.  Rates are the max-min fair allocation (progressive
filling); the simulation advances from event to event (flow start or flow
completion).  Quadratic-ish: NOT a benchmark, only a correctness oracle.

    python bench/maxmin_ref.py --nic-bps 1e10 FLOWS.csv [--check OUT.json]

``--check`` compares against a JSON produced by simgrid_flows.py or
``hvnet flows`` and prints the largest relative difference.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable

Link = tuple[str, str]  # ("up", src) or ("down", dst)
Flow = tuple[Link, Link, float, float]  # up link, down link, bytes, start_s


def maxmin_rates(active: list[int], flows: list[Flow], cap: float) -> dict[int, float]:
    """Progressive filling. active: list of flow ids. Returns {fid: rate}."""
    rem: dict[Link, float] = {}
    users: dict[Link, set[int]] = {}
    for f in active:
        for link in flows[f][:2]:
            users.setdefault(link, set()).add(f)
    for link in users:
        rem[link] = cap
    rate: dict[int, float] = {}
    unfixed = set(active)
    while unfixed:
        # bottleneck link: smallest fair share among links with unfixed users
        best: Link | None = None
        best_share: float | None = None
        for link, us in users.items():
            n = len(us)
            if n:
                share = rem[link] / n
                if best_share is None or share < best_share:
                    best, best_share = link, share
        # each unfixed flow is a user of its links, so some link has users
        assert best is not None and best_share is not None
        for f in list(users[best]):
            rate[f] = best_share
            unfixed.discard(f)
            for link in flows[f][:2]:
                users[link].discard(f)
                rem[link] -= best_share
    return rate


def simulate(rows: Iterable[tuple[str, str, str | float, str | float]], nic_bps: float) -> list[float]:
    """Completion time of each row (src, dst, bytes, start_s)."""
    cap = nic_bps / 8.0
    flows: list[Flow] = [(("up", s), ("down", d), float(b), float(t)) for s, d, b, t in rows]
    remaining = [f[2] for f in flows]
    end: list[float | None] = [None] * len(flows)
    pending = sorted(range(len(flows)), key=lambda k: flows[k][3])
    active: list[int] = []
    now = 0.0
    pi = 0
    while pi < len(pending) or active:
        while pi < len(pending) and flows[pending[pi]][3] <= now:
            k = pending[pi]
            pi += 1
            if remaining[k] <= 0 or flows[k][0][1] == flows[k][1][1]:
                end[k] = now
            else:
                active.append(k)
        if not active:
            now = flows[pending[pi]][3]
            continue
        rate = maxmin_rates(active, flows, cap)
        dt = min(remaining[k] / rate[k] for k in active)
        if pi < len(pending):
            dt = min(dt, flows[pending[pi]][3] - now)
        now += dt
        still = []
        for k in active:
            remaining[k] -= rate[k] * dt
            if remaining[k] <= 1e-9 * flows[k][2]:
                end[k] = now
            else:
                still.append(k)
        active = still
    done = [t for t in end if t is not None]
    assert len(done) == len(end), "every flow starts, so every flow ends"
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flows_csv")
    ap.add_argument("--nic-bps", type=float, default=1e10)
    ap.add_argument("--check", help="JSON with end_s to compare against")
    a = ap.parse_args(argv)
    with open(a.flows_csv, newline="") as f:
        rows = [(r["src"], r["dst"], r["bytes"], r.get("start_s") or 0) for r in csv.DictReader(f)]
    end = simulate(rows, a.nic_bps)
    if a.check:
        with open(a.check) as f:
            other = json.load(f)["end_s"]
        assert len(other) == len(end), "row count mismatch"
        worst = max((abs(x - y) / max(abs(y), 1e-12) for x, y in zip(other, end)), default=0.0)
        print(f"max relative difference vs reference: {worst:.3e}")
        return 0 if worst <= 1e-4 else 1
    json.dump({"engine": "maxmin_ref", "end_s": end}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
