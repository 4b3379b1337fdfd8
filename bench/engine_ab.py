#!/usr/bin/env python3
"""The engine, side by side with an older revision: time, peak memory and agreement.

Two kinds of workload, each run K times per side, the sides alternating so
that both meet the same machine noise:

- ``star N``: the engine alone (``cargo run --release -p hvnet-engine --example
  star -- 64 N 1``): N flows between random hosts of a 64-host star, all at 0.
  Time is what the example prints (the run only), memory the process's peak.
- ``flows N`` / ``staggered N``: ``hvnet flows --json`` on a 64-host star, the
  flows all at 0 (``bench/workload.py``, links only, as the SimGrid comparison
  runs them) or starting over 10 s with the full model (``bench/scale.py``'s
  flows sweep). Time is the engine's (``wall_s`` of the JSON).

Each row gives the best time of each side, their ratio (after/before), the
largest peak RSS of each side (the child's own, from ``os.wait4``), and the
largest relative difference between the two sides' completion times.

The older revision is built once, as ``bench/simulate_cost.py`` builds it
(``bench/out/src-REV`` and ``bench/out/venv-REV``); its star example goes to
``bench/out/target-REV``, built from the current example file (the same
program on both engines). Set ``CARGO_TARGET_DIR`` to share the current
side's Rust build output.

    python bench/engine_ab.py --against af17d28
    python bench/engine_ab.py --against af17d28 --star 4000,8000,16000 --repeat 7 --json bench/out/engine_ab.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402  (bench/ scripts, imported for their generators)
import simulate_cost  # noqa: E402
import workload  # noqa: E402

REPO = HERE.parent
OUT = HERE / "out"


@dataclass
class Run:
    seconds: float
    peak_mib: float
    ends: list[float]


@dataclass
class Row:
    workload: str
    runs: dict[str, list[Run]] = field(default_factory=dict)

    def best(self, side: str) -> float:
        return min(r.seconds for r in self.runs[side])

    def peak(self, side: str) -> float:
        return max(r.peak_mib for r in self.runs[side])

    def max_rel_diff(self) -> float:
        a, b = (self.runs[s][0].ends for s in ("before", "after"))
        if len(a) != len(b):
            return float("inf")
        return max((abs(x - y) / max(abs(x), abs(y), 1e-300) for x, y in zip(a, b)), default=0.0)


def run_child(cmd: list[str]) -> tuple[str, float]:
    """Runs `cmd` in a fresh process; its standard output and its own peak RSS in MiB."""
    out_path = OUT / "engine_ab.stdout"
    with out_path.open("w") as out, (OUT / "engine_ab.stderr").open("w") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=OUT, env=simulate_cost.child_env())
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {(OUT / 'engine_ab.stderr').read_text()[-2000:]}")
    return out_path.read_text(), usage.ru_maxrss / 1024


def build_star(src: Path, target: Path | None) -> Path:
    """The current star example, built in release mode against the engine of
    the checkout `src` (an older checkout gets the current file, which writes
    the completion times). If the current file uses what the older engine
    lacks (it prints the solver's statistics), the checkout's own example
    runs instead: the same workload, from the same generator."""
    example = Path("crates/engine/examples/star.rs")
    env = dict(os.environ)
    if target is not None:
        env["CARGO_TARGET_DIR"] = str(target)
    build = ["cargo", "build", "--quiet", "--release", "-p", "hvnet-engine", "--example", "star"]
    if src != REPO:
        own = (src / example).read_text()
        (src / example).write_text((REPO / example).read_text())
        if subprocess.run(build, cwd=src, env=env, capture_output=True, check=False).returncode != 0:
            print(
                f"{src.name}: the current star example does not build there; using its own", file=sys.stderr, flush=True
            )
            (src / example).write_text(own)
    subprocess.run(build, cwd=src, env=env, check=True)
    done = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=src,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(json.loads(done.stdout)["target_directory"]) / "release" / "examples" / "star"


def star_run(binary: Path, flows: int) -> Run:
    ends_path = OUT / f"engine_ab_star_{flows}.txt"
    text, peak = run_child([str(binary), "64", str(flows), "1", str(ends_path)])
    found = re.search(r"([0-9.]+) s wall", text)
    if found is None:
        raise RuntimeError(f"{binary}: no time in its output: {text!r}")
    seconds = float(found.group(1))
    ends = [float(x) for x in ends_path.read_text().split()]
    return Run(seconds, peak, ends)


def flows_run(python: str, scenario: Path, csv_path: Path, links_only: bool) -> Run:
    out = OUT / "engine_ab_flows.json"
    cmd = [python, "-m", "hvnet", "flows", str(scenario), str(csv_path), "--json", str(out), "--force"]
    _, peak = run_child(cmd + (["--links-only"] if links_only else []))
    document = json.loads(out.read_text())
    return Run(document["wall_s"], peak, document["end_s"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", required=True, help="the older revision (a commit, tag or branch)")
    ap.add_argument("--star", default="4000,8000,16000", help="flow counts for the engine alone ('' for none)")
    ap.add_argument("--flows", default="16000", help="flow counts for `hvnet flows`, all at 0 ('' for none)")
    ap.add_argument("--staggered", default="4000,16000", help="flow counts for `hvnet flows`, staggered ('' for none)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per side and workload (default 5)")
    ap.add_argument("--json", type=Path, help="write every run here")
    a = ap.parse_args(argv)
    counts = {
        k: [int(n) for n in v.split(",") if n]
        for k, v in (("star", a.star), ("flows", a.flows), ("staggered", a.staggered))
    }
    OUT.mkdir(parents=True, exist_ok=True)

    before = simulate_cost.build_revision(a.against)
    tag = Path(before.python).parents[1].name.removeprefix("venv-")
    sides = {"before": before.python, "after": sys.executable}
    stars = {}
    if counts["star"]:
        print("building the star example on both sides ...", file=sys.stderr, flush=True)
        stars = {"before": build_star(OUT / f"src-{tag}", OUT / f"target-{tag}"), "after": build_star(REPO, None)}

    star_yaml = OUT / "engine_ab_star.yaml"
    star_yaml.write_text(scale.star_yaml(64))

    # Each job runs its workload once, on the side it is given.
    def star_job(n: int) -> Callable[[str], Run]:
        return lambda side: star_run(stars[side], n)

    def flows_job(path: Path, links_only: bool) -> Callable[[str], Run]:
        return lambda side: flows_run(sides[side], star_yaml, path, links_only)

    jobs: list[tuple[str, Callable[[str], Run]]] = [(f"star {n}", star_job(n)) for n in counts["star"]]
    for n in counts["flows"]:
        path = OUT / f"engine_ab_flows_{n}.csv"
        workload.write_csv(workload.make_flows(64, n, 1), str(path))
        jobs.append((f"flows {n}", flows_job(path, True)))
    for n in counts["staggered"]:
        path = OUT / f"engine_ab_staggered_{n}.csv"
        path.write_text(scale.flows_csv(64, n))
        jobs.append((f"staggered {n}", flows_job(path, False)))

    rows = []
    started = time.perf_counter()
    for name, job in jobs:
        row = Row(name, {"before": [], "after": []})
        for k in range(a.repeat):
            order = ("before", "after") if k % 2 == 0 else ("after", "before")
            for side in order:
                print(f"  {name}: {side} run {k + 1}/{a.repeat}", file=sys.stderr, flush=True)
                row.runs[side].append(job(side))
        rows.append(row)

    print(
        f"engine: {tag} (before) against the current checkout (after), best of {a.repeat}, "
        f"{time.perf_counter() - started:.0f} s of measuring"
    )
    print(
        f"{'workload':<16} {'before s':>9} {'after s':>9} {'after/before':>12} "
        f"{'before MiB':>10} {'after MiB':>9} {'max rel diff':>12}"
    )
    for r in rows:
        print(
            f"{r.workload:<16} {r.best('before'):>9.3f} {r.best('after'):>9.3f} "
            f"{r.best('after') / r.best('before'):>12.3f} {r.peak('before'):>10.0f} "
            f"{r.peak('after'):>9.0f} {r.max_rel_diff():>12.1e}"
        )
    if a.json:
        a.json.write_text(
            json.dumps(
                [
                    {
                        "workload": r.workload,
                        "max_rel_diff": r.max_rel_diff(),
                        **{f"{side}_s": [x.seconds for x in r.runs[side]] for side in sides},
                        **{f"{side}_peak_mib": [x.peak_mib for x in r.runs[side]] for side in sides},
                    }
                    for r in rows
                ],
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
