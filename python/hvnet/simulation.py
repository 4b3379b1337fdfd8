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

from hvnet.calibration import Calibration
from hvnet.errors import Problem, ScenarioError
from hvnet.lower import lower
from hvnet.model import Scenario
from hvnet.readback import readback
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
    half the machine's physical memory) raises `errors.RunTooLarge`, one line
    naming the cause and the knob."""
    filename = scenario.source if filename is None else filename
    lowered = lower(scenario, calibration, filename=filename)
    if not lowered.runnable:
        unreachable = {lowered.owner[k]: why for k, why in lowered.unreachable}
        problems = [Problem(filename, None, f"traffic[{i}]", why) for i, why in sorted(unreachable.items())]
        raise ScenarioError([*problems, *lowered.refused])
    return readback(run(lowered, max_memory_bytes))
