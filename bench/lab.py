#!/usr/bin/env python3
"""The lab's validation (docs/lab.md): each lab scenario run for real several times, beside the twin.

For each scenario (python/hvnet/lab/scenarios/, and the failover example), `hvnet lab run` is run
`--runs` times (3 unless told) at its scale; each transfer's end and each busy NIC direction's
bytes are tabulated as the twin predicts them and as the lab measured them (the mean of the runs,
their spread from the lowest to the highest, the mean's gap in per cent of the prediction), in
Markdown, the tables of docs/lab.md. Each run's report is kept in bench/out/lab/SCENARIO/K/.

    sudo python bench/lab.py                          # every scenario, 3 runs each (about 3 minutes)
    sudo python bench/lab.py --runs 1 two-hosts       # one scenario, once
    sudo python bench/lab.py --json bench/out/lab.json
    sudo python bench/lab.py --buffer 0.002 shared-link parking-lot   # switch ports of 2 ms

Root, Linux, iproute2: as `hvnet lab run`. Not a test: nothing here asserts; read the gaps.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "python" / "hvnet" / "lab" / "scenarios"
OUT = ROOT / "bench" / "out" / "lab"


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    scale: float = 0.01
    time_scale: float = 1.0


CASES = [
    Case("two-hosts", LAB / "two-hosts.yaml"),
    Case("shared-link", LAB / "shared-link.yaml"),
    Case("parking-lot", LAB / "parking-lot.yaml"),
    Case("team-hash", LAB / "team-hash.yaml"),
    Case("si-receive", LAB / "si-receive.yaml"),
    Case("team-failover", LAB / "team-failover.yaml"),
    Case("nic-down", LAB / "nic-down.yaml"),
    Case("mtu-1500", LAB / "mtu-1500.yaml"),
    Case("mtu-9000", LAB / "mtu-9000.yaml"),
    Case("small-transfers", LAB / "small-transfers.yaml"),
    Case("drain", LAB / "drain.yaml"),
    Case("failover", ROOT / "python" / "hvnet" / "examples" / "failover.yaml", 0.01, 0.25),
]


def _run(case: Case, runs: int, buffer_s: float) -> list[dict[str, object]]:
    import hvnet
    from hvnet.lab import Scale, lab_run

    reports = []
    for k in range(runs):
        out = OUT / case.name / str(k)
        report = lab_run(hvnet.load(case.path), Scale(case.scale, case.time_scale), out, buffer_s=buffer_s)
        reports.append(json.loads(report.model_dump_json()))
        print(f"{case.name} run {k + 1}/{runs}: {report.measured_s:.2f} s", file=sys.stderr)
    return reports


def _cell(values: list[float], unit: float, digits: int) -> tuple[str, str]:
    mean = statistics.fmean(values)
    spread = f"{min(values) / unit:.{digits}f}–{max(values) / unit:.{digits}f}" if len(values) > 1 else ""
    return f"{mean / unit:.{digits}f}", spread


def _gap(measured: list[float], predicted: float | None) -> str:
    if predicted in (None, 0) or not measured:
        return ""
    assert predicted is not None
    return f"{100 * (statistics.fmean(measured) - predicted) / predicted:+.1f} %"


def ends_table(results: dict[str, list[dict[str, object]]]) -> list[str]:
    lines = [
        "| scenario | transfer | predicted end (s) | measured, mean (s) | spread (s) | gap | retransmits |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, reports in results.items():
        first = reports[0]["transfers"]
        assert isinstance(first, list)
        for k, transfer in enumerate(first):
            ends = [r["transfers"][k]["measured_end_s"] for r in reports]  # type: ignore[index]
            got = [float(e) for e in ends if e is not None]
            mean, spread = _cell(got, 1.0, 2) if got else ("never", "")
            retransmits = statistics.fmean(int(r["transfers"][k]["retransmits"]) for r in reports)  # type: ignore[index]
            predicted = transfer["predicted_end_s"]
            lines.append(
                f"| {name} | {transfer['name']} | {predicted:.2f} | {mean} | {spread} | {_gap(got, predicted)} "
                f"| {retransmits:.0f} |"
            )
    return lines


def nics_table(results: dict[str, list[dict[str, object]]]) -> list[str]:
    lines = [
        "| scenario | NIC | direction | predicted (MB) | measured data, mean (MB) | spread (MB) | gap | + ACKs (MB) |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, reports in results.items():
        first = reports[0]["nics"]
        assert isinstance(first, list)
        for k, nic in enumerate(first):
            if not nic["predicted_bytes"]:
                continue
            got = [float(r["nics"][k]["measured_bytes"]) for r in reports]  # type: ignore[index]
            acks = statistics.fmean(float(r["nics"][k]["measured_ack_bytes"]) for r in reports)  # type: ignore[index]
            mean, spread = _cell(got, 1e6, 2)
            lines.append(
                f"| {name} | {nic['host']}/{nic['nic']} | {nic['direction']} | {nic['predicted_bytes'] / 1e6:.2f} "
                f"| {mean} | {spread} | {_gap(got, nic['predicted_bytes'])} | {acks / 1e6:.3f} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="scenarios to run (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="write every report here")
    parser.add_argument("--buffer", type=float, default=0.020, help="a switch port's buffer, seconds (default 0.020)")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.names or c.name in args.names]
    results = {case.name: _run(case, args.runs, args.buffer) for case in cases}
    print("\n".join(ends_table(results)))
    print()
    print("\n".join(nics_table(results)))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
