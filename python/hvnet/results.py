"""What a simulation produced, as stable, documented JSON (docs/output.md).

Units are in the field names: `_s` seconds, `_bps` bits per second,
`_bytes` bytes. A time series is a `Series`: the exact change points of a
step function (`t_s`, `values`), its values in the unit of the field that
holds it; faces compute integrals, peaks and percentiles from it, and
resample it to a grid only where they draw one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from hvnet._version import __version__
from hvnet.model import Flow
from hvnet.series import Series
from hvnet.units import bits_per_s
from hvnet.words import counted

__all__ = [
    "AdapterSeries",
    "ConnectionResult",
    "CoreSeries",
    "CoreUtilisation",
    "FailureResult",
    "FigureBand",
    "FlowHit",
    "MigrationPass",
    "MigrationResult",
    "NicChoice",
    "NicUtilisation",
    "NodeResult",
    "OperationResult",
    "Results",
    "RoutingChange",
    "Series",
    "TeamUtilisation",
    "TrafficResult",
    "VcpuSeries",
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
    #: When the fabric's routing moved it to another route between the same NICs.
    rerouted_s: list[float] = []


class TrafficResult(_Frozen):
    """One traffic entry: when it started and ended, what it sent, and its mean rate."""

    name: str | None
    source: str
    destination: str
    #: A transfer's size; a steady flow's rate times its duration (what it sends when nothing slows it).
    size_bytes: int
    connections: int
    start_s: float
    #: None when it never completed (its path stayed down); a steady flow's end is its duration's.
    end_s: float | None
    duration_s: float | None
    #: What it sent, start to end (to the run's end when it never completed): `size_bytes` when
    #: a transfer completed, less when a steady flow could not keep its rate.
    sent_bytes: int
    mean_bps: float | None
    #: A steady flow's rate (payload bits/s); None for a transfer or a series of rates.
    rate_bps: float | None = None
    #: The longest time one of its connections was black-holed.
    blackholed_s: float
    connection_results: list[ConnectionResult]

    @classmethod
    def of(cls, traffic: Flow, connections: list[ConnectionResult], sent_bytes: float) -> TrafficResult:
        ends = [c.end_s for c in connections]
        end_s = None if any(e is None for e in ends) else max(e for e in ends if e is not None)
        duration = None if end_s is None else end_s - traffic.start
        return cls(
            name=traffic.name,
            source=traffic.src,
            destination=traffic.dst,
            size_bytes=round(traffic.planned_bytes),
            connections=traffic.connections,
            start_s=traffic.start,
            end_s=end_s,
            duration_s=duration,
            sent_bytes=round(sent_bytes),
            mean_bps=bits_per_s(sent_bytes / duration) if duration else None,
            rate_bps=traffic.rate,
            blackholed_s=max(c.blackholed_s for c in connections),
            connection_results=connections,
        )

    def kept(self) -> float | None:
        """The share of `size_bytes` it sent by its end (below 1: a steady flow or a series that could not
        keep its rates); None when it never ended."""
        if self.end_s is None:
            return None
        return self.sent_bytes / self.size_bytes if self.size_bytes else 1.0


class AdapterSeries(_Frozen):
    """Send and receive of one NIC over time, like Task Manager's graphs."""

    host: str
    nic: str
    #: The host's team it is a member of; None when it is in none.
    team: str | None = None
    speed_bps: float
    #: Line rate sent, frame overhead included (bits/s), exactly as it changed.
    send_bps: Series
    #: Line rate received, frame overhead included (bits/s), exactly as it changed.
    receive_bps: Series


class MigrationPass(_Frozen):
    """One pre-copy pass: memory bytes copied while the VM ran."""

    bytes: int
    start_s: float
    end_s: float


class MigrationResult(_Frozen):
    """One VM's live migration (of a `migrate`, `drain` or `rolling_update` event)."""

    vm: str
    source: str
    destination: str
    #: The performance option it ran with.
    option: str
    #: When it was asked for; it starts when its source and its destination host both have a free slot.
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
    blackout_s: float | None
    #: When the VM paused on the source (the blackout ends at end_s, when it runs on the destination).
    blackout_start_s: float | None
    #: The highest rate of its connections together, bits/s of memory (before compression), as seen at events.
    peak_bps: float
    #: The same in bits/s sent (after compression; without frame headers): what its NICs carried for it.
    peak_wire_bps: float
    #: Core-seconds of sending on the source and receiving on the destination.
    cpu_core_s_source: float
    cpu_core_s_destination: float
    #: The operation it is part of (an index into `Results.operations`).
    operation: int


class NodeResult(_Frozen):
    """One node's part of a rolling update; None where it never got there
    (a migration it waited for never ended)."""

    node: str
    #: When its drain began (the previous node's part ended).
    drain_start_s: float | None
    #: When its last VM had left: it goes down for its patch.
    down_s: float | None
    #: When it is back from its patch.
    back_s: float | None
    #: When its VMs are back on it (fail-back), or when it was back without fail-back.
    end_s: float | None
    #: VMs drained from it.
    vms: int


class OperationResult(_Frozen):
    """One operation (a `migrate`, `drain` or `rolling_update` event) as a whole."""

    kind: str
    #: Its index in the scenario's events.
    event: int
    #: The drained host, or the migrated VM's source host; None for a rolling update.
    host: str | None
    start_s: float
    #: When its last migration (or a rolling update's last node) was done; None if never.
    end_s: float | None
    #: The maintenance window: from start_s to end_s.
    duration_s: float | None
    #: Its migrations (indices into `Results.migrations`).
    migrations: list[int]
    bytes_sent: int
    longest_blackout_s: float | None
    #: A rolling update's nodes, in the order they were patched.
    nodes: list[NodeResult]

    @property
    def noun(self) -> str:
        """What it is called: "drain", "rolling update" or "migration"."""
        return {"drain": "drain", "rolling_update": "rolling update"}.get(self.kind, "migration")

    def title(self, vm: str | None = None) -> str:
        """What tables, advice and verdicts call it: "drain of hv1", "rolling update of 4 nodes",
        "migration from hv1" ("migration of vm7 from hv1" given its VM)."""
        if self.kind == "rolling_update":
            return f"rolling update of {counted(len(self.nodes), 'node')}"
        if self.kind == "drain":
            return f"drain of {self.host}"
        return f"migration{'' if vm is None else f' of {vm}'} from {self.host}"


class CoreSeries(_Frozen):
    """How busy one physical core of a host was over time (its share of the
    cycles its power plan leaves it, 0 to 1)."""

    host: str
    core: int
    #: Its share of the cycles its power plan leaves it (0 to 1), exactly as it changed.
    busy: Series


class VcpuSeries(_Frozen):
    """How busy one virtual processor of a VM was over time with its own
    network stack's work (its share of the cycles of the host core it runs
    as, 0 to 1)."""

    vm: str
    vcpu: int
    #: Its share of its cycles (0 to 1), exactly as it changed.
    busy: Series


class NicUtilisation(_Frozen):
    """One NIC (a team member on its own) in one direction over the run."""

    host: str
    nic: str
    #: The host's team it is a member of; None when it is in none.
    team: str | None
    direction: Literal["send", "receive"]
    speed_bps: float
    #: Time-weighted percentiles of rate / speed over [0, end_s) (0 to 1).
    p50_share: float
    p90_share: float
    p99_share: float
    #: The highest instantaneous rate / speed.
    max_share: float
    #: Seconds the rate was above BUSY_SHARE of the speed.
    busy_s: float
    #: 1 − p99_share.
    headroom_share: float
    #: Bytes of line rate (frames included) in this direction over the run.
    carried_bytes: int
    #: carried_bytes / its team's in this direction; None outside a team or when the team carried nothing.
    team_share: float | None


class TeamUtilisation(_Frozen):
    """How a team's bytes in one direction spread over its members."""

    host: str
    team: str
    direction: Literal["send", "receive"]
    #: The members (NIC names), in the team's order.
    members: list[str]
    #: Bytes the team carried in this direction, all members together.
    carried_bytes: int
    #: Each member's share of carried_bytes (0 to 1), in the order of members; all 0 when it carried nothing.
    member_shares: list[float]
    #: One member carried more than HOT_SHARE while another carried less than COLD_SHARE.
    hot_spot: bool


class CoreUtilisation(_Frozen):
    """One physical core's busy share over the run."""

    host: str
    core: int
    p50_share: float
    p90_share: float
    p99_share: float
    max_share: float
    #: Seconds it was busier than BUSY_SHARE.
    busy_s: float
    #: 1 − p99_share.
    headroom_share: float


class RoutingChange(_Frozen):
    """How the fabric's routing handled one failed link between two switches (docs/model.md,
    "Routing around failures"); a time is None when it never came."""

    link: str
    #: When routing saw the failure, and how ("link down", "BFD 300 ms × 3"...); None: repaired first.
    seen_s: float | None
    seen_by: str
    #: When every switch forwarded around it, and when the repaired link carried traffic again.
    rerouted_s: float | None
    restored_s: float | None


class FlowHit(_Frozen):
    """What one failure did to one traffic entry or live migration."""

    #: "traffic" or "migration", and its place in `Results.traffic` or `Results.migrations`.
    kind: str
    index: int
    #: The traffic entry's name (`source → destination` when it has none), or the migrated VM's.
    name: str
    #: Its connections (a migration: those of all its steps; None for one the failure only delayed),
    #: those the failure black-holed, and those it moved to another NIC (a team's failover) or route.
    connections: int | None
    blackholed_connections: int
    moved_connections: int
    #: The longest time one of its connections was black-holed by this failure.
    blackholed_s: float
    #: Whether it never completed, its path cut by this failure (among others).
    never: bool
    #: When it ended (None: never), and when it ends in the same run without this failure and its
    #: repair (`hvnet simulate` computes it; None: never, or not computed).
    end_s: float | None
    end_without_s: float | None = None


class FailureResult(_Frozen):
    """One failure of the scenario's events, its repair, and what it cost."""

    #: The event's index in the scenario's events, its time, action and target.
    event: int
    at_s: float
    action: str
    target: str
    #: When it was repaired (the matching `*_up` or `port_restore`); None: never.
    repaired_s: float | None
    #: How routing handled each switch-to-switch link it took down (none for a host's own link).
    routing: list[RoutingChange]
    #: The traffic entries and migrations it black-holed, moved or delayed.
    hits: list[FlowHit]
    #: Whether `end_without_s` was computed (a run without this failure, `hvnet.failure_costs`).
    costed: bool = False


class FigureBand(_Frozen):
    """How far to trust one headline figure (`hvnet.uncertainty`): from `low` to `high` (None: it never
    ends with some parameter's value), the wider of two ranges: every unconfirmed parameter at either end
    of its range, one at a time (`parameters_low` to `parameters_high`), and where nine figures in ten
    lie by the leave-one-out residuals of `hvnet validate --loo` (`residual_low_pct` to
    `residual_high_pct` around the prediction)."""

    figure: str
    unit: str
    predicted: float | None
    low: float | None
    high: float | None
    #: The lowest and highest prediction over the parameters' runs.
    parameters_low: float | None
    parameters_high: float | None
    #: The parameter and value that moved it most ("" when none moved it).
    moved_most_by: str
    #: The 5th and 95th percentiles, in %, of the leave-one-out errors (predicted / reported − 1) of
    #: `hvnet validate`'s figures in seconds: the truth lies between predicted / (1 + high) and
    #: predicted / (1 + low); None where there are no residuals.
    residual_low_pct: float | None
    residual_high_pct: float | None
    #: How many figures those residuals are of.
    residual_figures: int


class Results(_Frozen):
    """Everything `hvnet simulate` reports, in one document."""

    hvnet: str = __version__
    scenario: str
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
    #: One per virtual processor of every VM that sends or receives traffic, in scenario order (VMs, then vCPUs).
    vcpus: list[VcpuSeries] = []
    #: Each NIC's send, then receive, as utilisation and headroom over [0, end_s) (`hvnet.utilisation`,
    #: computed in read-back).
    utilisation: list[NicUtilisation] = []
    #: Each team's send, then receive: its members' shares of its bytes and the hot-spot flag.
    teams_utilisation: list[TeamUtilisation] = []
    #: Each core's busy share as utilisation and headroom over [0, end_s).
    cores_utilisation: list[CoreUtilisation] = []
    #: One per VM migration, in the order they were asked for.
    migrations: list[MigrationResult]
    #: One per migrate, drain and rolling_update event, in time order.
    operations: list[OperationResult]
    #: One line per NIC pair whose full-size frames a switch on its path drops, and per traffic entry or
    #: migration that never completed: from when, what cut it, and that no path remains.
    warnings: list[str]
    #: Each failure of the scenario's events in time order: its repair, routing, what it hit and cost.
    failures: list[FailureResult] = []
    #: Each headline figure's band (`hvnet simulate --uncertainty`, `hvnet.uncertainty.bands`); empty when not asked
    #: for.
    uncertainty: list[FigureBand] = []

    @property
    def stalled(self) -> list[TrafficResult]:
        return [t for t in self.traffic if t.end_s is None]
