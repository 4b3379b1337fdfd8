"""The two sides of a measurement, before and after a change: an interpreter with hvnet installed.

"after" is the current install; "before" is hvnet at a git revision, built into a cached
virtualenv ``bench/out/venv-REV`` (``build_revision``). Every measured process runs with
``child_env``, and a child that prints its figures as JSON is run by ``run_json``; a comparison's
sides come from ``sides_against`` and take turns by ``alternating``.
bench/simulate_cost.py (which re-exports these names), engine_ab.py, pipeline_ab.py and
pipeline_steps.py measure with them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"


@dataclass(frozen=True)
class Side:
    """An interpreter with hvnet installed: "before" (a built revision) or "after" (the current one)."""

    label: str
    python: str


def sides_against(rev: str | None, python: str = sys.executable) -> list[Side]:
    """The sides of a comparison, before first: hvnet at `rev` built (none without one), then the
    current install (`python`)."""
    return ([build_revision(rev)] if rev else []) + [Side("after (current)", python)]


def alternating(sides: list[Side], repeat: int) -> Iterator[tuple[int, Side]]:
    """Each run's number (0 to `repeat` - 1) and side, the sides alternating (before, after; after,
    before; ...) so that neither always goes first and both meet the same machine noise."""
    for k in range(repeat):
        for side in sides if k % 2 == 0 else reversed(sides):
            yield k, side


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout.strip()


def build_revision(rev: str) -> Side:
    """hvnet at git revision `rev` in a cached virtualenv ``bench/out/venv-REV``; built on first use.

    REV in the paths is `rev` as given when it is already a commit hash prefix
    (``766dec6``), else the resolved commit's short hash (so ``main`` is not cached
    under a name that moves). The venv is made from this interpreter with
    ``--system-site-packages`` and ``pip install`` puts only hvnet in it (its
    dependencies are already there), so both sides run on the same pydantic,
    rich, typer ... and the same start-up (``.pth`` files), and differ only by
    hvnet; the venv's own hvnet comes first on ``sys.path``. Set
    ``CARGO_TARGET_DIR`` to share Rust build output between builds.
    """
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    tag = rev if re.fullmatch(r"[0-9a-f]{7,40}", rev) and commit.startswith(rev) else commit[:10]
    src = OUT / f"src-{tag}"
    venv = OUT / f"venv-{tag}"
    python = venv / "bin" / "python"
    stamp = venv / ".hvnet-built"
    wanted = f"{commit} system-site-packages {sys.executable}\n"
    side = Side(f"before {tag}", str(python))
    if stamp.exists() and stamp.read_text() == wanted:
        return side
    OUT.mkdir(parents=True, exist_ok=True)
    if not src.exists():
        _git("worktree", "add", "--detach", str(src), commit)
    log = OUT / f"build-{tag}.log"
    print(f"building hvnet {tag} into {venv} (log: {log}) ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with log.open("w") as out:
        for cmd in (
            [sys.executable, "-m", "venv", "--clear", "--system-site-packages", str(venv)],
            [str(python), "-m", "pip", "install", "--no-input", str(src)],
        ):
            subprocess.run(cmd, check=True, stdout=out, stderr=subprocess.STDOUT)
    stamp.write_text(wanted)
    print(f"built in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return side


def hvnet_location(side: Side) -> str:
    """Where `side`'s interpreter imports hvnet from (a check that each side runs its own hvnet)."""
    code = "import hvnet, os; print(os.path.dirname(hvnet.__file__))"
    OUT.mkdir(parents=True, exist_ok=True)  # its working directory, on a fresh clone too
    done = subprocess.run(
        [side.python, "-c", code], check=True, capture_output=True, text=True, cwd=OUT, env=child_env()
    )
    return done.stdout.strip()


def child_env() -> dict[str, str]:
    """The environment of every measured process: bytecode cached under ``bench/out/pycache``.

    Both sides then import from cached bytecode, whether hvnet is installed
    from a wheel (the "before" venv, compiled by pip) or editable (a checkout,
    whose ``__pycache__`` may be absent or stale), and the checkout itself is
    not written to. Without this, ``PYTHONDONTWRITEBYTECODE=1`` makes an
    editable side compile all of hvnet on every run (about 40 ms more).
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache")
    return env


def run_json(side: Side, code: str, args: list[str], name: str, cwd: Path) -> dict[str, float]:
    """Runs `code` under `side`'s interpreter with `args` (in ``child_env``, from `cwd`) and reads the JSON
    object its last line prints; a failed child ends the benchmark with its exit code and the end of its
    stderr, named `name`."""
    done = subprocess.run(
        [side.python, "-c", code, *args], capture_output=True, text=True, check=False, env=child_env(), cwd=cwd
    )
    if done.returncode != 0:
        raise SystemExit(f"{side.label}: {name}: exit {done.returncode}\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures
