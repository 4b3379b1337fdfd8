"""A scenario lowered for the core, in one call: `lower(scenario, calibration) -> Lowered`.

    simulate(scenario) = readback(run(lower(scenario, calibration)))

Every face that runs the core goes through here: `simulate` (the scenario's
traffic and operations), `flows` (a traffic matrix), `ntttcp` (a predicted
test), and through `simulate` `check`, `compare`, `sweep`, `advise` and
`explain`. The steps, in order:

1. **collect**: the network (`NetworkModel`: fabric, routing, cores,
   endpoints, teams); the connection requests (the scenario's traffic, or
   those given) and which of them no cabled path joins; the operations'
   live migrations (`operations.py`, `migrations.py`) and the ones refused;
   the endpoints the migrations leave by; each connection's and migration's
   paths, the SMB limits, the busy guests;
2. **emit**: the run's spec (`specs.RunSpec`): resources, NICs, teams,
   endpoints, paths and the changes that hold resources and links down.

`Lowered` keeps the spec and what read-back needs to name the core's report
(the network model, each connection's traffic entry, the operations' plan
and migrations). Nothing here runs the core or raises for what the scenario
asks: a connection with no cabled path, or a migration that cannot be
planned, is listed (`unreachable`, `refused`) for the face to report in its
own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hvnet.calibration import Calibration
from hvnet.errors import Problem
from hvnet.lower import specs
from hvnet.lower.frames import path_warnings
from hvnet.lower.migrations import (
    MigrationRequest,
    guest_specs,
    migration_ends,
    migration_requests,
    migration_specs,
    smb_limits,
)
from hvnet.lower.network import ConnectionRequest, NetworkModel
from hvnet.lower.operations import Plan
from hvnet.model import Scenario
from hvnet.units import bytes_per_s

__all__ = ["Lowered", "lower", "traffic_requests"]


@dataclass(frozen=True)
class Lowered:
    """One scenario as the core takes it, and what read-back needs to name what it reports."""

    scenario: Scenario
    spec: specs.RunSpec
    model: NetworkModel
    requests: tuple[ConnectionRequest, ...]
    #: The scenario's traffic entry of each request (`traffic_requests`); empty when the requests were given.
    owner: tuple[int, ...]
    plan: Plan
    migrations: tuple[MigrationRequest, ...]
    #: (request index, why) for each request no cabled path joins; the operations' migrations refused.
    unreachable: tuple[tuple[int, str], ...] = ()
    refused: tuple[Problem, ...] = ()
    #: One line per NIC pair of the scenario's traffic whose full-size frames a switch drops.
    warnings: tuple[str, ...] = field(default=())

    @property
    def runnable(self) -> bool:
        """Whether the core can run it: every request joined, no migration refused."""
        return not self.unreachable and not self.refused


def traffic_requests(scenario: Scenario) -> tuple[list[ConnectionRequest], list[int]]:
    """The scenario's traffic as connection requests (each entry's `connections` split its size, or
    a steady flow's rate, evenly; a steady flow stops at the end of its duration), and each
    request's traffic entry."""
    requests: list[ConnectionRequest] = []
    owner: list[int] = []
    for index, traffic in enumerate(scenario.traffic):
        n = traffic.connections
        stretches: list[tuple[float, float | None, float | None, float]]
        if traffic.size is not None:
            stretches = [(traffic.start, None, None, traffic.size / n)]
        else:  # a steady flow, or each step of a series: its connections from its time to the next
            stretches = [(at, to, bps / n, bytes_per_s(bps) * (to - at) / n) for at, to, bps in traffic.segments()]
        for at, to, rate, amount in stretches:
            for _ in range(n):
                requests.append(ConnectionRequest(traffic.src, traffic.dst, amount, at, to, rate))
                owner.append(index)
    return requests, owner


def lower(
    scenario: Scenario,
    calibration: Calibration | None = None,
    requests: Sequence[ConnectionRequest] | None = None,
    *,
    filename: str | None = None,
    record: bool = True,
    links_only: bool = False,
) -> Lowered:
    """The scenario lowered for one run of the core (see the module header).

    `requests`: the connections to run instead of the scenario's traffic (a traffic matrix, a
    test); the scenario's operations are then left out. `record`: record each resource's use
    over time. `links_only`: the links alone at their line rate (no frame overhead, no CPU: the
    pure max-min model). `filename` names the scenario in the refused migrations' problems
    (default: the file it was loaded from)."""
    calibration = calibration or Calibration()
    filename = scenario.source if filename is None else filename
    model = NetworkModel(scenario, calibration, links_only=links_only)
    # Collect.
    own_traffic = requests is None
    if requests is None:
        wanted, owner = traffic_requests(scenario)
    else:
        wanted, owner = list(requests), []
    unreachable = model.unreachable(wanted)
    if own_traffic:
        plan, migrations, refused = migration_requests(scenario, filename, calibration, model.routing)
    else:
        plan, migrations, refused = Plan(), [], []
    ends = migration_ends(model, migrations)
    talking = {end for r in wanted for end in (r.source, r.target)}
    endpoints, index = model.endpoint_specs(talking)
    connections = model.connection_specs(wanted, index)
    limits = smb_limits(model, migrations)
    moves = migration_specs(model, migrations, ends, index, limits)
    busy = guest_specs(model, index, migrations)
    # Emit: the network once every path is known, then the changes (which black holes the paths use).
    network = model.network_spec(endpoints)
    spec = specs.RunSpec(
        network=network,
        connections=tuple(connections),
        changes=tuple(model.changes()),
        migrations=(),
        guests=tuple(busy),
        record=record,
        migration_table=moves,
    )
    warnings = path_warnings(scenario, model.routing, model.endpoints) if own_traffic else []
    return Lowered(
        scenario=scenario,
        spec=spec,
        model=model,
        requests=tuple(wanted),
        owner=tuple(owner),
        plan=plan,
        migrations=tuple(migrations),
        unreachable=tuple(unreachable),
        refused=tuple(refused),
        warnings=tuple(warnings),
    )
