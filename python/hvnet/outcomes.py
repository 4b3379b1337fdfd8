"""A run's outcomes: the core's report named as the scenario names things, read where it lies.

Views of what `hvnet.run` returned, by index and in the core's units: each
connection's NICs (named as the scenario names them), black-holed stretches,
reroutes and end; each migration's times, bytes, passes, peaks (bits/s,
`units`) and CPU cost. Nothing is copied until a field is read: a rolling
update opens tens of thousands of connections, and read-back (`hvnet.readback`)
and the failures' account (`hvnet.failures`) read few of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hvnet import _core
from hvnet.run import NetworkRun
from hvnet.units import bits_per_s

__all__ = ["ConnectionOutcome", "ConnectionOutcomes", "MigrationOutcome", "Outcomes", "outcomes"]


class ConnectionOutcome:
    """Where a connection went and how it fared, named as the scenario names NICs: a view of
    the core's report (nothing is copied until a field is read)."""

    __slots__ = ("_names", "_report")

    def __init__(self, report: _core.ConnectionReport, names: Sequence[str]) -> None:
        self._report = report
        self._names = names

    @property
    def end_s(self) -> float | None:
        return self._report.end_s

    @property
    def nics(self) -> list[tuple[float, str | None, str | None]]:
        """(time, NIC it left by, NIC it arrived on) at its start and at every move; a NIC is
        None while its team had no working member."""
        names = self._names
        return [
            (t, None if a is None else names[a], None if b is None else names[b]) for t, a, b in self._report.members
        ]

    @property
    def moved_s(self) -> list[float]:
        """When it moved to other NICs (the times of `nics` after its start), without naming them."""
        return [t for t, _, _ in self._report.members[1:]]

    @property
    def blackholed_s(self) -> float:
        return self._report.blackholed_s

    @property
    def blackholes(self) -> list[tuple[float, float]]:
        """Each stretch (from, to) its path was down."""
        return self._report.blackholes

    @property
    def stalled_since_s(self) -> float | None:
        """When its path went down for good (it never completed because of it)."""
        return self._report.stalled_since_s

    @property
    def stalled_on(self) -> list[int]:
        """The resources down on its route when the run ended, when it was stalled (what cut it)."""
        return self._report.stalled_on

    @property
    def rerouted_s(self) -> list[float]:
        """When the fabric's routing moved it to another route."""
        return self._report.rerouted_s

    @property
    def sent_bytes(self) -> float:
        """Bytes it moved (its size unless it was stopped or never completed)."""
        return self._report.sent_bytes


class ConnectionOutcomes(Sequence[ConnectionOutcome]):
    """The run's connections as outcomes, each made when it is read."""

    def __init__(self, reports: _core.ConnectionReports, names: Sequence[str]) -> None:
        self._reports = reports
        self._names = names

    def __len__(self) -> int:
        return len(self._reports)

    def __getitem__(self, k: int) -> ConnectionOutcome:  # type: ignore[override]
        return ConnectionOutcome(self._reports[k], self._names)

    def __iter__(self) -> Iterator[ConnectionOutcome]:
        reports, names = self._reports, self._names  # each report made as it is reached
        return (ConnectionOutcome(reports[k], names) for k in range(len(reports)))

    def disturbed(self) -> list[int]:
        """The connections a failure may have touched (black-holed, moved, stalled for good), in order."""
        return self._reports.disturbed()


class MigrationOutcome:
    """What a migration did: times in seconds, bytes of memory moved, its peak in bits/s; a view of
    the core's report, as `ConnectionOutcome`."""

    __slots__ = ("_report",)

    def __init__(self, report: _core.MigrationReport) -> None:
        self._report = report

    @property
    def queued_s(self) -> float:
        return self._report.queued_s

    @property
    def start_s(self) -> float | None:
        return self._report.start_s

    @property
    def end_s(self) -> float | None:
        return self._report.end_s

    @property
    def passes(self) -> list[tuple[float, float, float]]:
        """(bytes, start, end) of each pre-copy pass."""
        return self._report.passes

    @property
    def blackout_s(self) -> float | None:
        return self._report.blackout_s

    @property
    def bytes_sent(self) -> float:
        return self._report.bytes_sent

    @property
    def peak_bps(self) -> float:
        return bits_per_s(self._report.peak_bytes_per_s)

    @property
    def peak_wire_bps(self) -> float:
        return bits_per_s(self._report.peak_wire_bytes_per_s)

    @property
    def connections(self) -> list[int]:
        """Its connections, as indices into `Outcomes.connections`."""
        return self._report.connections

    @property
    def cpu_core_s_source(self) -> float:
        """Core-seconds it cost the source host (the core's count)."""
        return self._report.cpu_core_s_source

    @property
    def cpu_core_s_destination(self) -> float:
        """Core-seconds it cost the destination host (the core's count)."""
        return self._report.cpu_core_s_destination


@dataclass(frozen=True)
class Outcomes:
    """A run's connections and migrations named as the scenario names things, and its end."""

    connections: ConnectionOutcomes
    migrations: list[MigrationOutcome]
    end_s: float


def outcomes(run: NetworkRun) -> Outcomes:
    """The run's report, named: its connections and migrations (views; peaks in bits/s)."""
    migrations = [MigrationOutcome(m) for m in run.migrations]
    return Outcomes(ConnectionOutcomes(run.connections, run.lowered.model.nic_names), migrations, run.end_s)
