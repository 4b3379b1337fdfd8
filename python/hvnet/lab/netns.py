"""Building and removing a lab: `ip` and `tc` batches, a record of each run, and `hvnet lab down`.

Every command is an argument list (`subprocess`, never a shell); a batch of lines goes to one
`ip -n NAMESPACE -batch -` (or `tc`), a few milliseconds each. Before it makes anything, a run
writes its record, `/run/hvnet-lab/<run>.json` (its process id and start time, its namespaces),
so that whatever happens to the process, `hvnet lab down` knows what it made:

- `remove_run` kills the processes left inside the run's namespaces (its agents: nothing else
  runs there) and deletes the namespaces, which deletes every interface, address, route, rule and
  qdisc in them; then the record. Deleting what is already gone is not an error: it is idempotent.
- `lab_down` removes every run whose process has ended (or the one named), found by its record
  and by namespace names (`hvlab-<run>-...`, for a run killed before its record was complete); a
  run whose process is still alive is left alone, and named, unless forced.

Nothing here touches a namespace, interface or qdisc whose name the lab did not make.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hvnet.lab import names
from hvnet.lab.plan import Batch
from hvnet.lab.refusals import LabRefused

__all__ = [
    "STATE",
    "BatchFailed",
    "Removed",
    "apply",
    "lab_down",
    "list_namespaces",
    "remove_run",
    "run_batch",
    "set_sysctls",
    "wait_forwarding",
    "write_record",
]

#: Where each run's record is kept (a tmpfs: records do not outlive a reboot, nor do namespaces).
STATE = Path("/run/hvnet-lab")
_TIMEOUT_S = 30.0


class BatchFailed(LabRefused):
    """An `ip` or `tc` batch failed: the command, the line, and what it said."""


def _command(batch: Batch, force: bool) -> list[str]:
    command = [batch.tool]
    if batch.namespace is not None:
        command += ["-n", batch.namespace]
    if force:
        command.append("-force")
    return [*command, "-batch", "-"]


def run_batch(batch: Batch, force: bool = False) -> str:
    """Runs the batch; its standard error. Without `force`, a failure raises BatchFailed (one line)."""
    if not batch.lines:
        return ""
    command = _command(batch, force)
    done = subprocess.run(
        command, input="\n".join(batch.lines) + "\n", capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
    )
    if done.returncode != 0 and not force:
        said = " ".join(done.stderr.split()) or f"exit code {done.returncode}"
        where = f" in {batch.namespace}" if batch.namespace else ""
        raise BatchFailed(f"the lab could not be built: {batch.tool}{where}: {said}")
    return done.stderr


def set_sysctls(namespace: str, settings: Sequence[str]) -> None:
    """Sets a namespace's sysctls (its own network settings) before its links are up."""
    done = subprocess.run(
        ["ip", "netns", "exec", namespace, "sysctl", "-q", "-w", *settings],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise BatchFailed(f"the lab could not be built: sysctl in {namespace}: {' '.join(done.stderr.split())}")


def apply(batches: Sequence[Batch], sysctls: dict[str, list[str]]) -> None:
    """Builds the lab: the namespaces, their settings, then every other batch, in order."""
    first, *rest = batches
    run_batch(first)
    for namespace, settings in sysctls.items():
        set_sysctls(namespace, settings)
    for batch in rest:
        run_batch(batch)


def wait_forwarding(namespaces: Sequence[str], timeout_s: float = 5.0) -> list[str]:
    """Waits until every bridge port of the namespaces forwards (a port is disabled until the kernel has
    seen its carrier); the ports still not forwarding at the timeout, as `namespace/port`."""
    limit = time.time() + timeout_s
    while True:
        waiting = []
        for namespace in namespaces:
            done = subprocess.run(
                ["bridge", "-n", namespace, "-j", "link", "show"],
                capture_output=True,
                text=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
            ports = json.loads(done.stdout or "[]")
            waiting += [f"{namespace}/{p.get('ifname')}" for p in ports if p.get("state") != "forwarding"]
        if not waiting or time.time() > limit:
            return waiting
        time.sleep(0.02)


def list_namespaces() -> list[str]:
    """The machine's named network namespaces (`ip netns list`)."""
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def _start_ticks(pid: int) -> int | None:
    """When a process started (clock ticks since boot; /proc/PID/stat field 22), None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def write_record(run: str, namespaces: Sequence[str], out: Path | None, pid: int | None = None) -> Path:
    """The run's record, written before anything is made (module doc); `pid`: the process running it (this one)."""
    STATE.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = STATE / f"{run}.json"
    pid = os.getpid() if pid is None else pid
    record = {"run": run, "pid": pid, "start_ticks": _start_ticks(pid), "namespaces": list(namespaces)}
    record["out"] = None if out is None else str(out)
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def _record(run: str) -> dict[str, object] | None:
    try:
        data = json.loads((STATE / f"{run}.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _alive(run: str) -> int | None:
    """The process of a run that is still running it, or None."""
    record = _record(run)
    if record is None:
        return None
    pid, ticks = record.get("pid"), record.get("start_ticks")
    if not isinstance(pid, int) or pid == os.getpid():
        return None
    return pid if ticks is not None and _start_ticks(pid) == ticks else None


def _pids(namespace: str) -> list[int]:
    done = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
    )
    return [int(p) for p in done.stdout.split() if p.isdigit()]


def remove_run(run: str, namespaces: Sequence[str] = ()) -> list[str]:
    """Removes a run (module doc): the namespaces it had, of those given, recorded or named for it."""
    prefix = names.run_prefix(run)
    record = _record(run) or {}
    recorded = record.get("namespaces", [])
    present = [ns for ns in list_namespaces() if ns.startswith(prefix)]
    wanted = [*namespaces, *(recorded if isinstance(recorded, list) else []), *present]
    doomed = [ns for ns in dict.fromkeys(wanted) if isinstance(ns, str) and ns.startswith(prefix)]
    for namespace in doomed:
        for pid in _pids(namespace):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    if doomed:
        run_batch(Batch("ip", None, tuple(f"netns delete {ns}" for ns in doomed)), force=True)
    (STATE / f"{run}.json").unlink(missing_ok=True)
    still = set(list_namespaces())
    return [ns for ns in present if ns not in still]


@dataclass(frozen=True)
class Removed:
    run: str
    namespaces: list[str]


def lab_down(run: str | None = None, force: bool = False) -> tuple[list[Removed], list[tuple[str, int]]]:
    """Removes every lab run that has ended (or `run` only): what was removed, and the live runs left
    alone (run, process id). Idempotent: a second call finds nothing."""
    if run is not None and not names.valid_run_id(run):
        raise LabRefused(f"{run!r} is not a lab run (six hex digits, as hvnet lab run prints, e.g. a1b2c3)")
    recorded = {p.stem for p in STATE.glob("*.json")} if STATE.is_dir() else set()
    found = {r for ns in list_namespaces() if (r := names.run_of(ns)) is not None}
    runs = sorted((recorded | found) if run is None else {run} & (recorded | found))
    removed: list[Removed] = []
    live: list[tuple[str, int]] = []
    for each in runs:
        pid = _alive(each)
        if pid is not None and not force:
            live.append((each, pid))
            continue
        if pid is not None:
            try:
                os.kill(pid, signal.SIGTERM)
                time.sleep(0.5)
            except ProcessLookupError:
                pass
        removed.append(Removed(each, remove_run(each)))
    return removed, live
