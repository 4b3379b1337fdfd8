"""Evaluate a scenario's requirements by simulating clean experiments built from its design.

For the design as is, and again under each single failure `survive` names:

- ``maintenance_window``: one simulation, a rolling update of every host in file order at 0 s
  (the scenario's own events and traffic left out), its window from the first drain to the
  last node's end;
- ``max_drain``: one simulation per host, that host drained alone at 0 s from a clean start;
  the worst is the figure;
- ``max_blackout``: the longest blackout of any migration of those drains and that rolling
  update (the drains are simulated for it when max_drain is not set);
- ``max_utilisation``: one simulation of the scenario's own traffic (its events left out), each
  NIC's send and receive as a share of its link, each percentile over the profile's window
  (from the first transfer's start to the run's end).

A failure is an event at 0 s added to each experiment. An experiment the simulator refuses
(a VM that fits on no other host, traffic with no path) or that never ends (a migration or a
transfer whose path stays down) has no figure: its requirement fails, the reason named.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hvnet.check.failures import Failure, cut_off, failures
from hvnet.errors import ScenarioError
from hvnet.model import Event, EventAction, FailureKind, Placement, Requirements, Scenario, split_endpoint
from hvnet.results import Results
from hvnet.simulation import simulate
from hvnet.units import format_duration

__all__ = [
    "CheckResult",
    "Outcome",
    "Settings",
    "SurviveResult",
    "check",
    "room",
    "sample",
    "settings_of",
    "simulations_needed",
]

#: Percentile names and the percentile of time each is (max: the highest value).
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "max": 100.0}

#: A figure, the case it comes from, and why there is none ("" when there is one).
_Case = tuple[float | None, str, str]


@dataclass(frozen=True)
class Outcome:
    """One requirement under one condition: its figure against its limit."""

    #: "maintenance_window", "max_drain", "max_blackout", "max_utilisation.p99".
    requirement: str
    #: Seconds, or a share of a link (0 to 1); None: the experiment never completed or was refused.
    figure: float | None
    limit: float
    #: "s" or "share".
    unit: str
    #: The case the figure comes from: "drain of hv3", "sql1 in drain of hv1", "hv1/nic1 send";
    #: or why there is no figure.
    worst: str
    #: The single failure it was measured under; None: the design as is.
    failure: Failure | None = None
    #: Why there is no figure, in one clause that names the case ("drain of hv1 never ends: hv1 is cut
    #: off", "drain of hv1 refused: ..."); "" when there is a figure.
    cause: str = ""

    @property
    def passed(self) -> bool:
        return self.figure is not None and self.figure <= self.limit

    @property
    def margin(self) -> float | None:
        """Limit less figure: how much room is left (negative: by how much it fails)."""
        return None if self.figure is None else self.limit - self.figure

    def document(self) -> dict[str, object]:
        return {
            "requirement": self.requirement,
            "figure": self.figure,
            "limit": self.limit,
            "unit": self.unit,
            "margin": self.margin,
            "passed": self.passed,
            "worst": self.worst,
            "failure": None if self.failure is None else self.failure.document(),
        }


@dataclass(frozen=True)
class SurviveResult:
    """Every single failure of one kind, each with the requirements re-evaluated under it."""

    kind: FailureKind
    #: The cases evaluated: every failure of the kind, or an even sample of them (`check`'s limit).
    cases: list[Failure]
    #: How many failures of the kind there are.
    total: int
    #: Each requirement under each case, case by case.
    outcomes: list[Outcome]

    @property
    def failed(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.passed]

    @property
    def failed_cases(self) -> list[Failure]:
        seen: dict[str, Failure] = {}
        for outcome in self.failed:
            if outcome.failure is not None:
                seen.setdefault(outcome.failure.label, outcome.failure)
        return list(seen.values())

    @property
    def passed(self) -> bool:
        return not self.failed

    def tightest(self) -> Outcome | None:
        """The outcome with the least room relative to its limit (a failing one first)."""
        if not self.outcomes:
            return None
        return min(self.outcomes, key=room)


def room(outcome: Outcome) -> float:
    """Margin as a share of the limit; -inf when there is no figure."""
    if outcome.margin is None:
        return float("-inf")
    return outcome.margin / outcome.limit if outcome.limit > 0 else outcome.margin


@dataclass(frozen=True)
class Settings:
    """What the experiments assume where the requirements do not say."""

    #: How long each node is down in the rolling update.
    patch_time_s: float
    #: Where drained VMs go.
    placement: Placement
    #: Whether a patched node's VMs move back to it before the next node.
    fail_back: bool

    def document(self) -> dict[str, object]:
        return {"patch_time_s": self.patch_time_s, "placement": self.placement.value, "fail_back": self.fail_back}


@dataclass
class CheckResult:
    """Every requirement of a scenario, evaluated."""

    scenario: str
    requirements: Requirements | None
    settings: Settings
    #: The design as is.
    outcomes: list[Outcome] = field(default_factory=list)
    survive: list[SurviveResult] = field(default_factory=list)
    simulations: int = 0
    wall_s: float = 0.0

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes) and all(s.passed for s in self.survive)

    @property
    def checked(self) -> bool:
        """Whether there was a requirement to check (no block, or an empty one: none)."""
        return bool(self.outcomes or self.survive)


def settings_of(scenario: Scenario) -> Settings:
    """patch_time from the requirements, else from the scenario's rolling_update event, else 0 s;
    placement from its first drain or rolling_update event, else balanced; fail_back from its
    rolling_update event, else true."""
    operations = [e for e in scenario.events if e.action in (EventAction.DRAIN, EventAction.ROLLING_UPDATE)]
    updates = [e for e in operations if e.action is EventAction.ROLLING_UPDATE]
    requirements = scenario.requirements
    patch_time = requirements.patch_time if requirements is not None else None
    if patch_time is None:
        patch_time = next((e.patch_time for e in updates if e.patch_time is not None), 0.0)
    placement = next((e.placement for e in operations if e.placement is not None), Placement.BALANCED)
    fail_back = next((e.fail_back for e in updates if e.fail_back is not None), True)
    return Settings(patch_time, placement, fail_back)


def simulations_needed(scenario: Scenario, limit: int | None = None) -> int:
    """How many simulations `check` runs: per condition (the design as is, and each failure
    case, at most `limit` of each kind), 1 for the rolling update, 1 per host for the drains,
    1 for the traffic."""
    requirements = scenario.requirements
    if requirements is None:
        return 0
    per_condition = _per_condition(scenario, requirements)
    cases = sum(len(sample(failures(scenario, kind), limit)) for kind in dict.fromkeys(requirements.survive))
    return per_condition * (1 + cases)


def sample(cases: list[Failure], limit: int | None) -> list[Failure]:
    """All the cases, or `limit` of them spread evenly over the list (the first and the last among them)."""
    if limit is None or len(cases) <= limit:
        return cases
    if limit <= 1:
        return cases[:limit]
    picks = sorted({round(i * (len(cases) - 1) / (limit - 1)) for i in range(limit)})
    return [cases[i] for i in picks]


def _per_condition(scenario: Scenario, requirements: Requirements) -> int:
    drains = requirements.max_drain is not None or requirements.max_blackout is not None
    return (
        (requirements.maintenance_window is not None)
        + len(scenario.hosts) * drains
        + (requirements.max_utilisation is not None)
    )


def check(
    scenario: Scenario, progress: Callable[[int, int], None] | None = None, limit: int | None = None
) -> CheckResult:
    """Evaluate `scenario.requirements` (none: an empty result). `progress(done, total)` is
    called after each simulation. `limit`: evaluate at most that many failures of each kind
    `survive` names, spread evenly over them (None: every one)."""
    settings = settings_of(scenario)
    result = CheckResult(scenario.name, scenario.requirements, settings)
    requirements = scenario.requirements
    if requirements is None:
        return result
    started = time.perf_counter()
    runner = _Runner(scenario, simulations_needed(scenario, limit), progress)
    result.outcomes = _condition(runner, requirements, settings, None)
    for kind in dict.fromkeys(requirements.survive):
        every = failures(scenario, kind)
        cases = sample(every, limit)
        outcomes = [o for case in cases for o in _condition(runner, requirements, settings, case)]
        result.survive.append(SurviveResult(kind, cases, len(every), outcomes))
    result.simulations = runner.done
    result.wall_s = time.perf_counter() - started
    return result


class _Runner:
    """Runs each experiment in process and counts them."""

    def __init__(self, scenario: Scenario, total: int, progress: Callable[[int, int], None] | None) -> None:
        self.scenario = scenario
        self.total = total
        self.progress = progress
        self.done = 0

    def run(self, events: tuple[Event, ...], with_traffic: bool) -> Results | str:
        """The scenario with these events only (and its traffic, or none); or why the simulator refused it."""
        update: dict[str, object] = {"events": events}
        if not with_traffic:
            update["traffic"] = ()
        try:
            return simulate(self.scenario.model_copy(update=update))
        except ScenarioError as e:
            return "; ".join(problem.message for problem in e.problems[:2])
        finally:
            self.done += 1
            if self.progress is not None:
                self.progress(self.done, self.total)


def _condition(
    runner: _Runner, requirements: Requirements, settings: Settings, failure: Failure | None
) -> list[Outcome]:
    """Every requirement (but survive) under one condition: the design as is, or one failure."""
    failed: tuple[Event, ...] = () if failure is None else (failure.event(),)
    outcomes: list[Outcome] = []
    blackouts: list[_Case] = []  # (seconds, which, why none)
    if requirements.maintenance_window is not None:
        update = Event.model_validate(
            {
                "at": "0s",
                "action": EventAction.ROLLING_UPDATE.value,
                "patch_time": format_duration(settings.patch_time_s),
                "placement": settings.placement.value,
                "fail_back": settings.fail_back,
            }
        )
        hosts = runner.scenario.hosts
        what = f"rolling update of {', '.join(h.name for h in hosts) if len(hosts) <= 4 else f'{len(hosts)} hosts'}"
        figure, worst, cause = _operation(
            runner.run((*failed, update), with_traffic=False), what, blackouts, failure, runner.scenario
        )
        outcomes.append(
            Outcome("maintenance_window", figure, requirements.maintenance_window, "s", worst, failure, cause)
        )
    if requirements.max_drain is not None or requirements.max_blackout is not None:
        drains: list[_Case] = []
        for host in runner.scenario.hosts:
            drain = Event.model_validate(
                {
                    "at": "0s",
                    "action": EventAction.DRAIN.value,
                    "target": host.name,
                    "placement": settings.placement.value,
                }
            )
            what = f"drain of {host.name}"
            drains.append(
                _operation(runner.run((*failed, drain), with_traffic=False), what, blackouts, failure, runner.scenario)
            )
        if requirements.max_drain is not None:
            figure, worst, cause = _worst(drains)
            outcomes.append(Outcome("max_drain", figure, requirements.max_drain, "s", worst, failure, cause))
    if requirements.max_blackout is not None:
        figure, worst, cause = _worst(blackouts) if blackouts else (0.0, "no VM to migrate", "")
        outcomes.append(Outcome("max_blackout", figure, requirements.max_blackout, "s", worst, failure, cause))
    if requirements.max_utilisation is not None:
        limits = requirements.max_utilisation.limits()
        figures = _utilisation(runner, failed, list(limits))
        for name, limit in limits.items():
            figure, worst, cause = figures[name]
            outcomes.append(Outcome(f"max_utilisation.{name}", figure, limit, "share", worst, failure, cause))
    return outcomes


def _worst(figures: list[_Case]) -> _Case:
    """The highest figure (one without a figure first), with its case."""
    never = [case for case in figures if case[0] is None]
    if never:
        return never[0]
    return max(figures, key=lambda case: case[0] or 0.0)


def _operation(
    outcome: Results | str,
    what: str,
    blackouts: list[_Case],
    failure: Failure | None = None,
    scenario: Scenario | None = None,
) -> _Case:
    """The duration of the one operation of a run, and its migrations' blackouts added to `blackouts`;
    an operation that never ends names the hosts `failure` cut off, if it cut some, else what the run's
    warning says holds the first stuck migration's path down."""
    if isinstance(outcome, str):
        blackouts.append((None, f"{what}: refused: {outcome}", f"{what} refused: {outcome}"))
        return None, f"{what}: refused: {outcome}", f"{what} refused: {outcome}"
    stuck_migrations = [m for m in outcome.migrations if m.end_s is None]
    stuck = list(dict.fromkeys(m.vm for m in stuck_migrations))
    shown = ", ".join(stuck[:3]) + (f" and {len(stuck) - 3} more" if len(stuck) > 3 else "")
    of = (
        f"the migration of {shown} never completes"
        if len(stuck) == 1
        else f"the migrations of {shown or 'its VMs'} never complete"
    )
    cut = {} if failure is None or scenario is None else cut_off(scenario, failure)
    hosts = [h for h in dict.fromkeys(x for m in stuck_migrations for x in (m.source, m.destination)) if h in cut]
    held = None if hosts or not stuck_migrations else _held_by(outcome, stuck_migrations[0].vm)
    if hosts:
        cut_text = "; ".join(f"{h} is cut off: {cut[h]}" for h in hosts[:2])
        worst = f"{what}: never ends ({of}: {cut_text} (a team of NICs on two switches survives it))"
        cause = f"{what} never ends: {_and(hosts)} {'is' if len(hosts) == 1 else 'are'} cut off"
    elif held is not None:
        worst = f"{what}: never ends ({held})" if len(stuck) == 1 else f"{what}: never ends ({of}; {held})"
        cause = f"{what} never ends: {held}"
    else:
        left = "no path is left for it" if len(stuck) == 1 else "no path is left for them"
        worst, cause = f"{what}: never ends ({of}: {left})", f"{what} never ends: {left}"
    for migration in outcome.migrations:
        which = f"{migration.vm} ({migration.source} to {migration.destination}) in {what}"
        if migration.blackout_s is None:
            blackouts.append((None, f"{which}: never resumed (its path stayed down)", cause))
        else:
            blackouts.append((migration.blackout_s, which, ""))
    operation = outcome.operations[0]
    if operation.duration_s is not None:
        return operation.duration_s, what, ""
    return None, worst, cause


#: The run's warning for a migration that never completed (`failures.never_warnings`): what holds its
#: path down. The MTU warning it may point to is not shown where a check's figure is.
_HELD = re.compile(r"black-holed from .+? to the end of the run: (?P<causes>.*); no path is left for (?:it|them)$")


def _held_by(outcome: Results, vm: str) -> str | None:
    """Why the run says the live migration of `vm` never completed, in a clause: "sql1's migration is
    black-holed: a switch on its route drops its full-size frames", "sql1's migration never starts: ...";
    None when the run has no warning for it."""
    prefix = f"the live migration of {vm} ("
    for warning in outcome.warnings:
        if not warning.startswith(prefix):
            continue
        said = warning.partition(") ")[2]
        held = _HELD.search(said)
        if held is not None:
            return f"{vm}'s migration is black-holed: " + held["causes"].replace(" (see the MTU warning)", "")
        return f"{vm}'s migration {said}"
    return None


def _and(names: list[str]) -> str:
    """`hv1`, `hv1 and hv2`, `hv1, hv2 and hv3`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _utilisation(runner: _Runner, failed: tuple[Event, ...], names: list[str]) -> dict[str, _Case]:
    """The highest share of its link any NIC sends or receives, at each percentile of the traffic profile:
    the scenario's traffic and its measured demand, from the first of them to the run's end."""
    scenario = runner.scenario
    if not scenario.traffic and not scenario.demand:
        return {name: (0.0, "no traffic or measured demand in the scenario", "") for name in names}
    outcome = runner.run(failed, with_traffic=True)
    if isinstance(outcome, str):
        return {name: (None, f"traffic refused: {outcome}", f"traffic refused: {outcome}") for name in names}
    if outcome.stalled:
        flow = outcome.stalled[0]
        which = flow.name or f"{flow.source} to {flow.destination}"
        never = f"traffic {which} never completes (its path stays down)"
        return {name: (None, never, never) for name in names}
    start = min(
        [flow.start for flow in scenario.traffic]
        + [steps[0][0] for demand in scenario.demand for steps in (demand.send, demand.receive) if steps]
    )
    speeds = _link_speeds(runner.scenario)
    figures: dict[str, _Case] = {name: (0.0, "no NIC carries traffic", "") for name in names}
    found: dict[str, float] = {}
    for adapter in outcome.adapters:
        speed = speeds.get((adapter.host, adapter.nic), adapter.speed_bps)
        for direction, series in (("send", adapter.send_bps), ("receive", adapter.receive_bps)):
            if not series.nonzero():
                continue
            for name in names:
                share = series.percentile(PERCENTILES[name], start, outcome.end_s) / speed
                if share > found.get(name, -1.0):
                    found[name] = share
                    figures[name] = (share, f"{adapter.host}/{adapter.nic} {direction}", "")
    return figures


def _link_speeds(scenario: Scenario) -> dict[tuple[str, str], float]:
    """Each cabled host NIC's link speed (a 10 GbE NIC in a 1 GbE port runs at 1 Gbps)."""
    hosts = {host.name for host in scenario.hosts}
    speeds: dict[tuple[str, str], float] = {}
    for cable in scenario.cables:
        for end in (cable.a, cable.b):
            device, port = split_endpoint(end)
            if device in hosts:
                speeds[(device, port)] = scenario.cable_speed(cable)
    return speeds
