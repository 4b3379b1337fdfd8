#!/usr/bin/env python3
"""The pipeline around the engine, side by side with an older revision: load, Python's share, memory.

For each workload of ``bench/scale.py`` that issue 25 names (the 64 × 20 rolling
updates over TCP/IP, Compression, SMB, SMB Direct and SMB with a switch down,
the 10,000-VM drain, and the smallest points of the hosts and VMs sweeps: 4 × 20
and 100 VMs on 64 hosts, the latter also with 2 cores a host rather than 32),
a fresh process per side and run:

- **load**: ``load_scenario`` of the file, timed once (the first load of the
  process, as a command does it);
- **simulate**: ``hvnet.simulate`` once untimed (imports and caches warm),
  then ``--inner`` times; the median wall time, the median engine time
  (``Results.wall_s``) and **Python's share**, their difference;
- **peak RSS**: the process's high-water mark at its end (``ru_maxrss``).

The sides alternate (before, after; after, before; ...) ``--repeat`` times,
so both meet the same machine noise; each cell is the median over the runs.
Both sides read the same scenario files; imports are not timed. The
older revision is built as ``bench/simulate_cost.py`` builds it
(``bench/out/venv-REV``). Compare the ratios, not the seconds: the machine is
shared.

    python bench/pipeline_ab.py --against a6a976e
    python bench/pipeline_ab.py --against a6a976e --repeat 5 --json bench/out/pipeline_ab.json
    python bench/pipeline_ab.py --only VMs-10000           # one workload, this install only

Not a test: nothing here asserts on time; read the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402  (bench/ scripts, imported for their generators and builds)
import simulate_cost  # noqa: E402

OUT = HERE / "out" / "pipeline_ab"

#: The child: load once, simulate once to warm, then INNER times; one JSON line of figures.
CHILD = r"""
import gc, json, resource, statistics, sys, time
import hvnet
from hvnet.cli import YOUNG_COLLECTION
from hvnet.model import load_scenario
gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])  # as the command runs
path, inner = sys.argv[1], int(sys.argv[2])
t = time.perf_counter()
scenario = load_scenario(path)
load_s = time.perf_counter() - t
hvnet.simulate(scenario)
walls, engines = [], []
for _ in range(inner):
    t = time.perf_counter()
    results = hvnet.simulate(scenario)
    walls.append(time.perf_counter() - t)
    engines.append(results.wall_s)
print(json.dumps({"load_s": load_s, "wall_s": statistics.median(walls), "engine_s": statistics.median(engines),
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def workloads() -> dict[str, str]:
    """Name -> scenario text: the cases of bench/scale.py, its largest VMs point and its smallest points."""
    cases = [("tcp_ip", False), ("compression", False), ("smb", False), ("smb_direct", False), ("smb", True)]
    out = {
        f"64x20 {option}" + (" switch down" if failure else ""): scale.cluster_yaml(
            64, 1280, "rolling_update", option, failure
        )
        for option, failure in cases
    }
    out["VMs-10000"] = scale.cluster_yaml(64, 10000, "drain")
    # Where the engine has little to do, Python's fixed cost per host and core shows: the smallest
    # points of bench/scale.py's hosts and VMs sweeps.
    out["4x20"] = scale.cluster_yaml(4, 80, "rolling_update")
    out["VMs-100"] = scale.cluster_yaml(64, 100, "drain")
    # The same drain with 2 cores a host rather than 32: what is left is the hosts' own fixed cost.
    out["VMs-100 2 cores"] = scale.cluster_yaml(64, 100, "drain", cores_per_socket=1)
    return out


def chosen(parser: argparse.ArgumentParser, only: str | None) -> dict[str, str]:
    """The workloads to run: all, or the one `--only` names (else the parser's error, listing them)."""
    loads = workloads()
    if only is None:
        return loads
    if only not in loads:
        parser.error(f"--only: one of {', '.join(loads)}")
    return {only: loads[only]}


def run_child(side: simulate_cost.Side, scenario: Path, inner: int) -> dict[str, float]:
    figures = simulate_cost.run_json(side, CHILD, [str(scenario), str(inner)], scenario.name, OUT)
    figures["python_s"] = figures["wall_s"] - figures["engine_s"]
    return figures


def _ratio(after: float, before: float) -> str:
    return f"{after / before:.2f}" if before > 0 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="git revision to build and compare with (the 'before' side)")
    parser.add_argument("--repeat", type=int, default=3, help="processes per workload and side, alternating (3)")
    parser.add_argument("--inner", type=int, default=5, help="timed simulations in each process (5)")
    parser.add_argument("--only", help="one workload by name (e.g. VMs-10000)")
    parser.add_argument("--json", type=Path, metavar="RESULT", help="write the numbers to this file")
    args = parser.parse_args()
    if args.repeat < 1 or args.inner < 1:
        parser.error("--repeat and --inner are at least 1")
    loads = chosen(parser, args.only)
    OUT.mkdir(parents=True, exist_ok=True)
    sides = simulate_cost.sides_against(args.against)
    for side in sides:
        print(f"{side.label}: hvnet from {simulate_cost.hvnet_location(side)}", file=sys.stderr)
    cells: dict[str, dict[str, list[dict[str, float]]]] = {}
    for name, text in loads.items():
        scenario = OUT / (name.replace(" ", "-") + ".yaml")
        scenario.write_text(text)
        cells[name] = {side.label: [] for side in sides}
        for k, side in simulate_cost.alternating(sides, args.repeat):
            print(f"  {name}: {side.label}, run {k + 1}/{args.repeat}", file=sys.stderr, flush=True)
            cells[name][side.label].append(run_child(side, scenario, args.inner))

    def median(name: str, side: simulate_cost.Side, key: str) -> float:
        return statistics.median(run[key] for run in cells[name][side.label])

    header = "| workload | side | load s | simulate s | engine s | Python s | Python / engine | peak RSS MiB |"
    print(header + "\n|---|---|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name in cells:
        for side in sides:
            row = {key: median(name, side, key) for key in ("load_s", "wall_s", "engine_s", "python_s", "peak_mib")}
            rows.append({"workload": name, "side": side.label, **row})
            print(
                f"| {name} | {side.label} | {row['load_s']:.3f} | {row['wall_s']:.3f} | {row['engine_s']:.3f} "
                f"| {row['python_s']:.3f} | {row['python_s'] / row['engine_s']:.2f} x | {row['peak_mib']:.0f} |"
            )
        if len(sides) == 2:
            before, after = sides
            print(
                f"| {name} | after / before | {_ratio(median(name, after, 'load_s'), median(name, before, 'load_s'))} "
                f"| {_ratio(median(name, after, 'wall_s'), median(name, before, 'wall_s'))} "
                f"| {_ratio(median(name, after, 'engine_s'), median(name, before, 'engine_s'))} "
                f"| {_ratio(median(name, after, 'python_s'), median(name, before, 'python_s'))} | "
                f"| {_ratio(median(name, after, 'peak_mib'), median(name, before, 'peak_mib'))} |"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = {"against": args.against, "repeat": args.repeat, "inner": args.inner, "cpus": os.cpu_count()}
        args.json.write_text(json.dumps({**document, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
