"""What a simulation produced, as stable, documented JSON (docs/output.md).

Units are in the field names: `_s` seconds, `_bps` bits per second,
`_bytes` bytes. A time series holds the mean over each bin of `step_s`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from hvnet._version import __version__
from hvnet.model import Flow

__all__ = [
    "AdapterSeries",
    "ConnectionResult",
    "CoreSeries",
    "MigrationPass",
    "MigrationResult",
    "NicChoice",
    "Results",
    "TrafficResult",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NicChoice(_Frozen):
    """The NICs a connection used from a moment on (`host/nic`; None while
    its team had no working member)."""

    at_s: float
    out_nic: str | None
    in_nic: str | None


class ConnectionResult(_Frozen):
    """One TCP connection of a traffic entry."""

    #: None when it never completed.
    end_s: float | None
    #: Seconds its path was down before failover or repair (or the end).
    blackholed_s: float
    #: When its path went down for good, if it never completed because of it.
    stalled_since_s: float | None
    #: The NICs it started on, then one entry per move (failover, rebalancing).
    nics: list[NicChoice]


class TrafficResult(_Frozen):
    """One traffic entry: when it started and ended, and its mean rate."""

    name: str | None
    source: str
    destination: str
    size_bytes: int
    connections: int
    start_s: float
    #: None when it never completed (its path stayed down).
    end_s: float | None
    duration_s: float | None
    mean_bps: float | None
    #: The longest time one of its connections was black-holed.
    blackholed_s: float
    connection_results: list[ConnectionResult]

    @classmethod
    def of(cls, traffic: Flow, connections: list[ConnectionResult]) -> TrafficResult:
        ends = [c.end_s for c in connections]
        end_s = None if any(e is None for e in ends) else max(e for e in ends if e is not None)
        duration = None if end_s is None else end_s - traffic.start
        return cls(
            name=traffic.name,
            source=traffic.src,
            destination=traffic.dst,
            size_bytes=traffic.size,
            connections=traffic.connections,
            start_s=traffic.start,
            end_s=end_s,
            duration_s=duration,
            mean_bps=8 * traffic.size / duration if duration else None,
            blackholed_s=max(c.blackholed_s for c in connections),
            connection_results=connections,
        )


class AdapterSeries(_Frozen):
    """Send and receive of one NIC over time, like Task Manager's graphs."""

    host: str
    nic: str
    speed_bps: float
    send_bps: list[float]
    receive_bps: list[float]


class MigrationPass(_Frozen):
    """One pre-copy pass: memory bytes copied while the VM ran."""

    bytes: int
    start_s: float
    end_s: float


class MigrationResult(_Frozen):
    """One VM's live migration (a `migrate` event)."""

    vm: str
    source: str
    destination: str
    #: The performance option it ran with.
    option: str
    #: When it was asked for; it starts when its source host has a free slot.
    queued_s: float
    #: None when it never started or never ended (a path that stayed down).
    start_s: float | None
    end_s: float | None
    duration_s: float | None
    #: Memory bytes it moved: all passes and the blackout copy.
    bytes_sent: int
    passes: int
    pass_details: list[MigrationPass]
    #: From the VM's pause on the source to its resume on the destination.
    blackout_ms: float | None
    peak_gbps: float
    #: Core-seconds of sending on the source and receiving on the destination.
    cpu_core_s_source: float
    cpu_core_s_destination: float


class CoreSeries(_Frozen):
    """How busy one physical core of a host was over time (its share of the
    cycles its power plan leaves it, 0 to 1)."""

    host: str
    core: int
    busy: list[float]


class Results(_Frozen):
    """Everything `hvnet simulate` reports, in one document."""

    hvnet: str = __version__
    scenario: str
    step_s: float
    #: Time of the last event: when the last transfer ended or stalled, or a
    #: later failure or repair of the scenario's events.
    end_s: float
    #: Engine events processed, and the engine's wall-clock time.
    events: int
    wall_s: float
    traffic: list[TrafficResult]
    adapters: list[AdapterSeries]
    #: One per physical core of every host, in scenario order (hosts, then cores).
    cores: list[CoreSeries]
    #: One per `migrate` event, in time order.
    migrations: list[MigrationResult]
    #: One line per NIC pair whose full-size frames a switch on its path drops.
    warnings: list[str]

    @property
    def stalled(self) -> list[TrafficResult]:
        return [t for t in self.traffic if t.end_s is None]
