"""What each failure of a run did, read back from the core's report.

For every failure event (`nic_down`, `cable_down`, `switch_down`,
`port_blackhole`) with its repair, if any (`lower.changes.failure_pairs`):

- how routing handled each switch-to-switch link it took down: when it was
  seen, routed around and carried traffic again (`lower.routing.Outage`);
- the traffic entries and migrations it hit: the connections it
  black-holed and for how long, those it moved to another NIC or route,
  and whether it cut them for good.

A stretch during which a connection was black-holed is the doing of the
failures in force when it began (the latest of them: several failures at
one instant share it). A move is a failure's when it happened at one of
that failure's moments: the failure, its repair, routing's reroute and
restore of its links, or an LACP team's timeout after it. What a failure
cost (the same run without it) is `hvnet.failure_costs`'.

And one warning per traffic entry or migration that never completed: from
when, what cut it (the events still holding its path down, or routing left
with no route), and that no path is left for it. Nothing is "never"
without one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from hvnet.lower.changes import down_at, failure_pairs
from hvnet.lower.fabric import Port
from hvnet.lower.network import NetworkModel
from hvnet.lower.routing import Outage
from hvnet.model import Scenario
from hvnet.results import FailureResult, FlowHit, MigrationResult, RoutingChange
from hvnet.units import human_duration

if TYPE_CHECKING:
    from hvnet.outcomes import ConnectionOutcome, Outcomes

__all__ = ["failure_results", "never_warnings"]

#: Two times this close are one moment.
_SAME_S = 1e-9


@dataclass(frozen=True, slots=True)
class _Work:
    """A traffic entry or a migration, with its connections."""

    kind: str
    index: int
    name: str
    #: Its two ends, as a warning names them ("hv1 → hv2").
    route: str
    #: Whether a traffic entry has a name of its own.
    named: bool
    connections: list[int]
    end_s: float | None

    @property
    def label(self) -> str:
        """How a warning names it."""
        if self.kind == "migration":
            return f"the live migration of {self.name} ({self.route})"
        return f"traffic {self.name} ({self.route})" if self.named else f"traffic {self.route}"


@dataclass(frozen=True)
class _Failure:
    event: int
    at_s: float
    action: str
    target: str
    repaired_s: float | None
    outages: list[Outage]

    @property
    def label(self) -> str:
        return f"{self.action} {self.target}"

    def in_force(self, t: float) -> bool:
        return self.at_s <= t + _SAME_S and (self.repaired_s is None or self.repaired_s > t + _SAME_S)


def _work(
    scenario: Scenario,
    run: Outcomes,
    owner: Sequence[int],
    migrations: Sequence[MigrationResult],
    unfinished: bool = False,
    touching: set[int] | None = None,
) -> list[_Work]:
    """Each traffic entry and migration with its connections (`unfinished`: only those that never ended;
    `touching`: only those with one of these connections)."""
    per_traffic: list[list[int]] = [[] for _ in scenario.traffic]
    for k, entry in enumerate(owner):
        per_traffic[entry].append(k)
    work = []
    for index, (traffic, connections) in enumerate(zip(scenario.traffic, per_traffic)):
        ends = [run.connections[k].end_s for k in connections]
        end = None if any(e is None for e in ends) else max((e for e in ends if e is not None), default=traffic.start)
        if (unfinished and end is not None) or (touching is not None and touching.isdisjoint(connections)):
            continue
        route = f"{traffic.src} → {traffic.dst}"
        work.append(_Work("traffic", index, traffic.name or route, route, bool(traffic.name), connections, end))
    for index, (migration, outcome) in enumerate(zip(migrations, run.migrations)):
        if unfinished and migration.end_s is not None:
            continue
        connections = outcome.connections
        if touching is not None and touching.isdisjoint(connections):
            continue
        route = f"{migration.source} → {migration.destination}"
        work.append(_Work("migration", index, migration.vm, route, False, connections, migration.end_s))
    return work


def _failures(scenario: Scenario, model: NetworkModel) -> list[_Failure]:
    failures = []
    for index, repair in failure_pairs(scenario, model.fabric):
        event = scenario.events[index]
        assert event.target is not None
        label = f"{event.action.value} {event.target}"
        outages = [
            o for o in model.routing.outages if label in o.causes and o.failed_s <= event.at < o.repaired_s + _SAME_S
        ]
        failures.append(
            _Failure(
                event=index,
                at_s=event.at,
                action=str(event.action.value),
                target=event.target,
                repaired_s=None if repair is None else scenario.events[repair].at,
                outages=outages,
            )
        )
    return failures


def _responsible(failures: Sequence[_Failure], t: float) -> list[_Failure]:
    """The failures in force at `t` that came last (those a stretch beginning at `t` is due to)."""
    current = [f for f in failures if f.in_force(t)]
    if not current:
        return []
    latest = max(f.at_s for f in current)
    return [f for f in current if f.at_s >= latest - _SAME_S]


def _moments(failure: _Failure, lacp_timeouts_s: Sequence[float]) -> list[float]:
    """When a failure may move a connection: at it, an LACP team's timeout after it, its repair, and
    when routing routed around its links and took them back."""
    moments = [failure.at_s, *(failure.at_s + t for t in lacp_timeouts_s)]
    if failure.repaired_s is not None:
        moments.append(failure.repaired_s)
    for o in failure.outages:
        moments += [t for t in (o.rerouted_s, o.restored_s) if math.isfinite(t)]
    return moments


class _Facts(NamedTuple):
    """What a connection did that a failure may have caused (`failure_results`)."""

    blackholes: list[tuple[float, float]]
    moves: list[float]
    #: Since when its path was down for good, when it never ended; None otherwise.
    stalled_since_s: float | None


def _moves(outcome: ConnectionOutcome) -> list[float]:
    """When it moved: to another NIC or team member, or to another route."""
    return [*outcome.moved_s, *outcome.rerouted_s]


def _hit(
    failure: _Failure, failures: Sequence[_Failure], at: Sequence[float], work: _Work, facts: dict[int, _Facts]
) -> FlowHit | None:
    """What `failure` (its moments `at`) did to `work`'s connections; None: nothing."""
    blackholed: dict[int, float] = {}
    moved = 0
    never = False
    for k in work.connections:
        fact = facts.get(k)
        if fact is None:
            continue
        for start, end in fact.blackholes:
            if failure in _responsible(failures, start):
                blackholed[k] = max(blackholed.get(k, 0.0), end - start)
        if any(abs(m - t) <= _SAME_S for m in fact.moves for t in at):
            moved += 1
        since = fact.stalled_since_s
        if since is not None and failure in _responsible(failures, since):
            never = True
    if not (blackholed or moved or never):
        return None
    return FlowHit(
        kind=work.kind,
        index=work.index,
        name=work.name,
        connections=len(work.connections),
        blackholed_connections=len(blackholed),
        moved_connections=moved,
        blackholed_s=max(blackholed.values(), default=0.0),
        never=never,
        end_s=work.end_s,
    )


def _time(t: float | None) -> float | None:
    return None if t is None or not math.isfinite(t) else t


def failure_results(
    scenario: Scenario,
    model: NetworkModel,
    run: Outcomes,
    owner: Sequence[int],
    migrations: Sequence[MigrationResult],
) -> list[FailureResult]:
    """Each failure of the scenario's events: its repair, routing, and what it hit (not what it cost)."""
    failures = _failures(scenario, model)
    if not failures:
        return []
    teaming = model.calibration.teaming
    lacp = (teaming.lacp_timeout_s, teaming.lacp_slow_timeout_s)
    moments = {f.event: _moments(f, lacp) for f in failures}
    #: What each connection did that a failure may have caused (its black-holed stretches, the times it
    #: moved, since when it stalled), read once: a connection that did none of it is hit by none, nor
    #: is work with no such connection.
    facts: dict[int, _Facts] = {}
    for k in run.connections.disturbed():
        outcome = run.connections[k]
        since = outcome.stalled_since_s if outcome.end_s is None else None
        facts[k] = _Facts(outcome.blackholes, _moves(outcome), since)
    works = _work(scenario, run, owner, migrations, touching=set(facts))
    results = []
    for failure in failures:
        at = moments[failure.event]
        hits = [hit for work in works if (hit := _hit(failure, failures, at, work, facts)) is not None]
        results.append(
            FailureResult(
                event=failure.event,
                at_s=failure.at_s,
                action=failure.action,
                target=failure.target,
                repaired_s=failure.repaired_s,
                routing=[
                    RoutingChange(
                        link=o.link.name,
                        seen_s=_time(o.seen_s),
                        seen_by=o.seen_by,
                        rerouted_s=_time(o.rerouted_s),
                        restored_s=_time(o.restored_s),
                    )
                    for o in failure.outages
                ],
                hits=hits,
            )
        )
    return results


def never_warnings(
    scenario: Scenario,
    model: NetworkModel,
    run: Outcomes,
    owner: Sequence[int],
    migrations: Sequence[MigrationResult],
) -> list[str]:
    """One line per traffic entry or migration that never completed: from when, what cut it, and that
    no path is left for it."""
    held = down_at(scenario, model.fabric, run.end_s)
    warnings = []
    for work in _work(scenario, run, owner, migrations, unfinished=True):
        stalled = [
            k
            for k in work.connections
            if run.connections[k].end_s is None and run.connections[k].stalled_since_s is not None
        ]
        if not stalled:
            warnings.append(_waiting(work, run))
            continue
        since = min(s for k in stalled if (s := run.connections[k].stalled_since_s) is not None)
        causes: list[str] = []
        for k in stalled:
            for cause in _cut_by(model, run, run.connections[k], held):
                if cause not in causes:
                    causes.append(cause)
        of = (
            f"{len(stalled)} of its {len(work.connections)} connections are"
            if len(work.connections) > 1
            else "its connection is"
        )
        warnings.append(
            f"{work.label} never completes: {of} black-holed from {human_duration(since)} to the end of the run: "
            f"{'; '.join(causes) or 'its path is down'}; no path is left for {'them' if len(stalled) > 1 else 'it'}"
        )
    return warnings


def _waiting(work: _Work, run: Outcomes) -> str:
    """Why work that was never black-holed still never completed."""
    if work.kind == "migration" and not work.connections:
        return f"{work.label} never starts: it waits for a migration or a free slot that never comes"
    end = human_duration(run.end_s)
    return f"{work.label} never completes: it moves nothing from its start to the end of the run ({end})"


def _cut_by(
    model: NetworkModel, run: Outcomes, outcome: ConnectionOutcome, held: dict[int, list[tuple[str, float]]]
) -> list[str]:
    """What holds a stalled connection's path down at the end, in words."""
    causes = []
    events = sorted({event for r in outcome.stalled_on for event in held.get(r, [])}, key=lambda e: (e[1], e[0]))
    if events:
        causes.append(
            "its path went down with " + ", ".join(f"{label} (at {human_duration(at)})" for label, at in events)
        )
    if model.no_route in outcome.stalled_on:
        causes.append(_no_route(model, run, outcome))
    if model.frames_dropped in outcome.stalled_on:
        causes.append("a switch on its route drops its full-size frames (see the MTU warning)")
    if model.unreachable_resource in outcome.stalled_on:
        causes.append("no cable joins its NICs")
    _, out_nic, in_nic = outcome.nics[-1]
    if out_nic is None or in_nic is None:
        causes.append(f"{'its sender' if out_nic is None else 'its receiver'}'s team has no working member left")
    return causes


def _no_route(model: NetworkModel, run: Outcomes, outcome: ConnectionOutcome) -> str:
    """Routing left no route between the switches of the connection's NICs: since when, after which failures."""
    _, out_nic, in_nic = outcome.nics[-1]
    ends = None if out_nic is None or in_nic is None else model.fabric.ends(Port.parse(out_nic), Port.parse(in_nic))
    between = "" if ends is None else f" between {ends[0].target.node} and {ends[1].source.node}"
    cut = [o for o in model.routing.outages if o.rerouted_s <= run.end_s < o.restored_s]
    labels = sorted({label for o in cut for label in o.causes})
    since = max((o.rerouted_s for o in cut), default=None)
    after = f" after {', '.join(labels)}" if labels else ""
    when = "" if since is None else f", since routing converged at {human_duration(since)}"
    return f"the fabric has no route left{between}{after}{when}"
