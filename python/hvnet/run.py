"""One call into the Rust core: a lowered scenario runs, its report comes back typed.

The lowering (`hvnet.lower`) has turned names into indices; this module
hands the core everything at once (`crates/python`), and turns what it
reports back into outcomes named as the scenario names things: which NICs
each connection used and when, how long it was black-holed, what each
migration did. Python never loops over events: the core runs the whole
simulation in that one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hvnet import _core, budget
from hvnet.errors import CoreFailure
from hvnet.lower import specs
from hvnet.lower.fabric import Fabric
from hvnet.lower.migrations import MigrationRequest, guest_specs, migration_ends, migration_specs, smb_limits
from hvnet.lower.network import ConnectionRequest, NetworkModel
from hvnet.units import bits_per_s

__all__ = ["ConnectionOutcome", "MigrationOutcome", "NetworkRun", "run"]


@dataclass(frozen=True)
class ConnectionOutcome:
    """Where a connection went and how it fared."""

    end_s: float | None
    #: (time, NIC it left by, NIC it arrived on) at its start and at every
    #: move; a NIC is None while its team had no working member.
    nics: list[tuple[float, str | None, str | None]]
    blackholed_s: float
    #: When its path went down for good (it never completed because of it).
    stalled_since_s: float | None
    #: Bytes it moved (its size unless it was stopped or never completed).
    sent_bytes: float
    #: Core-seconds it cost its sending and its receiving side (the core's count).
    send_core_s: float = 0.0
    receive_core_s: float = 0.0
    #: Each stretch (from, to) its path was down.
    blackholes: list[tuple[float, float]] = field(default_factory=list)
    #: The resources down on its route when the run ended, when it was stalled (what cut it).
    stalled_on: list[int] = field(default_factory=list)
    #: When the fabric's routing moved it to another route.
    rerouted_s: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class MigrationOutcome:
    """What a migration did: times in seconds, bytes of memory moved."""

    queued_s: float
    start_s: float | None
    end_s: float | None
    #: (bytes, start, end) of each pre-copy pass.
    passes: list[tuple[float, float, float]]
    blackout_s: float | None
    bytes_sent: float
    peak_bps: float
    #: Its connections, as indices into `NetworkRun.outcomes`.
    connections: list[int]
    #: Core-seconds it cost the source and the destination host (the core's count).
    cpu_core_s_source: float = 0.0
    cpu_core_s_destination: float = 0.0


@dataclass
class NetworkRun:
    """What one run produced: each connection's and migration's outcome, and the resources' use."""

    outcomes: list[ConnectionOutcome]
    end_s: float
    events: int
    wall_s: float
    #: Use (bytes/s, cycles/s) of each resource over time, when recorded: its
    #: change points `(times_s, values)`, `values[i]` from `times_s[i]` until
    #: the next time (the last until `end_s`), 0 before the first
    #: (`hvnet.series.Series.of` keeps them as `Results` series).
    series: list[tuple[list[float], list[float]]] | None
    fabric: Fabric
    migrations: list[MigrationOutcome] = field(default_factory=list)


def run(
    model: NetworkModel,
    requests: Sequence[ConnectionRequest],
    record: bool = False,
    migrations: Sequence[MigrationRequest] = (),
    max_memory_bytes: int | None = None,
) -> NetworkRun:
    """Runs the connections and migrations (check `model.unreachable` first),
    recording each resource's use over time when `record`.

    A run whose estimated size (`hvnet.budget`) is over `max_memory_bytes`
    (default: `HVNET_MAX_MEMORY`, else half the machine's memory) raises
    `budget.RunTooLarge` before it starts."""
    ends = migration_ends(model, migrations)
    talking = {end for r in requests for end in (r.source, r.target)}
    endpoints, index = model.endpoint_specs(talking)
    connections = model.connection_specs(requests, index)
    limits = smb_limits(model, migrations)
    moves = migration_specs(model, migrations, ends, index, limits)
    busy = guest_specs(model, index, migrations)
    network = model.network_spec(endpoints)
    spec = specs.RunSpec(
        network=network,
        connections=tuple(connections),
        changes=tuple(model.changes()),  # after the paths: which black holes they use
        migrations=tuple(moves),
        guests=tuple(busy),
        record=record,
    )
    budget.check(spec, model.scenario.source, max_memory_bytes)
    try:
        report = _core.run(spec)
    except _core.CoreError as error:
        raise CoreFailure(model.scenario.source, str(error)) from None
    names = model.nic_names
    outcomes = [
        ConnectionOutcome(
            end_s=c.end_s,
            nics=[(t, None if a is None else names[a], None if b is None else names[b]) for t, a, b in c.members],
            blackholed_s=c.blackholed_s,
            stalled_since_s=c.stalled_since_s,
            sent_bytes=c.sent_bytes,
            send_core_s=c.send_core_s,
            receive_core_s=c.receive_core_s,
            blackholes=list(c.blackholes),
            stalled_on=list(c.stalled_on),
            rerouted_s=list(c.rerouted_s),
        )
        for c in report.connections
    ]
    migration_outcomes = [
        MigrationOutcome(
            queued_s=m.queued_s,
            start_s=m.start_s,
            end_s=m.end_s,
            passes=list(m.passes),
            blackout_s=m.blackout_s,
            bytes_sent=m.bytes_sent,
            peak_bps=bits_per_s(m.peak_bytes_per_s),
            connections=list(m.connections),
            cpu_core_s_source=m.cpu_core_s_source,
            cpu_core_s_destination=m.cpu_core_s_destination,
        )
        for m in report.migrations
    ]
    return NetworkRun(outcomes, report.end_s, report.events, report.wall_s, report.series, model.fabric, migration_outcomes)
