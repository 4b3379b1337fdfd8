"""Runs a scenario: lower it, one call into the core, read the report back.

    simulate(scenario) = readback(run(lower(scenario, calibration)))

Each traffic entry opens `connections` TCP connections that split its size
evenly; each `migrate`, `drain` and `rolling_update` event becomes the live
migrations that carry it out (`lower/operations.py`, `lower/migrations.py`).
Which NIC or team member each connection uses, failover, rebalancing and
the migrations' pre-copy are decided in the Rust core (`hvnet.run`);
`hvnet.readback` names what it reports, with a warning for each NIC pair
whose full-size frames a switch drops (`lower/frames.py`); `hvnet.failures`
what each failure did, and a warning for each entry that never completed.
"""

from __future__ import annotations

from hvnet.calibration import Calibration
from hvnet.errors import Problem, ScenarioError
from hvnet.failures import failure_results, never_warnings
from hvnet.lower.frames import path_warnings
from hvnet.lower.migrations import migration_requests
from hvnet.lower.network import ConnectionRequest, NetworkModel
from hvnet.model import Scenario
from hvnet.readback import adapter_series, core_series, migration_results, operation_results, traffic_results, vcpu_series
from hvnet.results import Results
from hvnet.run import run

__all__ = ["simulate"]


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
    half the machine's physical memory) raises `budget.RunTooLarge`, one line
    naming the cause and the knob."""
    calibration = calibration or Calibration()
    filename = scenario.source if filename is None else filename
    model = NetworkModel(scenario, calibration)
    requests: list[ConnectionRequest] = []
    owner: list[int] = []
    for index, traffic in enumerate(scenario.traffic):
        for _ in range(traffic.connections):
            requests.append(ConnectionRequest(traffic.src, traffic.dst, traffic.size / traffic.connections, traffic.start))
            owner.append(index)
    unreachable = {owner[k]: why for k, why in model.unreachable(requests)}
    plan, migrations, refused = migration_requests(scenario, filename, calibration, model.routing)
    problems = [Problem(filename, None, f"traffic[{i}]", why) for i, why in sorted(unreachable.items())] + refused
    if problems:
        raise ScenarioError(problems)
    outcome = run(model, requests, True, migrations, max_memory_bytes)
    migrated = migration_results(plan, migrations, outcome)
    return Results(
        scenario=scenario.name,
        end_s=outcome.end_s,
        events=outcome.events,
        wall_s=outcome.wall_s,
        traffic=traffic_results(scenario, owner, outcome.outcomes),
        adapters=adapter_series(scenario, outcome),
        cores=core_series(model, outcome),
        vcpus=vcpu_series(model, outcome),
        migrations=migrated,
        operations=operation_results(plan, migrated),
        warnings=path_warnings(scenario, model.routing, model.endpoints)
        + never_warnings(scenario, model, outcome, owner, migrated),
        failures=failure_results(scenario, model, outcome, owner, migrated),
    )
