"""The twin's prediction of the scaled scenario, and what the lab must send to reproduce it.

The scaled scenario (`lab.scaling`) is lowered and run once, as `hvnet.simulate` runs a scenario
(`lower`, `run`, `readback`), and the same run gives both sides of the comparison:

- the **prediction**: `Results`, as `hvnet simulate` would print them for the scaled file;
- the **lab's work**: every TCP connection the run opened, with its bytes, its start, its
  endpoints' hosts and the NICs it used over time (`Pin`: the member hvnet's teaming chose, and
  each move on failover or rebalancing). A traffic entry is one `Transfer` of its `connections`
  streams; a live migration is one `Transfer` of its pre-copy steps in order (pass 1, pass 2, ...,
  the blackout's copy), each step its streams (one for TCP/IP, one per SMB channel, each with
  the bytes the twin gave that channel), started when the step before ended in the lab, after
  the twin's own pause between them.

A migration that the twin started only when another ended (it waited in its host's queue, or
after a node's patch in a rolling update) waits in the lab for that one's last byte, plus the
twin's pause between the two: the lab keeps the queue's order, not the twin's clock.

Refused here, in one line (`LabRefused`): Compression (its CPU work is the point, and the lab
does not emulate it); a connection that the twin moves between hosts (a VM that migrates while
its traffic runs: one TCP connection cannot change namespaces); measured `demand` (nothing in the
lab replays counters). SMB Direct's channels run as TCP (the lab has no RDMA: noted).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from hvnet.errors import Problem, ScenarioError
from hvnet.lab.refusals import LabRefused
from hvnet.lower import lower
from hvnet.lower.fabric import Port
from hvnet.lower.migrations import MigrationRequest
from hvnet.lower.network import ConnectionRequest
from hvnet.model import Scenario
from hvnet.outcomes import ConnectionOutcome, Outcomes, outcomes
from hvnet.readback import readback
from hvnet.results import Results
from hvnet.run import run

__all__ = ["Pin", "Prediction", "Stream", "Transfer", "predict"]

#: Two of the twin's times closer than this are the same moment.
_SAME_S = 1e-9


@dataclass(frozen=True)
class Pin:
    """The NICs a stream uses from `at_s` on: None while its team had no working member."""

    at_s: float
    out_nic: Port | None
    in_nic: Port | None


@dataclass(frozen=True)
class Stream:
    """One TCP connection of the twin's run, which the lab opens for real."""

    #: Its index among the run's connections (the lab's addresses and tables are numbered by it).
    index: int
    source: str
    target: str
    bytes: int
    #: The twin's start and end (None: it never ended).
    start_s: float
    end_s: float | None
    pins: tuple[Pin, ...]
    #: A steady flow's payload rate and stop time; None for a transfer.
    rate_bps: float | None = None
    stop_s: float | None = None


@dataclass(frozen=True)
class Transfer:
    """A traffic entry or a live migration: what the lab times, as steps of streams in order."""

    kind: str  # "traffic" or "migration"
    #: Its index in `Results.traffic` or `Results.migrations`.
    item: int
    name: str
    source: str
    target: str
    steps: tuple[tuple[Stream, ...], ...]
    #: The twin's pause before each step after the first (from the last byte of the one before).
    step_gaps_s: tuple[float, ...] = ()
    #: Transfers (indices in `Prediction.transfers`) whose last byte it waits for, and the pause after.
    after: tuple[int, ...] = ()
    gap_s: float = 0.0

    @property
    def streams(self) -> list[Stream]:
        return [s for step in self.steps for s in step]

    @property
    def start_s(self) -> float:
        return self.steps[0][0].start_s

    @property
    def end_s(self) -> float | None:
        """The twin's last byte: None when a stream never ended."""
        ends = [s.end_s for s in self.streams]
        return None if any(e is None for e in ends) else max(e for e in ends if e is not None)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s in self.streams)


@dataclass(frozen=True)
class Prediction:
    scenario: Scenario
    results: Results
    transfers: tuple[Transfer, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def streams(self) -> list[Stream]:
        return [s for t in self.transfers for s in t.streams]


def _port(name: str | None) -> Port | None:
    return None if name is None else Port.parse(name)


def _stream(k: int, outcome: ConnectionOutcome, source: str, target: str, size: float) -> Stream:
    pins = tuple(Pin(t, _port(a), _port(b)) for t, a, b in outcome.nics)
    hosts = {p.out_nic.node for p in pins if p.out_nic} | {p.in_nic.node for p in pins if p.in_nic}
    if hosts - {source, target}:
        raise LabRefused(
            f"connection {k} ({source} -> {target}) moves to {', '.join(sorted(hosts - {source, target}))} while it "
            "runs (a VM that migrates during its traffic); a TCP connection cannot move between the lab's namespaces"
        )
    start = pins[0].at_s if pins else 0.0
    return Stream(k, source, target, max(1, round(size)), start, outcome.end_s, pins)


def _traffic(
    scenario: Scenario, results: Results, named: Outcomes, owner: tuple[int, ...], requests: Sequence[ConnectionRequest]
) -> list[Transfer]:
    transfers: list[Transfer] = []
    by_entry: dict[int, list[Stream]] = {}
    for k, (entry, request) in enumerate(zip(owner, requests)):
        source = scenario.endpoint_host(request.source).name
        target = scenario.endpoint_host(request.target).name
        stream = _stream(k, named.connections[k], source, target, request.size_bytes)
        if request.rate_bps is not None:
            stream = dataclasses.replace(stream, rate_bps=request.rate_bps, stop_s=request.stop_s)
        by_entry.setdefault(entry, []).append(stream)
    for entry, streams in sorted(by_entry.items()):
        result = results.traffic[entry]
        name = result.name or f"{result.source} -> {result.destination}"
        transfers.append(Transfer("traffic", entry, name, streams[0].source, streams[0].target, (tuple(streams),)))
    return transfers


def _steps(streams: list[Stream]) -> tuple[tuple[tuple[Stream, ...], ...], tuple[float, ...]]:
    """A migration's streams as steps (streams that start together), and the pause before each later step."""
    steps: list[list[Stream]] = []
    for stream in streams:
        if steps and abs(steps[-1][0].start_s - stream.start_s) <= _SAME_S:
            steps[-1].append(stream)
        else:
            steps.append([stream])
    gaps = []
    for before, step in itertools.pairwise(steps):
        ends = [s.end_s for s in before if s.end_s is not None]
        gaps.append(max(0.0, step[0].start_s - max(ends, default=step[0].start_s)))
    return tuple(tuple(s) for s in steps), tuple(gaps)


def _migrations(
    results: Results, named: Outcomes, requests: Sequence[MigrationRequest], first: int
) -> tuple[list[Transfer], list[str]]:
    transfers: list[Transfer] = []
    notes: list[str] = []
    place: dict[int, int] = {}  # migration index -> transfer index
    for i, (migration, outcome, request) in enumerate(zip(results.migrations, named.migrations, requests)):
        if request.compression is not None:
            raise LabRefused(
                f"the migration of {migration.vm} uses Compression, whose (de)compression is CPU work the lab does not "
                "emulate; set live_migration.option to tcp_ip or smb on its hosts for the lab"
            )
        if migration.option == "smb_direct" and not notes:
            notes.append("SMB Direct's channels run as TCP connections: the lab has no RDMA")
        streams = [
            _stream(k, named.connections[k], migration.source, migration.destination, named.connections[k].sent_bytes)
            for k in outcome.connections
            if named.connections[k].nics
        ]
        if not streams:
            notes.append(f"the migration of {migration.vm} never started in the twin; the lab does not run it")
            continue
        steps, gaps = _steps(streams)
        place[i] = first + len(transfers)
        transfers.append(Transfer("migration", i, migration.vm, migration.source, migration.destination, steps, gaps))
    return _queued(results, transfers, place, requests, first), notes


def _queued(
    results: Results, transfers: list[Transfer], place: dict[int, int], requests: Sequence[MigrationRequest], first: int
) -> list[Transfer]:
    """Each migration that the twin started when others ended (its request's `after`, or its host's
    queue: the one that ended as it started, on one of its hosts) waits for their last bytes."""
    out = []
    ms = results.migrations
    for transfer in transfers:
        m = ms[transfer.item]
        waits = {a for a in requests[transfer.item].after if a in place}
        if m.start_s is not None and m.start_s > m.queued_s + _SAME_S:
            hosts = {m.source, m.destination}
            waits |= {
                j
                for j, other in enumerate(ms)
                if j in place
                and j != transfer.item
                and other.end_s is not None
                and abs(other.end_s - m.start_s) <= 1e-6 * max(1.0, m.start_s)
                and hosts & {other.source, other.destination}
            }
        after = tuple(sorted(place[j] for j in waits))
        if not after:
            out.append(transfer)
            continue
        last = max((transfers[a - first].end_s or 0.0) for a in after)
        gap = max(0.0, transfer.start_s - last)
        out.append(dataclasses.replace(transfer, after=after, gap_s=gap))
    return out


def predict(scenario: Scenario) -> Prediction:
    """Runs the scaled scenario once; its results and the lab's transfers (LabRefused: what the lab cannot run)."""
    if scenario.demand:
        raise LabRefused("the scenario replays measured demand; the lab has nothing to replay counters with")
    lowered = lower(scenario)
    if not lowered.runnable:
        unreachable = {lowered.owner[k]: why for k, why in lowered.unreachable}
        problems = [Problem(scenario.source, None, f"traffic[{i}]", why) for i, why in sorted(unreachable.items())]
        raise ScenarioError([*problems, *lowered.refused])
    raw = run(lowered)
    results = readback(raw)
    named = outcomes(raw)
    traffic = _traffic(scenario, results, named, lowered.owner, lowered.requests)
    migrations, notes = _migrations(results, named, lowered.migrations, len(traffic))
    return Prediction(scenario, results, (*traffic, *migrations), tuple(notes))
