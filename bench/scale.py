#!/usr/bin/env python3
"""How hvnet's cost grows with the cluster: the scaling curve of issue 12.

Three sweeps of generated clusters, each point run in a fresh process at
default settings (`--step 1s`), with the wall time and the peak memory (RSS)
after each phase a user waits for:

- **hosts**: rolling updates of 4, 16, 64 (and with `--big` 256) hosts of 20
  VMs each (every VM live-migrates twice: off its node and back);
- **VMs**: a 64-host cluster of 100 ... 10,000 VMs in which half the hosts are
  drained at once (half the VMs live-migrate);
- **flows**: 1,000 ... 64,000 random flows on a 64-host star (`hvnet flows`'s
  path: no migrations, the engine alone with the network model);
- **cases**: the 64-host, 1,280-VM rolling update as users run it, once per
  live-migration option (TCP/IP, Compression, SMB, SMB Direct over RDMA
  NICs), and once with a failure mid-run (a switch down for ten minutes):
  SET teams, vRSS and every host's cores modelled in each.

Phases: **import** (Python starts hvnet and imports the modules the phases
run), **load** (read and check the YAML), **simulate** (lower, run the core,
read back; the engine's own time is reported apart, and Python's share is
the rest), **json** (the results document written), **report** (the HTML
report written; hosts, VMs and cases sweeps only), and **command** (the whole
`hvnet simulate FILE --json --report` in a process of its own, as a user
waits for it, the median of three; the 64-host points). hvnet's modules are
byte-compiled first, as a wheel's install does. Peak RSS is the process's high-water mark
when the phase ends, so it includes the phases before it.

It prints a table as it goes (with a progress bar), fits the growth exponent
of each phase's wall time against the sweep's size (least squares in log-log:
1 is linear, 2 quadratic), and with `--write` puts both, and a plot, into
docs/performance.md and docs/performance.png (the plot is drawn with plotly
and rendered by headless Chromium).

    python bench/scale.py                    # all three sweeps, up to 64 hosts and 64k flows
    python bench/scale.py --quick            # the small points only (a minute)
    python bench/scale.py --write            # and rewrite docs/performance.md
    python bench/scale.py --big --write      # with 256 hosts

Not a test: nothing here asserts on time; read the table. Machines here are
shared and noisy: the exponents matter more than the seconds.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "scale"
DOC = REPO / "docs" / "performance.md"
PLOT = REPO / "docs" / "performance.png"


def cluster_yaml(
    hosts: int, vms: int, operation: str, option: str = "tcp_ip", failure: bool = False, cores_per_socket: int = 16
) -> str:
    """`hosts` hosts (2 x `cores_per_socket` cores, two 10 GbE NICs in a SET team under a vSwitch, live
    migration by `option`, two at a time; RDMA NICs for smb_direct) on two switches, `vms` VMs
    dealt round robin (4-16 GiB, 2 vCPUs: vRSS), and one `operation`: "rolling_update" of every
    node, or "drain" of the first half of the hosts; with `failure`, tor1 down from 10 to 20 min."""
    rdma = ", rdma: true" if option == "smb_direct" else ""
    name = (
        f"{hosts} hosts, {vms} VMs, {operation}"
        + ("" if option == "tcp_ip" else f", {option}")
        + (", a failure" if failure else "")
    )
    lines = [f"name: {name}", "hosts:"]
    for h in range(1, hosts + 1):
        lines += [
            f"  - name: hv{h}",
            f"    cpu: {{sockets: 2, cores_per_socket: {cores_per_socket}, ghz: 2.6}}",
            f"    nics: [{{name: nic1, speed: 10Gbps, mtu: 9000{rdma}}},"
            f" {{name: nic2, speed: 10Gbps, mtu: 9000{rdma}}}]",
            "    teams: [{name: team1, kind: set, members: [nic1, nic2], load_balancing: hyperv_port}]",
            "    vswitches: [{name: vSwitch, uplink: team1}]",
            f"    live_migration: {{option: {option}, simultaneous: 2}}",
        ]
    ports = max(hosts, 2)
    lines += [
        f"switches: [{{name: tor1, ports: {ports}, port_speed: 10Gbps}},"
        f" {{name: tor2, ports: {ports}, port_speed: 10Gbps}}]"
    ]
    lines += ["cables:"] + [f"  - {{a: hv{h}/nic{n}, b: tor{n}/{h}}}" for h in range(1, hosts + 1) for n in (1, 2)]
    lines += ["vms:"] + [
        f"  - {{name: vm{i}, host: hv{i % hosts + 1}, vcpus: 2, memory: {4 + 4 * (i % 4)}GiB, vswitch: vSwitch}}"
        for i in range(vms)
    ]
    if operation == "rolling_update":
        lines += ["events:", "  - {at: 0s, action: rolling_update, patch_time: 10min}"]
    else:
        lines += ["events:"] + [f"  - {{at: 0s, action: drain, target: hv{h}}}" for h in range(1, hosts // 2 + 1)]
    if failure:
        lines += [
            "  - {at: 10min, action: switch_down, target: tor1}",
            "  - {at: 20min, action: switch_up, target: tor1}",
        ]
    return "\n".join(lines) + "\n"


def star_yaml(hosts: int) -> str:
    lines = [f"name: star of {hosts}", "hosts:"]
    lines += [f"  - {{name: hv{h}, nics: [{{name: nic1, speed: 10Gbps}}]}}" for h in range(1, hosts + 1)]
    lines += [f"switches: [{{name: sw, ports: {hosts}, port_speed: 10Gbps}}]", "cables:"]
    lines += [f"  - {{a: hv{h}/nic1, b: sw/{h}}}" for h in range(1, hosts + 1)]
    return "\n".join(lines) + "\n"


def flows_csv(hosts: int, flows: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    rows = ["src,dst,bytes,start_s"]
    for _ in range(flows):
        a, b = rng.sample(range(1, hosts + 1), 2)
        rows.append(f"hv{a},hv{b},{rng.randint(1, 100) * 10**7},{rng.uniform(0, 10):.3f}")
    return "\n".join(rows) + "\n"


#: Runs in the child: each phase, then its time and the peak RSS so far, as one JSON line.
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
kind, scenario_path, extra, out = sys.argv[1:5]
marks = []
def mark(phase, t0, **more):
    marks.append({"phase": phase, "wall_s": time.perf_counter() - t0,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **more})
t = time.perf_counter()
import gc
import hvnet
import hvnet.simulation, hvnet.flows, hvnet.report  # what the phases below run (the CLI imports its command's)
from hvnet.cli import YOUNG_COLLECTION
from hvnet.model import load_scenario
gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])  # as the command runs (hvnet.cli.main)
mark("import", t)
t = time.perf_counter()
scenario = load_scenario(scenario_path)
mark("load", t)
if kind == "flows":
    from hvnet.flows import read_flows, run_flows
    t = time.perf_counter()
    rows = read_flows(Path(extra), scenario)
    result = run_flows(scenario, rows, Path(extra))
    mark("simulate", t, engine_s=result.wall_s)
    t = time.perf_counter()
    Path(out + ".json").write_text(json.dumps(result.to_json()))
    mark("json", t)
else:
    from hvnet.report import write_report
    t = time.perf_counter()
    results = hvnet.simulate(scenario)
    mark("simulate", t, engine_s=results.wall_s)
    t = time.perf_counter()
    Path(out + ".json").write_text(results.model_dump_json())
    mark("json", t, mib=Path(out + ".json").stat().st_size / 2**20)
    t = time.perf_counter()
    write_report(results, scenario, Path(out + ".html"))
    mark("report", t, mib=Path(out + ".html").stat().st_size / 2**20)
print(json.dumps(marks))
"""


@dataclass
class Point:
    sweep: str
    size: int
    label: str
    phase: str
    wall_s: float
    peak_mib: float
    engine_s: float | None = None
    output_mib: float | None = None

    @property
    def python_s(self) -> float | None:
        """Python's share of the simulate phase: its wall time less the engine's."""
        return None if self.engine_s is None else self.wall_s - self.engine_s


def run_point(sweep: str, size: int, label: str, kind: str, scenario: str, extra: str = "") -> list[Point]:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{sweep}-{size}.yaml"
    path.write_text(scenario)
    extra_path = ""
    if extra:
        extra_path = str(OUT / f"{sweep}-{size}.csv")
        Path(extra_path).write_text(extra)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path), extra_path, str(OUT / f"{sweep}-{size}")],
        capture_output=True,
        text=True,
        env=env,
        check=False,  # a failure is reported below, with the end of the child's output
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise SystemExit(f"{sweep} {label}: the child failed (exit {done.returncode}): {tail[0]}")
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    points = [
        Point(sweep, size, label, m["phase"], m["wall_s"], m["peak_mib"], m.get("engine_s"), m.get("mib"))
        for m in marks
    ]
    if kind == "simulate" and (sweep == "cases" or (size == 64 and sweep == "hosts")):
        points.append(run_command(sweep, size, label, path))
    return points


def run_command(sweep: str, size: int, label: str, scenario: Path) -> Point:
    """The whole `hvnet simulate FILE --json --report` as a user runs it: wall time and peak RSS."""
    out = OUT / f"{sweep}-{size}-command"
    command = [
        sys.executable,
        "-m",
        "hvnet",
        "simulate",
        str(scenario),
        "--json",
        f"{out}.json",
        "--report",
        f"{out}.html",
        "--force",
    ]
    walls = []
    for _ in range(COMMAND_RUNS):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # the exit code is checked below
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{sweep} {label}: hvnet simulate failed (exit {done.returncode})")
    peak = _child_peak_mib()
    return Point(sweep, size, label, "command", statistics.median(walls), peak)


#: The whole command is timed this many times and its median kept: one process is at the mercy of
#: a shared machine's other work.
COMMAND_RUNS = 3


def byte_compile() -> None:
    """hvnet's modules compiled once, as pip does when it installs a wheel: an editable install has
    no compiled modules, and where PYTHONDONTWRITEBYTECODE is set (as on this project's machines)
    every process would compile hvnet's sources again (0.14 s of each command here)."""
    import hvnet

    compileall.compile_dir(Path(hvnet.__file__).parent, quiet=1)


def run_help() -> Point:
    """`hvnet --help` in a process of its own, the median of COMMAND_RUNS: what the CLI costs to start."""
    walls = []
    for _ in range(COMMAND_RUNS):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "hvnet", "--help"], capture_output=True, check=True)
        walls.append(time.perf_counter() - started)
    return Point("cli", 0, "hvnet --help", "command", statistics.median(walls), _child_peak_mib())


def _child_peak_mib() -> float:
    """The largest peak RSS of a child process waited for so far (the last command's, at least)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def exponent(points: list[Point], phase: str) -> float | None:
    """Least-squares slope of log(wall) against log(size): the growth exponent."""
    xy = [(math.log(p.size), math.log(max(p.wall_s, 1e-6))) for p in points if p.phase == phase]
    if len(xy) < 2:
        return None
    mx, my = sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)
    sxx = sum((x - mx) ** 2 for x, _ in xy)
    return None if sxx == 0 else sum((x - mx) * (y - my) for x, y in xy) / sxx


def plan(quick: bool, big: bool) -> list[tuple[str, int, str, str, str, str]]:
    """(sweep, size, label, kind, scenario text, extra) for every point to run."""
    hosts = [4, 16] if quick else [4, 16, 64] + ([256] if big else [])
    vms = [100, 1000] if quick else [100, 1000, 2500, 5000, 10000]
    flows = [1000, 4000] if quick else [1000, 4000, 16000, 64000]
    points = [
        ("hosts", h, f"{h} hosts x 20 VMs, rolling update", "simulate", cluster_yaml(h, 20 * h, "rolling_update"), "")
        for h in hosts
    ]
    points += [("VMs", v, f"64 hosts, {v} VMs, 32 drained", "simulate", cluster_yaml(64, v, "drain"), "") for v in vms]
    points += [("flows", f, f"64-host star, {f} flows", "flows", star_yaml(64), flows_csv(64, f)) for f in flows]
    cases = [("tcp_ip", False), ("compression", False), ("smb", False), ("smb_direct", False), ("smb", True)]
    for k, (option, failure) in enumerate([] if quick else cases, start=1):
        label = f"64 x 20 rolling update, {option}" + (", a switch down 10 min" if failure else "")
        points.append(("cases", k, label, "simulate", cluster_yaml(64, 1280, "rolling_update", option, failure), ""))
    return points


def markdown(points: list[Point]) -> str:
    rows = [
        "| sweep | point | phase | wall s | engine s | Python s | peak RSS MiB | output MiB |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for p in points:
        engine = "" if p.engine_s is None else f"{p.engine_s:.3f}"
        python = "" if p.python_s is None else f"{p.python_s:.3f}"
        output = "" if p.output_mib is None else f"{p.output_mib:.1f}"
        rows.append(
            f"| {p.sweep} | {p.label} | {p.phase} | {p.wall_s:.3f} | {engine} | {python} | {p.peak_mib:.0f}"
            f" | {output} |"
        )
    rows += ["", "| sweep | phase | growth exponent of wall time |", "|---|---|---:|"]
    for sweep in dict.fromkeys(p.sweep for p in points if p.sweep not in ("cases", "cli")):  # not a size
        mine = [p for p in points if p.sweep == sweep]
        for phase in dict.fromkeys(p.phase for p in mine if p.phase != "command"):
            k = exponent(mine, phase)
            rows.append(f"| {sweep} | {phase} | {'-' if k is None else f'{k:.2f}'} |")
    return "\n".join(rows) + "\n"


def plot(points: list[Point], png: Path) -> None:
    """Wall time of each phase against size, one panel per sweep, log-log; PNG via headless Chromium."""
    import plotly.graph_objects as go  # type: ignore[import-untyped]
    from plotly.subplots import make_subplots  # type: ignore[import-untyped]

    sweeps = list(dict.fromkeys(p.sweep for p in points if p.sweep not in ("cases", "cli")))
    figure = make_subplots(rows=1, cols=len(sweeps), subplot_titles=[f"wall time vs {s}" for s in sweeps])
    for col, sweep in enumerate(sweeps, start=1):
        mine = [p for p in points if p.sweep == sweep]
        for phase in dict.fromkeys(p.phase for p in mine if p.phase != "command"):
            ps = [p for p in mine if p.phase == phase]
            figure.add_trace(
                go.Scatter(
                    x=[p.size for p in ps], y=[p.wall_s for p in ps], name=f"{sweep}: {phase}", mode="lines+markers"
                ),
                row=1,
                col=col,
            )
        figure.update_xaxes(type="log", title_text=sweep, row=1, col=col)
        figure.update_yaxes(type="log", title_text="s", row=1, col=col)
    figure.update_layout(width=1400, height=450, margin={"l": 50, "r": 20, "t": 40, "b": 40})
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "plot.html"
        figure.write_html(html, include_plotlyjs=True, config={"displayModeBar": False})
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--hide-scrollbars",
                f"--screenshot={png}",
                "--window-size=1400,460",
                html.as_uri(),
            ],
            check=True,
            capture_output=True,
        )


def write_doc(points: list[Point]) -> None:
    text = DOC.read_text() if DOC.exists() else ""
    start, end = "<!-- scale: generated by bench/scale.py -->", "<!-- end of scale -->"
    block = (
        f"{start}\n\nMeasured {time.strftime('%Y-%m-%d')} on this project's 2-core machine"
        f" (`python bench/scale.py --write`).\n\n{markdown(points)}"
        f"\n![wall time against size](performance.png)\n\n{end}"
    )
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the small points only")
    parser.add_argument("--big", action="store_true", help="add 256 hosts to the hosts sweep")
    parser.add_argument("--write", action="store_true", help="rewrite the table and plot in docs/performance.md")
    parser.add_argument("--json", type=Path, help="write every point as JSON")
    args = parser.parse_args()
    from rich.console import Console
    from rich.progress import Progress

    console = Console()
    byte_compile()
    todo = plan(args.quick, args.big)
    points: list[Point] = [run_help()]
    console.print(f"hvnet --help: {points[0].wall_s:.2f} s")
    with Progress(console=console) as progress:
        task = progress.add_task("scaling", total=len(todo))
        for sweep, size, label, kind, scenario, extra in todo:
            progress.update(task, description=label)
            got = run_point(sweep, size, label, kind, scenario, extra)
            points += got
            summary = ", ".join(f"{p.phase} {p.wall_s:.2f} s" for p in got)
            progress.console.print(f"{label}: {summary}; peak {max(p.peak_mib for p in got):.0f} MiB")
            progress.advance(task)
    sys.stdout.write(markdown(points))  # a Markdown table: never wrapped at the terminal
    if args.json:
        args.json.write_text(json.dumps([asdict(p) for p in points], indent=1))
    if args.write:
        plot(points, PLOT)
        write_doc(points)
        console.print(f"wrote {DOC} and {PLOT}")


if __name__ == "__main__":
    main()
