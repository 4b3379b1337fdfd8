"""A run's worker process: it writes the run's files into its scratch folder, runs the task, and
sends what happened to the server over a pipe.

Messages, as tuples: ``("progress", done, total)`` as simulations finish, then one of
``("answer", Answer)`` or ``("failure", Failure)``. The server kills the process to cancel a run
or end one past its time limit; the process holds nothing else, so nothing is left half done.

Failures are what the CLI prints, as lines: a scenario's problems (``file:line: field: message``,
422), an input file's problem, a run too large for the budget (`hvnet.budget`, 422), the core's
failure (500). Anything else is a bug in hvnet: 500 with its one-line description, the traceback
on the server's standard error.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path, PurePosixPath

from hvnet.budget import ENVIRONMENT
from hvnet.errors import CoreFailure, HvnetError, InputError, ScenarioError
from hvnet.web.files import Workspace
from hvnet.web.tasks import Task, run_task

__all__ = ["PROGRESS_EVERY_S", "Failure", "failure_of", "upload_name", "work"]

#: Progress is sent at most this often (a check of 2,000 cases finishes many a second).
PROGRESS_EVERY_S = 0.2


@dataclass(frozen=True)
class Failure:
    """A run that gave no answer: the HTTP status, what kind of failure, and its lines."""

    status: int
    kind: str
    problems: tuple[str, ...]


def failure_of(error: BaseException) -> Failure:
    """The Failure an exception of a run stands for (the module docstring's list)."""
    if isinstance(error, ScenarioError):
        return Failure(422, "scenario", tuple(str(p) for p in error.problems))
    if isinstance(error, InputError):
        return Failure(422, "input", (str(error),))
    if isinstance(error, CoreFailure):
        return Failure(500, "core", (str(error),))
    if isinstance(error, HvnetError):
        return Failure(422, type(error).__name__, (str(error),))
    if isinstance(error, OSError):
        return Failure(422, "file", (f"{error.filename or ''}: {error.strerror or error}",))
    return Failure(500, "bug", (f"hvnet failed: {type(error).__name__}: {error}; this is a bug in hvnet",))


def upload_name(name: str, taken: set[str]) -> str:
    """A safe file name for an upload: its last part, no leading dots, unique among `taken`."""
    base = PurePosixPath(name.replace("\\", "/")).name.lstrip(".").strip() or "upload"
    base = "".join(c if c.isprintable() else "_" for c in base)[:120]
    candidate, n = base, 1
    while candidate.casefold() in taken:
        n += 1
        stem, dot, suffix = base.rpartition(".")
        candidate = f"{stem}-{n}.{suffix}" if dot and stem else f"{base}-{n}"
    taken.add(candidate.casefold())
    return candidate


def _write_files(task: Task, scratch: Path) -> tuple[Path | None, list[Path]]:
    """Writes the task's scenario and uploads into `scratch` (the working folder); their relative paths."""
    taken: set[str] = set()
    scenario: Path | None = None
    if task.scenario_text is not None:
        name = task.scenario_name or "scenario.yaml"
        target = Workspace(scratch).resolve(name)  # the same checks as a file of the served folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(task.scenario_text, encoding="utf-8")
        scenario = Path(name)
        taken.add(name.casefold())
    uploads = []
    for uploaded, data in task.uploads:
        name = upload_name(uploaded, taken)
        (scratch / name).write_bytes(data)
        uploads.append(Path(name))
    return scenario, uploads


def work(connection: Connection, task: Task, scratch: str, max_memory_bytes: int | None) -> None:
    """The worker's whole life: one task in `scratch`, its outcome sent on `connection`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which ends its workers
    os.chdir(scratch)
    if max_memory_bytes is not None:
        os.environ[ENVIRONMENT] = str(max_memory_bytes)
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY_S or done >= total:
            last = now
            connection.send(("progress", done, total))

    try:
        scenario, uploads = _write_files(task, Path(scratch))
        answer = run_task(task, scenario, uploads, progress)
    except Exception as error:
        failure = failure_of(error)
        if failure.kind == "bug":
            traceback.print_exc(file=sys.stderr)
        connection.send(("failure", failure))
    else:
        connection.send(("answer", answer))
    finally:
        connection.close()
