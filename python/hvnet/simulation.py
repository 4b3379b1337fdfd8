"""Runs a scenario: lower it, one call into the core, read the report back.

    simulate(scenario) = readback(run(lower(scenario, calibration)))

Each traffic entry opens `connections` TCP connections that split its size
evenly; each `migrate`, `drain` and `rolling_update` event becomes the live
migrations that carry it out (`lower/operations.py`, `lower/migrations.py`).
Which NIC or team member each connection uses, failover, rebalancing and
the migrations' pre-copy are decided in the Rust core (`hvnet.run`);
`hvnet.readback` names what it reports, with a warning for each NIC pair
whose full-size frames a switch drops (`lower/frames.py`), what each
failure did (`hvnet.failures`) and a warning for each entry that never
completed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from hvnet.calibration import Calibration
from hvnet.errors import Problem, ScenarioError
from hvnet.lower import lower
from hvnet.model import Scenario
from hvnet.readback import readback
from hvnet.results import Results
from hvnet.run import run

__all__ = ["OPERATIONS", "collector_paused", "nothing_to_simulate", "simulate"]

#: The events that move VMs: with traffic and demand, what a run has to simulate.
OPERATIONS = frozenset({"migrate", "drain", "rolling_update"})


def nothing_to_simulate(scenario: Scenario, filename: str | None = None) -> Problem | None:
    """The problem of a scenario in which nothing moves (no traffic, demand, migration, drain or rolling
    update), saying what to add; None when something does. Its failures alone disturb nothing."""
    if scenario.traffic or scenario.demand or any(e.action.value in OPERATIONS for e in scenario.events):
        return None
    names = [host.name for host in scenario.hosts]
    a, b = (names[0], names[1]) if len(names) > 1 else ("hv1", "hv2")
    failures = " (failures alone disturb nothing)" if scenario.events else ""
    message = (
        f"nothing to simulate: no traffic, demand, migration, drain or rolling update{failures}; add traffic, "
        f"e.g. traffic: [{{from: {a}, to: {b}, size: 10GB}}], or VMs and a drain, e.g. "
        f"vms: [{{name: vm1, host: {a}, memory: 8GiB}}] and events: [{{at: 0s, action: drain, target: {a}}}] "
        "(docs/scenario.md; hvnet topology star --help lists options that generate them)"
    )
    return Problem(scenario.source if filename is None else filename, None, "", message)


def simulate(
    scenario: Scenario,
    filename: str | None = None,
    calibration: Calibration | None = None,
    max_memory_bytes: int | None = None,
) -> Results:
    """Simulates the scenario. The time series of `Results` are exact change
    points (`hvnet.series.Series`), at no resolution: a face resamples a
    series where it draws one (`Series.resample`).

    Problems found while planning (a VM that fits nowhere, a path that is
    not cabled) raise ScenarioError naming `filename` (default: the file the
    scenario was loaded from).

    Before it runs, the run's events, change points and memory are estimated
    (`hvnet.budget`); a run that would need more than `max_memory_bytes`
    (default: the environment variable `HVNET_MAX_MEMORY`, e.g. `8GiB`, else
    half the machine's physical memory) raises `errors.RunTooLarge`, one line
    naming the cause and the knob."""
    filename = scenario.source if filename is None else filename
    with collector_paused():
        return _simulate(scenario, filename, calibration, max_memory_bytes)


def _simulate(
    scenario: Scenario, filename: str, calibration: Calibration | None, max_memory_bytes: int | None
) -> Results:
    """`simulate`'s work; what it lowered and ran is freed when it returns, before the collector resumes."""
    lowered = lower(scenario, calibration, filename=filename)
    if not lowered.runnable:
        unreachable = {lowered.owner[k]: why for k, why in lowered.unreachable}
        problems = [Problem(filename, None, f"traffic[{i}]", why) for i, why in sorted(unreachable.items())]
        raise ScenarioError([*problems, *lowered.refused])
    return readback(run(lowered, max_memory_bytes))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a run is lowered and read back, and resumed as it was.

    Lowering and read-back make tens of thousands of objects, and the collector would scan those
    alive again and again while they are made. Reference counting still frees what they drop;
    the few cycles they may leave are collected once the collector runs again, and what was
    made while it was paused is scanned then, once."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
