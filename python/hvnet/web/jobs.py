"""Runs, each in its own worker process: a bounded queue, progress, cancel and a time limit.

    queue = JobQueue(settings)
    job = queue.submit(Task("simulate", "cluster.yaml", text))   # QueueFull past the queue (429)
    await job.finished()                                         # or poll job.status()
    queue.cancel(job.id)                                         # kills its worker

`Settings.workers` runs at once; `Settings.queue` more may wait for a worker; past that `submit`
refuses (QueueFull: 429 with Retry-After). A run's worker (`worker.work`) is a process of its own,
so a cancel or the time limit (`Settings.time_limit_s`) kills it and nothing else: the server
goes on. A thread per job starts the worker, reads its messages and cleans up its scratch folder.

Processes start from a fork server that has imported hvnet once (``forkserver``, where the
platform has it; ``spawn`` elsewhere): a run starts in milliseconds, not the second an import of
hvnet takes, and no process forks the server's threads.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import shutil
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.context import BaseContext

from hvnet.budget import limit as budget_limit
from hvnet.web.settings import Settings
from hvnet.web.tasks import Answer, Task
from hvnet.web.worker import Failure, work

__all__ = ["KEPT", "Job", "JobQueue", "QueueFull", "context"]

#: Finished jobs kept for their answers; older ones are forgotten.
KEPT = 64
#: How often the job's thread looks at its worker (and at a cancel).
_POLL_S = 0.05


class QueueFull(Exception):
    """Every worker is busy and the queue is full; ask again after `retry_after_s`."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"every worker is busy and {retry_after_s} s is the wait to try again")
        self.retry_after_s = retry_after_s


@cache
def context() -> BaseContext:
    """The multiprocessing context of workers: a fork server that preloads hvnet's tasks, or spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
        return multiprocessing.get_context("spawn")
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(["hvnet.web.worker"])
    return forkserver


def _resolve(future: asyncio.Future[None]) -> None:
    """Wakes a waiter (in its event loop), unless it stopped waiting."""
    if not future.done():
        future.set_result(None)


@dataclass(eq=False)
class Job:
    """One run: its task, its state and, once finished, its answer or its failure."""

    id: str
    task: Task
    state: str = "queued"  # queued, running, done, failed, cancelled
    done: int = 0
    total: int = 0
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    ended: float | None = None
    answer: Answer | None = None
    failure: Failure | None = None
    cancel_requested: threading.Event = field(default_factory=threading.Event)
    _finished: threading.Event = field(default_factory=threading.Event)
    _waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def is_finished(self) -> bool:
        return self._finished.is_set()

    async def finished(self) -> None:
        """Waits, without blocking the event loop, until the job has an answer or a failure."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._finished.is_set():
                return
            self._waiters.append((loop, future))
        await future

    def finish(self, state: str, answer: Answer | None = None, failure: Failure | None = None) -> None:
        """Records the outcome and wakes whoever waits."""
        with self._lock:
            self.state, self.answer, self.failure, self.ended = state, answer, failure, time.monotonic()
            self._finished.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_resolve, future)

    def status(self) -> dict[str, object]:
        """What the pages poll: state, progress, time, and the failure's lines once failed."""
        now = time.monotonic()
        started = self.started
        return {
            "id": self.id,
            "command": self.task.command,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "elapsed_s": round(((self.ended or now) - started) if started is not None else 0.0, 3),
            "notes": list(self.answer.notes) if self.answer else [],
            "has_view": bool(self.answer and self.answer.view),
            "failure": None
            if self.failure is None
            else {"status": self.failure.status, "kind": self.failure.kind, "problems": list(self.failure.problems)},
        }


class JobQueue:
    """The runs of one server (the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._slots = threading.BoundedSemaphore(settings.workers)
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._closed = False
        total = budget_limit(settings.max_memory_bytes)
        #: Each worker's run budget: the server's, shared out (every worker may run at once).
        self.memory_per_worker = max(1, total // settings.workers)

    def submit(self, task: Task) -> Job:
        """Queues `task`; QueueFull when every worker is busy and `Settings.queue` runs wait already."""
        with self._lock:
            if self._closed:
                raise QueueFull(5)
            waiting = sum(1 for j in self._jobs.values() if j.state == "queued")
            running = sum(1 for j in self._jobs.values() if j.state == "running")
            if running + waiting >= self.settings.workers + self.settings.queue:
                raise QueueFull(self._retry_after())
            job = Job(uuid.uuid4().hex, task)
            self._jobs[job.id] = job
            self._forget_old()
        threading.Thread(target=self._run, args=(job,), name=f"hvnet-job-{job.id[:8]}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Asks the job to stop: a waiting one never starts, a running one's worker is killed."""
        job = self.get(job_id)
        if job is not None:
            job.cancel_requested.set()
        return job

    def close(self) -> None:
        """Cancels every job (the server is stopping) and waits a moment for their workers to end."""
        with self._lock:
            self._closed = True
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel_requested.set()
        deadline = time.monotonic() + 5
        for job in jobs:
            job._finished.wait(max(0.0, deadline - time.monotonic()))

    def _retry_after(self) -> int:
        """Seconds to wait before asking again: 10, some runs' worth (a run takes 0.1 s to a minute)."""
        return 10

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.is_finished]
        for job in finished[: max(0, len(finished) - KEPT)]:
            del self._jobs[job.id]

    def _run(self, job: Job) -> None:
        """The job's thread: waits for a worker slot, runs the worker, records the outcome."""
        while not self._slots.acquire(timeout=_POLL_S):
            if job.cancel_requested.is_set():
                job.finish("cancelled")
                return
        try:
            if job.cancel_requested.is_set():
                job.finish("cancelled")
                return
            job.state, job.started = "running", time.monotonic()
            self._watch(job)
        except Exception as error:  # pragma: no cover - a worker that cannot start (no memory, no processes)
            job.finish("failed", failure=Failure(500, "server", (f"the run could not start: {error}",)))
        finally:
            self._slots.release()

    def _watch(self, job: Job) -> None:
        """Starts the worker and follows it until it answers, fails, is cancelled or runs out of time."""
        ctx = context()
        try:  # uploads stay under the served folder (docs/web.md), in a hidden folder the app never lists
            scratch = tempfile.mkdtemp(prefix=".hvnet-run-", dir=self.settings.root)
        except OSError as error:
            why = f"{self.settings.root}: cannot keep a run's files there ({error.strerror}); serve a writable folder"
            job.finish("failed", failure=Failure(500, "server", (why,)))
            return
        receiver, sender = ctx.Pipe(duplex=False)
        process = ctx.Process(  # type: ignore[attr-defined]
            target=work, args=(sender, job.task, scratch, self.memory_per_worker), daemon=True
        )
        deadline = time.monotonic() + self.settings.time_limit_s
        try:
            try:
                process.start()
            except Exception as error:  # the fork server could not start it (it failed to import hvnet)
                why = f"the run's worker process could not start ({type(error).__name__}: {error})"
                job.finish("failed", failure=Failure(500, "worker", (why,)))
                return
            finally:
                sender.close()
            while True:
                if job.cancel_requested.is_set():
                    job.finish("cancelled")
                    return
                if time.monotonic() > deadline:
                    limit = f"{self.settings.time_limit_s:g} s"
                    why = f"the run took longer than {limit}, the time limit of each run (hvnet serve --time-limit)"
                    job.finish("failed", failure=Failure(504, "time limit", (why,)))
                    return
                if not receiver.poll(_POLL_S):
                    continue
                try:
                    message = receiver.recv()
                except EOFError:
                    process.join(1)
                    why = f"the run's worker process ended without an answer (exit code {process.exitcode})"
                    job.finish("failed", failure=Failure(500, "worker", (why,)))
                    return
                if message[0] == "progress":
                    job.done, job.total = message[1], message[2]
                elif message[0] == "answer":
                    job.finish("done", answer=message[1])
                    return
                else:
                    job.finish("failed", failure=message[1])
                    return
        finally:
            if process.pid is not None:
                if process.is_alive():
                    process.kill()
                process.join(5)
            receiver.close()
            shutil.rmtree(scratch, ignore_errors=True)
