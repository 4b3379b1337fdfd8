#!/usr/bin/env python3
"""Input fuzzer of hvnet (issue 15, "Every bad input gets one clear line").

Starting from the valid scenarios in python/hvnet/examples/, hypothesis's
strategies draw mutations of three kinds:

- structure: drop, duplicate, rename or retype a field; put an extreme or
  boundary number (0, -1, 1e308, nan, inf, 2**64, 1e-320), a quantity with one
  ("1e308Gbps", "nanGiB", "-1s"), awkward unicode (right-to-left, zero-width,
  emoji, NUL) or a list/mapping where a value goes; share an entry (an alias);
- YAML: flow or block style, anchors and aliases, merge keys, tags, several
  documents, directives, deep nesting, alias bombs, unknown aliases;
- bytes: bit flips, truncations, inserted or deleted bytes, a BOM, CR line ends,
  UTF-16.

Each case runs `hvnet simulate case.yaml --json out.json` (load, simulate,
JSON) in a child process with a time limit and a memory limit (RLIMIT_AS), and
is sorted into a class:

    result     exit 0, and what was loaded is within the documented bounds
    refusal    exit 2, every line of standard error is `file[:line]: message`
    unclear    exit 2, but a line of standard error is not of that form
    crash      a traceback, a caught Rust panic, an abort or a signal, another exit code
    hang       past the time limit
    oom        out of memory (MemoryError, a failed allocation, or killed at the limit)
    nonsense   exit 0, but the scenario holds a value outside a documented bound
               (a link outside 1 Mbps..1.6 Tbps, a time past 8760 h, a clock that is
               not finite...) or the JSON holds NaN or infinity

Counts per class are printed; each case that is not `result` or `refusal` is
written to bench/out/fuzz/<class>/NNN.yaml (the input, byte for byte: run
`hvnet simulate` on it to reproduce) with NNN.out.txt beside it (exit, standard
error, the mutations that made it).

By default the child is forked from this process, which has hvnet imported
(some 20 ms a case instead of 0.4 s); `--exec` runs `python -m hvnet` instead.

Other targets (`--target`): `flows` (a traffic matrix for `hvnet flows`),
`ntttcp` (`hvnet ntttcp` arguments, through hvnet.ntttcp.run_ntttcp), `variants`
(a `variants:` block, through hvnet.variants.load_variants), `measurement`
(the importers' samples, through hvnet.importers.read_measurement) and `config`
(collect.ps1 dumps, through hvnet.importers.config.import_config); the last four
call the function in the child as the command would (`entry`).

This file runs the cases and is the command line; what it runs is in the
package bench/fuzzing/ (values, mutations, cases, entries, outcomes: its
__init__ says what each module holds).

    python3 bench/fuzz.py --cases 2000 --seed 1 --jobs 2
    python3 bench/fuzz.py --target flows --cases 500
    python3 bench/fuzz.py --target measurement --cases 300
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from fuzzing.cases import DESIGN_SCENARIO, FLOWS_SCENARIO, ROOT, TARGETS, Case, case_file, generate
from fuzzing.entries import entry
from fuzzing.outcomes import CLASSES, FAILURES, Outcome, classify

OUT = ROOT / "bench" / "out" / "fuzz"

# --- running a case -----------------------------------------------------------------------------------------


def command(target: str, workdir: Path) -> list[str]:
    """The CLI's arguments for the case, or `["--entry", target]` for a Python entry point."""
    if target == "flows":
        shutil.copy(FLOWS_SCENARIO, workdir / "scenario.yaml")
        return ["flows", "scenario.yaml", "case.csv", "--json", "out.json"]
    if target == "scenario":
        return ["simulate", "case.yaml", "--json", "out.json"]
    if target == "ntttcp":
        shutil.copy(FLOWS_SCENARIO, workdir / "scenario.yaml")
    if target in ("prices", "candidates"):
        shutil.copy(DESIGN_SCENARIO, workdir / "scenario.yaml")
    return ["--entry", target]


def _own_kb(field: str) -> int:
    """This process's `VmSize` or `VmRSS` in KiB (/proc/self/status): what a forked child starts with."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def _limit(memory: int, seconds: float) -> None:
    """The case's limits: `memory` bytes of address space beyond what the process has when it starts the case
    (a forked child inherits the fuzzer's, all the drawn cases included), and `seconds` of CPU."""
    memory += _own_kb("VmSize") * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(seconds) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def _child(args: list[str], workdir: Path, memory: int, seconds: float) -> None:
    """In a forked child: run the CLI on the case with standard output and error to files; never returns."""
    code = 1
    try:
        os.chdir(workdir)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(handle, fd)
            os.close(handle)
        _limit(memory, seconds)
        from hvnet.cli import app

        try:
            if args[0] == "--entry":
                code = entry(args[1])
            else:
                app(args, prog_name="hvnet")
                code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        except BaseException:  # what `python -m hvnet` would print
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


class Runner:
    """Starts cases in children, up to `jobs` at a time, and reaps them within their time limit."""

    def __init__(self, target: str, seconds: float, memory: int, jobs: int, execute: bool, root: Path) -> None:
        self.target, self.seconds, self.memory, self.jobs, self.execute = target, seconds, memory, jobs, execute
        self.root = root
        self.inherited_kb = 0

    def start(self, case: Case) -> tuple[int, int, float, Path, subprocess.Popen[bytes] | None]:
        workdir = self.root / f"{case.number:05d}"
        workdir.mkdir()
        (workdir / case_file(self.target, case.origin)).write_bytes(case.raw)
        args = command(self.target, workdir)
        env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
        if self.execute:
            program = (
                [str(Path(__file__).resolve()), "--entry", args[1]] if args[0] == "--entry" else ["-m", "hvnet", *args]
            )
            with open(workdir / "stdout", "wb") as out, open(workdir / "stderr", "wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, *program],
                    cwd=workdir,
                    stdout=out,
                    stderr=err,
                    env=env,
                    # the limits must be set in the child before it runs; the fuzzer starts no threads (it forks too)
                    preexec_fn=lambda: _limit(self.memory, self.seconds),  # noqa: PLW1509
                )
            return proc.pid, os.pidfd_open(proc.pid), time.monotonic(), workdir, proc
        sys.stdout.flush()
        sys.stderr.flush()
        self.inherited_kb = _own_kb("VmRSS")  # the child's resident memory from the start: not the case's
        pid = os.fork()
        if pid == 0:
            _child(args, workdir, self.memory, self.seconds)
        return pid, os.pidfd_open(pid), time.monotonic(), workdir, None

    def run(self, cases: list[Case], done: Callable[[Outcome, Path], None]) -> None:
        pending = list(reversed(cases))
        running: dict[int, tuple[Case, int, float, Path, subprocess.Popen[bytes] | None]] = {}
        while pending or running:
            while pending and len(running) < self.jobs:
                case = pending.pop()
                pid, fd, began, workdir, proc = self.start(case)
                running[fd] = (case, pid, began, workdir, proc)
            now = time.monotonic()
            wait = max(0.0, min(began + self.seconds for (_, _, began, _, _) in running.values()) - now)
            ready, _, _ = select.select(list(running), [], [], wait)
            now = time.monotonic()
            for fd in list(running):
                case, pid, began, workdir, proc = running[fd]
                late = now - began >= self.seconds
                if fd not in ready and not late:
                    continue
                if fd not in ready:
                    os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                os.close(fd)
                del running[fd]
                own_kb = max(0, usage.ru_maxrss - (0 if proc is not None else self.inherited_kb))
                outcome = Outcome(case, timed_out=fd not in ready, seconds=now - began, max_rss_kb=own_kb)
                if os.WIFSIGNALED(status):
                    outcome.signal = os.WTERMSIG(status)
                else:
                    outcome.exit = os.WEXITSTATUS(status)
                outcome.stdout = (workdir / "stdout").read_text(errors="replace")
                outcome.stderr = (workdir / "stderr").read_text(errors="replace")
                done(outcome, workdir)


# --- the report and the command ---------------------------------------------------------------------------


def save(outcome: Outcome, out: Path, target: str, number: int) -> Path:
    folder = out / outcome.kind
    folder.mkdir(parents=True, exist_ok=True)
    suffix = Path(case_file(target, outcome.case.origin)).suffix
    case = folder / f"{number:03d}{suffix}"
    case.write_bytes(outcome.case.raw)
    how = {
        "flows": "hvnet flows " + str(FLOWS_SCENARIO.relative_to(ROOT)) + f" {case.name}",
        "scenario": f"hvnet simulate {case.name} --json -",
        "ntttcp": f"hvnet ntttcp {FLOWS_SCENARIO.relative_to(ROOT)} with the arguments in {case.name}",
        "variants": f"hvnet compare {case.name} (hvnet.variants.load_variants)",
        "measurement": f"hvnet import measurement {case.name} (hvnet.importers.read_measurement)",
        "config": f"hvnet import config {case.name} (hvnet.importers.config.import_config)",
        "prices": f"hvnet cost {DESIGN_SCENARIO.relative_to(ROOT)} --prices {case.name}",
        "candidates": (
            f"hvnet design {DESIGN_SCENARIO.relative_to(ROOT)} --candidates {case.name}"
            " (load and build each, no simulation)"
        ),
    }[target]
    report = [
        f"class: {outcome.kind}",
        f"why: {outcome.why}",
        f"reproduce: {how}",
        f"case: {outcome.case.number} from {outcome.case.origin}",
        "mutations:",
        *(f"  - {m}" for m in outcome.case.mutations),
        (
            f"exit: {outcome.exit}  signal: {outcome.signal}  seconds: {outcome.seconds:.2f}"
            f"  max RSS: {outcome.max_rss_kb} KiB"
        ),
        "--- standard error",
        outcome.stderr[-20_000:],
        "--- standard output (end)",
        outcome.stdout[-2_000:],
    ]
    (folder / f"{number:03d}.out.txt").write_text("\n".join(report))
    return case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", choices=list(TARGETS), default="scenario")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case may take (default 20)")
    parser.add_argument("--memory", type=float, default=2.0, help="GiB of address space a case may use (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    parser.add_argument(
        "--exec", dest="execute", action="store_true", help="run `python -m hvnet` per case, not a fork"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where failing cases go (default bench/out/fuzz)")
    parser.add_argument("--json", type=Path, help="write the counts and times as JSON here")
    parser.add_argument(
        "--entry", choices=list(TARGETS), help=argparse.SUPPRESS
    )  # one case, in this directory (--exec)
    args = parser.parse_args(argv)
    if args.entry:
        return entry(args.entry)
    memory = int(args.memory * 2**30)

    began = time.monotonic()
    cases = generate(args.target, args.cases, args.seed)
    generated = time.monotonic() - began
    # what the children use, imported once here so that each fork starts warm
    import ruamel.yaml  # noqa: F401

    import hvnet.cli
    import hvnet.flows
    import hvnet.importers
    import hvnet.importers.config
    import hvnet.ntttcp
    import hvnet.report
    import hvnet.variants  # noqa: F401

    if args.out.exists():
        for kind in CLASSES:
            shutil.rmtree(args.out / kind, ignore_errors=True)
    counts: Counter[str] = Counter()
    saved: dict[str, int] = Counter()
    slowest = [0.0]

    def done(outcome: Outcome, workdir: Path) -> None:
        classify(outcome, workdir, args.target, memory)
        counts[outcome.kind] += 1
        slowest[0] = max(slowest[0], outcome.seconds)
        if outcome.kind in FAILURES:
            path = save(outcome, args.out, args.target, saved[outcome.kind])
            saved[outcome.kind] += 1
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"{outcome.kind:8} {shown}: {outcome.why[:150]}", flush=True)
        shutil.rmtree(workdir, ignore_errors=True)
        total = sum(counts.values())
        if total % 250 == 0:
            print(f"... {total} cases, {time.monotonic() - began:.0f} s", flush=True)

    with tempfile.TemporaryDirectory(prefix="hvnet-fuzz-") as scratch:
        Runner(args.target, args.timeout, memory, args.jobs, args.execute, Path(scratch)).run(cases, done)
    elapsed = time.monotonic() - began
    print(
        f"\n{args.target}: {len(cases)} cases, seed {args.seed}, {elapsed:.0f} s ({generated:.1f} s drawing them),"
        f" slowest case {slowest[0]:.1f} s"
    )
    for kind in CLASSES:
        print(f"  {kind:9} {counts[kind]:6}")
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "target": args.target,
                    "cases": len(cases),
                    "seed": args.seed,
                    "seconds": round(elapsed, 1),
                    "counts": {k: counts[k] for k in CLASSES},
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if any(counts[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
