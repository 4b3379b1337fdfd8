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

from hvnet import _core
from hvnet.lower.fabric import Fabric
from hvnet.lower.migrations import MigrationRequest, guests, migration_args, migration_ends, smb_limits
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


@dataclass
class NetworkRun:
    """What one run produced: each connection's and migration's outcome, and the resources' use."""

    outcomes: list[ConnectionOutcome]
    end_s: float
    events: int
    wall_s: float
    #: Mean use (bytes/s) of each resource per bin, when recorded.
    series: list[list[float]] | None
    fabric: Fabric
    migrations: list[MigrationOutcome] = field(default_factory=list)


def run(
    model: NetworkModel,
    requests: Sequence[ConnectionRequest],
    step_s: float | None = None,
    migrations: Sequence[MigrationRequest] = (),
) -> NetworkRun:
    """Runs the connections and migrations (check `model.unreachable` first) and
    records use per `step_s`."""
    ends = migration_ends(model, migrations)
    talking = {end for r in requests for end in (r.source, r.target)}
    endpoints, index = model.endpoint_args(talking)
    connections = model.connection_args(requests, index)
    limits = smb_limits(model, migrations)
    migration_specs = migration_args(model, migrations, ends, index, [e[6][1] for e in endpoints], limits)
    changes = model.changes()
    dynamic_queues = any(e[8] for e in endpoints)
    busy_guests = guests(model, index, migrations)
    teaming, vmq = model.calibration.teaming, model.calibration.vmq
    result = _core.run_network(
        model.fabric.capacities,
        model.fabric.fatpipe,
        model.nics,
        model.teams,
        endpoints,
        model.path_args(),
        connections,
        changes,
        teaming.lacp_timeout_s,
        rebalance_interval=teaming.rebalance_interval_s if model.dynamic else None,
        record_step=step_s,
        migrations=migration_specs,
        guests=busy_guests,
        dynamic_vmq=(vmq.interval_s, vmq.busy) if dynamic_queues else None,
    )
    names = [str(p) for p in model.nic_ports]
    outcomes = [
        ConnectionOutcome(
            end_s=end,
            nics=[(t, None if a is None else names[a], None if b is None else names[b]) for t, a, b in members],
            blackholed_s=blackholed,
            stalled_since_s=stalled,
            sent_bytes=sent,
        )
        for end, members, blackholed, stalled, sent in zip(
            result["end"], result["members"], result["blackholed"], result["stalled_since"], result["sent"]
        )
    ]
    migration_outcomes = [
        MigrationOutcome(
            queued_s=m["queued"],
            start_s=m["start"],
            end_s=m["end"],
            passes=list(m["passes"]),
            blackout_s=m["blackout"],
            bytes_sent=m["bytes_sent"],
            peak_bps=bits_per_s(m["peak_rate"]),
            connections=list(m["connections"]),
        )
        for m in result["migrations"]
    ]
    return NetworkRun(
        outcomes,
        result["end_time"],
        result["events"],
        result["wall_s"],
        result["series"],
        model.fabric,
        migration_outcomes,
    )

