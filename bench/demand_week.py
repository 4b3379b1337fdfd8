#!/usr/bin/env python3
"""A week of one-second counter logs of a 16-host cluster, replayed (issue 29, item 4).

Writes one typeperf CSV per host (two NICs, bytes sent and received per second, a sample each
second over `--days`), then times each step a user runs: reading the logs, `import_demand` at the
default resolution (60 s), loading the scenario with its demand, `simulate` (a drain of one host
under the replayed load) and, with `--design`, `hvnet design`'s search over the default candidates
(requirements: a 10-minute drain, p90 utilisation at most 70 %). Prints wall times, the replay's
steps and events, the design's answer, and the peak RSS. Not a test: nothing here asserts on time.

    python bench/demand_week.py               # 16 hosts, 7 days
    python bench/demand_week.py --days 1      # a quicker point
    python bench/demand_week.py --design      # and the cheapest design under that load (minutes)
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from pathlib import Path

from hvnet import simulate
from hvnet.importers import read_measurement
from hvnet.importers.demand import DEFAULT_RESOLUTION_S, import_demand, with_demand
from hvnet.model import load_scenario


def scenario(hosts: int) -> str:
    lines = ["name: measured cluster", "hosts:"]
    for h in range(1, hosts + 1):
        lines.append(f"  - name: hv{h}")
        lines.append("    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]")
        lines.append("    teams: [{name: t1, kind: set, members: [nic1, nic2]}]")
    lines += ["switches: [{name: tor1, ports: 64}]", "cables:"]
    for h in range(1, hosts + 1):
        lines += [f"  - {{a: hv{h}/nic1, b: tor1/{2 * h - 1}}}", f"  - {{a: hv{h}/nic2, b: tor1/{2 * h}}}"]
    lines += ["vms:"] + [f"  - {{name: vm{k}, host: hv1, memory: 8GiB}}" for k in range(1, 11)]
    lines += ["events: [{at: 1h, action: drain, target: hv1}]"]
    lines += ["requirements: {max_drain: 10min, max_utilisation: {p90: 70%}}"]
    return "\n".join(lines) + "\n"


def write_log(path: Path, host: str, seconds: int, rng: random.Random) -> None:
    columns = [
        f"\\\\{host}\\Network Interface({nic})\\Bytes {way}/sec"
        for nic in ("nic1", "nic2")
        for way in ("Sent", "Received")
    ]
    start = 1_795_000_000  # a fixed day, so runs compare
    with path.open("w") as out:
        out.write('"(PDH-CSV 4.0) (UTC)(0)",' + ",".join(f'"{c}"' for c in columns) + "\n")
        for k in range(seconds + 1):
            t = time.gmtime(start + k)
            stamp = time.strftime("%m/%d/%Y %H:%M:%S", t)
            day = 0.5 + 0.5 * (8 <= t.tm_hour < 18)
            out.write(f'"{stamp}.000",' + ",".join(f'"{rng.uniform(0, 250e6) * day:.0f}"' for _ in columns) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--design", action="store_true", help="also time hvnet design's search on the replay")
    args = parser.parse_args()
    seconds = int(args.days * 86400)
    folder = Path(tempfile.mkdtemp(prefix="hvnet-demand-"))
    rng = random.Random(29)
    started = time.perf_counter()
    logs = []
    for h in range(1, args.hosts + 1):
        path = folder / f"hv{h}.csv"
        write_log(path, f"hv{h}", seconds, rng)
        logs.append(path)
    written = time.perf_counter() - started
    size = sum(p.stat().st_size for p in logs) / 2**20
    base = folder / "cluster.yaml"
    base.write_text(scenario(args.hosts))

    marks: list[tuple[str, float]] = []

    def timed(label: str, t0: float) -> float:
        marks.append((label, time.perf_counter() - t0))
        return time.perf_counter()

    t = time.perf_counter()
    records = [r for p in logs for r in read_measurement(p)]
    t = timed("read the logs", t)
    imported = import_demand(load_scenario(base), records, DEFAULT_RESOLUTION_S)
    t = timed("import_demand", t)
    measured = folder / "measured.yaml"
    measured.write_text(with_demand(base.read_text(), str(base), imported))
    t = timed("write the scenario", t)
    loaded = load_scenario(measured)
    t = timed("load the scenario", t)
    results = simulate(loaded)
    t = timed("simulate (a drain under the replay)", t)
    answer = ""
    if args.design:
        from hvnet.candidates import search

        answer = search(loaded).reasoning()
        timed("design (the default candidates)", t)
    steps = sum(len(s.steps) for s in imported.series)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.hosts} hosts, {args.days:g} days of 1-s samples: {size:,.0f} MiB of CSV (written in {written:.1f} s)")
    for label, wall in marks:
        print(f"  {label:38s} {wall:8.2f} s")
    print(f"  replay: {len(imported.series)} NIC directions, {steps:,} steps; engine {results.events:,} events")
    print(f"  drain of hv1: {results.operations[0].duration_s:.1f} s; peak RSS {peak:,.0f} MiB")
    if answer:
        print(f"  design: {answer}")


if __name__ == "__main__":
    main()
