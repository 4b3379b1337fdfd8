#!/usr/bin/env python3
"""Where Python's time in `simulate` goes, step by step, optionally beside an older revision.

`bench/pipeline_ab.py` compares whole simulations; this script times the
steps inside one, on the same workloads (issue 25's 64 × 20 rolling
updates, the 10,000-VM drain and the two small points), so that
docs/performance.md's account of what is left, and of what a change moved,
can be run again:

- **lowering**: the network model, the operations' plan, the migrations'
  requests (plan and routes included), their endpoints, the core's
  endpoints, the migrations' specs (with the NIC pairs and channels they
  record), the network spec, and `lower()` whole;
- **glue**: the run's budget, and the core's call less the engine's own time
  (reading and checking the spec, making its report);
- **read-back**: the migrations' records, the NICs' and cores' series with
  their utilisation figures, the operations, the warnings of what never
  completed, the failures' account, and `readback()` whole; and, for scale,
  the least read-back can do for the cores: every core's two models of
  `Results` made idle, with nothing computed ("the cores' models alone").

A step the revision does not have is left blank. Each process loads the
workload, simulates once untimed, then times every step `--inner` times
with Python's cycle collector disabled (as `simulate` runs them now; so a
revision that did not pause it is measured the same way) and reports the
medians; the sides alternate over `--repeat` processes and each cell is the
median over them. Compare ratios: the machine is shared.

    python bench/pipeline_steps.py --only "64x20 smb_direct"
    python bench/pipeline_steps.py --against 954e654 --only "64x20 smb switch down"

Not a test: nothing here asserts on time; read the table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pipeline_ab  # noqa: E402  (bench/ scripts: the same workloads and builds)
import simulate_cost  # noqa: E402

OUT = HERE / "out" / "pipeline_steps"

#: The child: every step it has, timed `inner` times; one JSON line of medians in seconds.
CHILD = r"""
import gc, json, statistics, sys, time
import hvnet
from hvnet import budget, _core
from hvnet.calibration import Calibration
from hvnet.lower import lowering as L
from hvnet.lower.operations import plan_operations
from hvnet.model import load_scenario
from hvnet.run import run
import hvnet.readback as RB
from hvnet.failures import failure_results, never_warnings
try:
    from hvnet.outcomes import outcomes
except ImportError:  # before hvnet.outcomes: the views were read-back's
    from hvnet.readback import outcomes
path, inner = sys.argv[1], int(sys.argv[2])
scenario, calibration = load_scenario(path), Calibration()
hvnet.simulate(scenario)
times = {}
def idle_cores(model):
    # Every core's two models of `Results` (`cores`, `cores_utilisation`) as if idle: nothing computed,
    # made the cheapest way (`hvnet.trusted`).
    from hvnet.results import CoreSeries, CoreUtilisation
    try:
        from hvnet.trusted import trusted
    except ImportError:  # before hvnet.trusted: results' own
        from hvnet.results import trusted
    from hvnet.series import Series
    idle, figures = Series(), dict.fromkeys(("p50_share", "p90_share", "p99_share", "max_share", "busy_s"), 0.0)
    figures["headroom_share"] = 1.0
    per_host = model.cpu.cores.items() if model.cpu else []
    cores = [(host, k) for host, resources in per_host for k in range(len(resources))]
    return ([trusted(CoreSeries, {"host": h, "core": k, "busy": idle}) for h, k in cores],
            [trusted(CoreUtilisation, {"host": h, "core": k, **figures}) for h, k in cores])
def timed(name, step, *args):
    t = time.perf_counter()
    out = step(*args)
    times.setdefault(name, []).append(time.perf_counter() - t)
    return out
gc.collect()
gc.disable()
for _ in range(inner):
    model = timed("network model", L.NetworkModel, scenario, calibration)
    timed("plan", plan_operations, scenario, scenario.source)
    plan, migrations, _ = timed("requests (plan, routes)", L.migration_requests, scenario, scenario.source,
                                calibration, model.routing)
    ends = timed("migrations' endpoints", L.migration_ends, model, migrations)
    endpoints, index = timed("core's endpoints", model.endpoint_specs, set())
    limits = L.smb_limits(model, migrations)
    timed("migrations' specs", L.migration_specs, model, migrations, ends, index, limits)
    timed("network spec", model.network_spec, endpoints)
    lowered = timed("lower() whole", L.lower, scenario, calibration)
    timed("budget", budget.check, lowered.spec, scenario.source, None)
    t = time.perf_counter()
    report = _core.run(lowered.spec)
    times.setdefault("core's call less the engine", []).append(time.perf_counter() - t - report.wall_s)
    times.setdefault("engine", []).append(report.wall_s)
    del report
    ran = run(lowered)
    named = outcomes(ran)
    records = timed("migrations' records", RB.migration_results, lowered.plan, list(lowered.migrations), named)
    if hasattr(RB, "figured_cores"):  # the series with their utilisation figures, in one call each
        timed("NICs' series and figures", RB.figured_adapters, scenario, ran)
        timed("cores' series and figures", RB.figured_cores, lowered.model, ran)
    timed("operations", RB.operation_results, lowered.plan, records)
    timed("never-completed warnings", never_warnings, scenario, lowered.model, named, lowered.owner, records)
    timed("failures", failure_results, scenario, lowered.model, named, lowered.owner, records)
    timed("readback() whole", RB.readback, ran)
    if hasattr(RB, "figured_cores"):  # the least read-back can do for the cores `Results` lists
        timed("the cores' models alone", idle_cores, lowered.model)
    del ran, named, records, lowered
gc.enable()
print(json.dumps({name: statistics.median(values) for name, values in times.items()}))
"""


def run_child(side: simulate_cost.Side, scenario: Path, inner: int) -> dict[str, float]:
    return simulate_cost.run_json(side, CHILD, [str(scenario), str(inner)], scenario.name, OUT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="git revision to build and compare with (the 'before' side)")
    parser.add_argument("--repeat", type=int, default=3, help="processes per workload and side, alternating (3)")
    parser.add_argument("--inner", type=int, default=7, help="timings of each step in each process (7)")
    parser.add_argument("--only", help="one workload by name (e.g. '64x20 smb_direct')")
    args = parser.parse_args()
    if args.repeat < 1 or args.inner < 1:
        parser.error("--repeat and --inner are at least 1")
    loads = pipeline_ab.chosen(parser, args.only)
    OUT.mkdir(parents=True, exist_ok=True)
    sides = simulate_cost.sides_against(args.against)
    for name, text in loads.items():
        scenario = OUT / (name.replace(" ", "-") + ".yaml")
        scenario.write_text(text)
        runs: dict[str, list[dict[str, float]]] = {side.label: [] for side in sides}
        for k, side in simulate_cost.alternating(sides, args.repeat):
            print(f"  {name}: {side.label}, run {k + 1}/{args.repeat}", file=sys.stderr, flush=True)
            runs[side.label].append(run_child(side, scenario, args.inner))
        steps = list(dict.fromkeys(step for side in sides for run in runs[side.label] for step in run))
        print(f"\n{name} (ms, medians)\n")
        print(
            "| step | "
            + " | ".join(side.label for side in sides)
            + (" | after / before |" if len(sides) == 2 else " |")
        )
        print("|---|" + "---:|" * (len(sides) + (len(sides) == 2)))
        for step in steps:
            cells = [
                statistics.median(run[step] for run in runs[side.label]) if step in runs[side.label][0] else None
                for side in sides
            ]
            shown = [f"{1000 * c:.1f}" if c is not None else "" for c in cells]
            ratio = ""
            if len(sides) == 2:
                ratio = f" {cells[1] / cells[0]:.2f} |" if cells[0] and cells[1] is not None else " |"
            print(f"| {step} | " + " | ".join(shown) + " |" + ratio)


if __name__ == "__main__":
    main()
