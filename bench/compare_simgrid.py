#!/usr/bin/env python3
"""hvnet vs SimGrid (max-min / LMM) on the same star workloads.

For each flow count: generate a seeded star workload (bench/workload.py), run
``hvnet flows`` and ``bench/simgrid_flows.py`` (under the Debian python that
has SimGrid) on it, one after the other, and report

  * engine wall time of each (the ``wall_s`` each tool reports: simulation
    only, no process start-up, no platform/CSV parsing),
  * whole-process wall time of each (what a user waits for),
  * the largest relative difference of flow completion times.

Exit status: 0 if every completion time agrees within --tol (default 1e-4),
1 if not, 2 if a tool failed.

    python bench/compare_simgrid.py                       # 1000,4000,8000,16000 flows, 64 hosts
    python bench/compare_simgrid.py --flows 1000,4000 --repeat 3 --json bench/out/result.json
    python bench/compare_simgrid.py --only-simgrid        # SimGrid side alone
    python bench/compare_simgrid.py --flows 4000,16000 --spread 10   # flows starting over 10 s
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workload  # noqa: E402

DEFAULT_SIMGRID_PY = "/usr/bin/python3"


class ToolError(RuntimeError):
    pass


def hvnet_cmd() -> list[str]:
    exe = shutil.which("hvnet")
    return [exe] if exe else [sys.executable, "-m", "hvnet"]


def run(cmd: list[str], stdout: IO[str] | None = None) -> float:
    """Run cmd, return whole-process wall time; raise ToolError on failure."""
    t0 = time.perf_counter()
    p = subprocess.run(
        cmd,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        check=False,  # the return code is checked below, with the command's stderr in the error
    )
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise ToolError(f"command failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr.strip()}")
    return dt


def load(path: Path) -> dict[str, Any]:
    with open(path) as f:
        d: dict[str, Any] = json.load(f)
    for k in ("engine", "wall_s", "end_s"):
        if k not in d:
            raise ToolError(f"{path}: missing key {k!r}")
    return d


def max_rel_diff(a: list[float | None], b: list[float | None]) -> float:
    if len(a) != len(b):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b):
        if x is None or y is None:
            return float("inf")
        d = abs(x - y) / max(abs(y), abs(x), 1e-12)
        if math.isnan(d):
            return float("inf")
        worst = max(worst, d)
    return worst


def nic_str(bps: float) -> str:
    for unit, f in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if bps >= f:
            return f"{bps / f:g}{unit}"
    return f"{bps:g}bps"


def fmt(x: float | None, spec: str = ".3f") -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and x == float("inf"):
        return "inf"
    return format(x, spec)


def print_table(rows: list[dict[str, Any]], title: str, only_simgrid: bool) -> None:
    cols: list[tuple[str, Callable[[dict[str, Any]], str]]] = [  # (header, cell)
        ("flows", lambda r: str(r["flows"])),
        ("hvnet s", lambda r: fmt(r.get("hvnet_wall_s"))),
        ("simgrid s", lambda r: fmt(r.get("simgrid_wall_s"))),
        ("sg/hv", lambda r: "-" if r.get("ratio") is None else f"{r['ratio']:.3g}x"),
        ("hvnet proc s", lambda r: fmt(r.get("hvnet_proc_s"))),
        ("simgrid proc s", lambda r: fmt(r.get("simgrid_proc_s"))),
        ("max rel diff", lambda r: fmt(r.get("max_rel_diff"), ".2e")),
    ]
    if only_simgrid:
        cols = [c for c in cols if c[0] in ("flows", "simgrid s", "simgrid proc s")]
    headers = [h for h, _ in cols]
    body = [[cell(r) for _, cell in cols] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        w = [max([len(h), *(len(b[i]) for b in body)]) for i, h in enumerate(headers)]
        print("  ".join(h.rjust(w[i]) for i, h in enumerate(headers)))
        for b in body:
            print("  ".join(c.rjust(w[i]) for i, c in enumerate(b)))
        return
    t = Table()
    for h in headers:
        t.add_column(h, justify="right", no_wrap=True)
    for b in body:
        t.add_row(*b)
    con = Console()
    if not con.is_terminal:
        con = Console(width=120)
    con.print(title)
    con.print(t)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flows", default="1000,4000,8000,16000", help="comma-separated flow counts")
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="seconds over which the flows start (default 0: all at 0; bench/workload.py)",
    )
    ap.add_argument("--nic-bps", type=float, default=1e10, help="NIC capacity, bit/s (default 1e10 = 10 Gbps)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; best time reported (default 1)")
    ap.add_argument("--tol", type=float, default=1e-4, help="max allowed relative difference (default 1e-4)")
    ap.add_argument("--json", dest="json_out", help="save the result rows to this JSON file")
    ap.add_argument("--workdir", default=str(HERE / "out"), help="where workloads/outputs go (default bench/out)")
    ap.add_argument("--only-simgrid", action="store_true", help="skip hvnet (SimGrid side alone)")
    ap.add_argument(
        "--simgrid-python",
        default=DEFAULT_SIMGRID_PY,
        help=f"interpreter with SimGrid bindings (default {DEFAULT_SIMGRID_PY})",
    )
    ap.add_argument(
        "--simgrid-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for simgrid_flows.py, e.g. --simgrid-arg=--cfg=network/optim:Lazy",
    )
    a = ap.parse_args(argv)
    if a.spread < 0:
        ap.error("--spread must be >= 0")
    return a


class Best:
    """The smallest value seen of each measurement over the repeats."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def keep(self, key: str, val: float | None) -> None:
        if val is not None and (key not in self.values or val < self.values[key]):
            self.values[key] = val


def run_hvnet(hv: list[str], scenario: Path, flows_csv: Path, hv_json: Path, best: Best) -> tuple[str, Any]:
    """One ``hvnet flows`` run; returns its engine and its completion times."""
    t = run([*hv, "flows", str(scenario), str(flows_csv), "--json", str(hv_json), "--force", "--links-only"])
    d = load(hv_json)
    best.keep("hvnet_proc_s", t)
    best.keep("hvnet_wall_s", float(d["wall_s"]))
    if "cpu_s" in d:
        best.keep("hvnet_cpu_s", float(d["cpu_s"]))
    return d["engine"], d["end_s"]


def run_simgrid(a: argparse.Namespace, n: int, flows_csv: Path, sg_json: Path, best: Best) -> dict[str, Any]:
    """One ``simgrid_flows.py`` run; returns its JSON output."""
    sg_script = str(HERE / "simgrid_flows.py")
    t = run(
        [
            a.simgrid_python,
            sg_script,
            "--hosts",
            str(a.hosts),
            "--nic-bps",
            repr(a.nic_bps),
            str(flows_csv),
            "--json",
            str(sg_json),
            *a.simgrid_arg,
        ]
    )
    d = load(sg_json)
    best.keep("simgrid_proc_s", t)
    best.keep("simgrid_wall_s", float(d["wall_s"]))
    if "cpu_s" in d:
        best.keep("simgrid_cpu_s", float(d["cpu_s"]))
    if len(d["end_s"]) != n:
        raise ToolError(f"simgrid returned {len(d['end_s'])} completion times for {n} flows")
    return d


def write_workload(a: argparse.Namespace, n: int) -> str:
    """The seeded workload of n flows as a CSV in the work directory; returns the name of its files."""
    name = f"h{a.hosts}_n{n}_s{a.seed}" + (f"_spread{a.spread:g}" if a.spread else "")
    flows_csv = Path(a.workdir) / f"flows_{name}.csv"
    workload.write_csv(workload.make_flows(a.hosts, n, a.seed, a.spread), str(flows_csv))
    return name


def measure(
    a: argparse.Namespace, n: int, name: str, hv: list[str], scenario: Path, engines: dict[str, Any]
) -> dict[str, Any]:
    """Both tools on the workload of n flows, a.repeat times: the row of the table.

    Records the engines' names in engines; raises ToolError, OSError or ValueError if a tool fails.
    """
    work = Path(a.workdir)
    flows_csv = work / f"flows_{name}.csv"
    hv_json = work / f"hvnet_{name}.json"
    sg_json = work / f"simgrid_{name}.json"
    best = Best()
    worst_diff = None
    for _ in range(a.repeat):
        hv_end = None
        if not a.only_simgrid:
            engines["hvnet"], hv_end = run_hvnet(hv, scenario, flows_csv, hv_json, best)
        d = run_simgrid(a, n, flows_csv, sg_json, best)
        engines["simgrid"] = d["engine"]
        if "config" in d:
            engines["simgrid_config"] = d["config"]
        if hv_end is not None:
            diff = max_rel_diff(hv_end, d["end_s"])
            worst_diff = diff if worst_diff is None else max(worst_diff, diff)

    row: dict[str, Any] = {"flows": n, "hosts": a.hosts, "seed": a.seed, **best.values, "max_rel_diff": worst_diff}
    if best.values.get("hvnet_wall_s") and best.values.get("simgrid_wall_s") is not None:
        row["ratio"] = best.values["simgrid_wall_s"] / best.values["hvnet_wall_s"]
    return row


def print_progress(row: dict[str, Any]) -> None:
    print(
        f"[{row['flows']} flows] "
        + ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in row.items()
            if k not in ("flows", "hosts", "seed")
        ),
        file=sys.stderr,
        flush=True,
    )


def save_json(a: argparse.Namespace, engines: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    out = {
        "hosts": a.hosts,
        "seed": a.seed,
        "spread_s": a.spread,
        "nic_bps": a.nic_bps,
        "repeat": a.repeat,
        "tol": a.tol,
        "engines": engines,
        "rows": rows,
    }
    Path(a.json_out).parent.mkdir(parents=True, exist_ok=True)
    with open(a.json_out, "w") as f:
        json.dump(out, f, indent=2)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    sizes = [int(x) for x in a.flows.split(",") if x.strip()]
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    hv = hvnet_cmd()
    nic = nic_str(a.nic_bps)

    scenario = work / f"star_h{a.hosts}_{nic}.yaml"
    if not a.only_simgrid:
        try:
            with open(scenario, "w") as f:
                run([*hv, "topology", "star", "--hosts", str(a.hosts), "--nic", nic], stdout=f)
        except (ToolError, OSError) as ex:
            print(f"error: hvnet topology failed: {ex}", file=sys.stderr)
            return 2

    rows = []
    engines: dict[str, Any] = {}
    failed = False
    for n in sizes:
        name = write_workload(a, n)
        try:
            row = measure(a, n, name, hv, scenario, engines)
        except (ToolError, OSError, ValueError) as ex:
            print(f"error ({n} flows): {ex}", file=sys.stderr)
            return 2
        rows.append(row)
        worst_diff = row["max_rel_diff"]
        if worst_diff is not None and not worst_diff <= a.tol:
            failed = True
        print_progress(row)

    starts = f"starts over {a.spread:g} s" if a.spread else "all at 0"
    title = (
        f"{a.hosts}-host star, {nic} NICs, seed {a.seed}, {starts}, best of {a.repeat}: "
        f"{engines.get('hvnet', 'hvnet (skipped)')} vs {engines.get('simgrid', 'simgrid')}"
    )
    print_table(rows, title, a.only_simgrid)

    if a.json_out:
        save_json(a, engines, rows)

    if failed:
        print(f"FAIL: completion times differ by more than {a.tol:g} (relative)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
