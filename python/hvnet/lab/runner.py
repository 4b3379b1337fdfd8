"""One lab run: build the emulated cluster, start the agents, keep the timeline, collect, always tear down.

    record ─► namespaces, sysctls, bridges, veths, tbf (lab.plan) ─► addresses, rules, pins (lab.timeline)
           ─► an agent per host (lab.agent): "ready" ─► "start T0" ─► failures and moves at T0 + t
           ─► every agent "done" ─► "stop" ─► their results and logs ─► tear down (lab.netns)

Before the agents start, every bridge port must forward (`netns.wait_forwarding`). Teardown runs
whatever happens after the record is written: the run's end, an error, Ctrl-C, or SIGTERM/SIGHUP
(turned into an exception while the run is on, so that `finally` runs, and held while it tears
down, so that a second one does not cut it short); with
`keep` the namespaces stay for inspection (`ip netns exec hvlab-<run>-h0 ...`) until `hvnet lab
down`. A process killed outright (SIGKILL) leaves them: `hvnet lab down` removes them, since the
record names a process that has ended. Agents run in sessions of their own, so a terminal's Ctrl-C
reaches this process only; each agent also stops at its deadline and when its input closes.

Timing: T0 is set a little after every agent is ready; each agent keeps its own clock from it
(`time.time()`, one machine). Actions are applied by this process at T0 + t, within about ten
milliseconds (one `ip -batch` per namespace). The deadline is twice the predicted run and five
seconds; a transfer not done by then is reported as never ended.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

from hvnet.lab import names, netns
from hvnet.lab.plan import SWITCH_BUFFER_S, Batch, plan_topology, setup_batches, sysctl_settings
from hvnet.lab.prediction import Prediction
from hvnet.lab.refusals import LabRefused, check_machine
from hvnet.lab.timeline import Action, Timeline, agent_jobs, plan_timeline
from hvnet.words import counted

__all__ = ["AppliedAction", "Interrupted", "LabRun", "run_lab"]

_START_DELAY_S = 0.3
_READY_TIMEOUT_S = 20.0
_TAIL_S = 0.3
_SAMPLE_S = 0.1
#: The agent runs by its path: standard library only, it imports nothing of hvnet.
AGENT = Path(__file__).with_name("agent.py")


class Interrupted(Exception):
    """SIGTERM or SIGHUP while the lab ran (Ctrl-C is KeyboardInterrupt): the lab was torn down."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True)
class AppliedAction:
    at_s: float
    applied_s: float
    what: str
    errors: str


@dataclass
class LabRun:
    """What a run made and measured, before it is compared (`lab.measure`)."""

    run: str
    out: Path
    namespaces: list[str]
    #: Per host: the agent's results (`lab.agent`) and its log.
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)
    actions: list[AppliedAction] = field(default_factory=list)
    #: Whether the kernel has bonding (None: the scenario has no team, not probed).
    bonding: bool | None = None
    #: The machine's busy share of its CPUs over the run (0 to 1), and how many it has.
    cpu_busy: float | None = None
    cpus: int = 1
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    kept: bool = False


def _cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the machine, from /proc/stat's first line."""
    values = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)
    return sum(values) - idle, sum(values)


@contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Interrupted in the main thread while the lab runs."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, previous in saved.items():
            signal.signal(s, previous)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Teardown is not cut short: Ctrl-C, SIGTERM and SIGHUP wait until it is done (then act as they would)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class _Agents:
    """The agents' processes and their lines, read by one thread each into one queue."""

    def __init__(self) -> None:
        self.processes: dict[str, subprocess.Popen[str]] = {}
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.errors: dict[str, IO[str]] = {}

    def start(self, host: str, namespace: str, job: Path, stderr: Path) -> None:
        command = ["ip", "netns", "exec", namespace, sys.executable, "-u", str(AGENT), str(job)]
        self.errors[host] = stderr.open("w")
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors[host],
            text=True,
            start_new_session=True,
        )
        self.processes[host] = process
        threading.Thread(target=self._read, args=(host, process), daemon=True).start()

    def _read(self, host: str, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.put((host, line.strip()))
        self.lines.put((host, "exit"))

    def tell(self, host: str, line: str) -> None:
        process = self.processes[host]
        if process.stdin is not None and process.poll() is None:
            try:
                process.stdin.write(line + "\n")
                process.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def broadcast(self, line: str, but: str | None = None) -> None:
        for host in self.processes:
            if host != but:
                self.tell(host, line)

    def wait(self, timeout: float) -> None:
        limit = time.time() + timeout
        for process in self.processes.values():
            try:
                process.wait(max(0.1, limit - time.time()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with suppress(BrokenPipeError):
                        stream.close()
        for handle in self.errors.values():
            handle.close()


def _ready(agents: _Agents, out: Path) -> None:
    waiting = set(agents.processes)
    limit = time.time() + _READY_TIMEOUT_S
    while waiting:
        try:
            host, line = agents.lines.get(timeout=max(0.01, limit - time.time()))
        except queue.Empty:
            raise LabRefused(
                f"the lab's agents did not start in {_READY_TIMEOUT_S:g} s: {', '.join(sorted(waiting))}"
            ) from None
        if line == "ready":
            waiting.discard(host)
        elif line == "exit":
            said = (out / "agents" / f"{host}.stderr").read_text().strip().splitlines()
            raise LabRefused(
                f"the lab's agent for {host} ended before it was ready: {said[-1] if said else 'no message'}"
            )


def _apply(action: Action, t0: float) -> AppliedAction:
    errors = [
        netns.run_batch(Batch("ip", namespace, lines), force=True).strip() for namespace, lines in action.lines.items()
    ]
    return AppliedAction(action.at_s, time.time() - t0, action.what, " ".join(e for e in errors if e))


def _drive(agents: _Agents, timeline: Timeline, t0: float, deadline: float, lab: LabRun) -> None:
    """Applies the actions at their times and relays ends, until every agent is done or the deadline."""
    pending = sorted(timeline.actions, key=lambda a: a.at_s)
    done: set[str] = set()
    while len(done) < len(agents.processes) and time.time() < t0 + deadline:
        while pending and time.time() >= t0 + pending[0].at_s:
            lab.actions.append(_apply(pending.pop(0), t0))
        wait = 0.01 if not pending else min(0.01, max(0.0, t0 + pending[0].at_s - time.time()))
        try:
            host, line = agents.lines.get(timeout=wait)
        except queue.Empty:
            continue
        words = line.split()
        if words[:1] == ["ended"]:
            agents.broadcast(line, but=host)
        elif words[:1] in (["done"], ["exit"]):
            done.add(host)
    for action in pending:  # past the deadline or after the last transfer: the timeline still runs out
        if action.at_s <= time.time() - t0:
            lab.actions.append(_apply(action, t0))


def _probe_bonding(namespace: str) -> bool:
    """Whether this kernel makes a bond (tried in one of the run's namespaces, then removed)."""
    made = netns.run_batch(Batch("ip", namespace, ("link add hvbond0 type bond",)), force=True)
    if made.strip():
        return False
    netns.run_batch(Batch("ip", namespace, ("link delete hvbond0",)), force=True)
    return True


def _write_jobs(jobs: dict[str, dict[str, Any]], out: Path, deadline: float) -> dict[str, Path]:
    (out / "agents").mkdir(parents=True, exist_ok=True)
    paths = {}
    for host, job in jobs.items():
        job |= {"port": names.PORT, "sample_s": _SAMPLE_S, "deadline_s": deadline + 1.0}
        job |= {"log": str(out / f"{host}.netdev.log"), "result": str(out / "agents" / f"{host}.result.json")}
        paths[host] = out / "agents" / f"{host}.job.json"
        paths[host].write_text(json.dumps(job, indent=1) + "\n")
    return paths


def run_lab(
    prediction: Prediction,
    out: Path,
    keep: bool = False,
    say: Callable[[str], None] = lambda _: None,
    buffer_s: float = SWITCH_BUFFER_S,
) -> LabRun:
    """Builds the lab for the (scaled) scenario, runs its traffic as the prediction says, measures, and tears
    it down (module doc). LabRefused where it cannot be built."""
    check_machine()
    taken = {r for ns in netns.list_namespaces() if (r := names.run_of(ns))}
    run = names.new_run_id(taken | ({p.stem for p in netns.STATE.glob("*.json")} if netns.STATE.is_dir() else set()))
    scenario = prediction.scenario
    topology = plan_topology(scenario, run, buffer_s)
    timeline = plan_timeline(topology, prediction)
    jobs = agent_jobs(topology, prediction)
    deadline = 2 * prediction.results.end_s + 5.0
    lab = LabRun(run, out, topology.namespaces, cpus=os.cpu_count() or 1, notes=list(timeline.notes))
    out.mkdir(parents=True, exist_ok=True)
    agents = _Agents()
    netns.write_record(run, topology.namespaces, out)
    try:
        with _signals_raise():
            mtus = {topology.hosts[h.name]: max(n.mtu for n in h.nics) for h in scenario.hosts}
            sysctls = {ns: sysctl_settings(mtus.get(ns)) for ns in topology.namespaces}
            netns.apply(setup_batches(topology), sysctls)
            for namespace, lines in timeline.setup.items():
                netns.run_batch(Batch("ip", namespace, tuple(lines)))
            late = netns.wait_forwarding(list(topology.switches.values()))
            if late:
                raise LabRefused(f"the lab's switch ports did not come up in 5 s: {', '.join(late)}")
            if any(h.teams for h in scenario.hosts):
                lab.bonding = _probe_bonding(next(iter(topology.hosts.values())))
            switches = counted(len(topology.switches), "switch", "switches")
            made = f"{counted(len(topology.hosts), 'host')}, {switches}, {counted(len(topology.links), 'cable')}"
            say(f"lab {run}: {made}")
            for host, path in _write_jobs(jobs, out, deadline).items():
                agents.start(host, topology.hosts[host], path, out / "agents" / f"{host}.stderr")
            _ready(agents, out)
            t0 = time.time() + _START_DELAY_S
            busy, total = _cpu_times()
            agents.broadcast(f"start {t0:.6f}")
            say(f"lab {run}: running; the twin predicts {prediction.results.end_s:.2f} s")
            _drive(agents, timeline, t0, deadline, lab)
            time.sleep(_TAIL_S)
            agents.broadcast("stop")
            agents.wait(15.0)
            lab.seconds = time.time() - t0
            busy2, total2 = _cpu_times()
            lab.cpu_busy = (busy2 - busy) / (total2 - total) if total2 > total else None
            for host, job in jobs.items():
                path = Path(job["result"])
                if path.is_file():
                    lab.results[host] = json.loads(path.read_text())
                    lab.logs[host] = Path(job["log"])
                    continue
                said = (out / "agents" / f"{host}.stderr").read_text().strip().splitlines()
                lab.notes.append(
                    f"the agent for {host} ended without its results: {said[-1] if said else 'no message'}"
                )
    finally:
        with _signals_held():
            agents.close()
            if keep:
                lab.kept = True
            else:
                netns.remove_run(run, topology.namespaces)
    return lab
