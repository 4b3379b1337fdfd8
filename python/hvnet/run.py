"""One call into the Rust core: a lowered scenario runs, its report comes back as the core gives it.

The lowering (`hvnet.lower.lower`) has turned names into indices and the
scenario into the core's spec; this module checks the run's size
(`hvnet.budget`), hands the core everything at once (`crates/python`), and
maps what the core refuses to one line (`CoreFailure`). Naming what the core
reports is read-back's (`hvnet.readback`). Python never loops over events:
the core runs the whole simulation in that one call.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from hvnet import _core, budget
from hvnet.errors import CoreFailure
from hvnet.lower import Lowered

__all__ = ["NetworkRun", "run"]


@dataclass(frozen=True)
class NetworkRun:
    """What one run of the core produced, by index and in the core's units, with what it ran."""

    lowered: Lowered
    #: One per connection (the requests', then those the migrations opened; each report made when it is
    #: read), and per migration.
    connections: _core.ConnectionReports
    migrations: list[_core.MigrationReport]
    end_s: float
    events: int
    wall_s: float
    #: The core's report, which keeps the recording in the core's form until it is read (`series`,
    #: `scaled_series`, `figured_series`).
    report: _core.RunReport

    @functools.cached_property
    def series(self) -> list[tuple[list[float], list[float]]] | None:
        """Use (bytes/s, cycles/s) of each resource over time, when recorded: its change points
        `(times_s, values)`, `values[i]` from `times_s[i]` until the next time (the last until
        `end_s`), 0 before the first (converted when first read)."""
        return self.report.series

    @property
    def recorded(self) -> bool:
        """Whether the run recorded each resource's use."""
        return self.report.recorded

    def scaled_series(
        self, resources: Sequence[int], scales: Sequence[float], rounding: float
    ) -> list[tuple[list[float], list[float]]]:
        """The change points of each resource, each value times its scale, as `hvnet.series.Series.of`
        makes them (`rounding`: its `ROUNDING`), converted once, in one call (the run recorded)."""
        return self.report.scaled_series(list(resources), list(scales), rounding)

    def figured_series(
        self,
        wanted: Sequence[tuple[int, float, float]],
        rounding: float,
        percentiles: Sequence[float],
        busy_share: float,
    ) -> list[tuple[list[float], list[float], list[float], float, float, float] | None]:
        """For each (resource, scale, share): its points as `scaled_series` gives them and, from them in
        the same call, over `[0, end_s)`, the `percentiles` and peak of the points times the share, the
        seconds that product is above `busy_share` (all 0 when idle), and the points' integral
        (`RunReport.figured_series`; `hvnet.utilisation.figures`); None for a resource never used."""
        return self.report.figured_series(list(wanted), rounding, self.end_s, list(percentiles), busy_share)


def run(lowered: Lowered, max_memory_bytes: int | None = None) -> NetworkRun:
    """Runs a lowered scenario. One that is not runnable (a request no cabled path joins, a
    migration refused: `Lowered.runnable`) is the face's to report first; here it is a bug.

    A run whose estimated size (`hvnet.budget`) is over `max_memory_bytes` (default:
    `HVNET_MAX_MEMORY`, else half the machine's memory) raises `errors.RunTooLarge` before it
    starts; the core refusing the spec, or failing in it, raises `CoreFailure`."""
    if not lowered.runnable:
        raise ValueError("a lowered scenario with unreachable requests or refused migrations cannot run")
    source = lowered.scenario.source
    budget.check(lowered.spec, source, max_memory_bytes)
    try:
        report = _core.run(lowered.spec)
    except _core.CoreError as error:
        raise CoreFailure(source, str(error)) from None
    return NetworkRun(
        lowered=lowered,
        connections=report.connections,
        migrations=report.migrations,
        end_s=report.end_s,
        events=report.events,
        wall_s=report.wall_s,
        report=report,
    )
