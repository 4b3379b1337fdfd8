"""Live migrations as the core's inputs: what the operations ask for, over which transport.

The migrations a scenario's operations make (`operations.py`) become
requests, each sent with its source host's performance option, then the
core's migration arguments. The pre-copy machine (`crates/migration`) and
the way it drives connections do the work.

- **TCP/IP**: each step of a migration (a pass, then the blackout copy) is one
  TCP connection from the source host to the destination host, on port 6600;
  the team member and the cores follow the rules of any connection.
- **SMB** (Multichannel; SMB Direct when both ends have RDMA interfaces):
  each step is spread over SMB's channels (`interfaces.smb_channels`); the
  core gives each a source port such that, as far as the receiving host's RSS
  queues allow, it lands on a core of its own. SMB Direct moves data with next to
  no CPU (`CpuParameters.rdma_cycles_per_byte`). A host's SMB bandwidth
  limit for live migration is a resource all its SMB migrations pass.
- **Compression**: each step is one TCP connection that carries the step's
  memory compressed (`CompressionParameters`: ratio by content, zero pages
  nearly free) and costs compression cycles spread over all the source host's
  cores and decompression cycles over the destination's; its weight is low,
  so it uses only CPU (and bandwidth) that nothing else wants — the guests'
  own work included (a VM's `cpu_load`, which stays on the source host until
  its migration ends; `guest_specs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from hvnet.calibration import Calibration
from hvnet.errors import Problem
from hvnet.lower import specs
from hvnet.lower.channels import ChannelShapes, channel_specs
from hvnet.lower.interfaces import Known, SmbChannel, migration_network, smb_channels
from hvnet.lower.network import NetworkModel
from hvnet.lower.operations import Gate, Plan, plan_operations
from hvnet.lower.routing import Routing
from hvnet.model import Scenario
from hvnet.units import bytes_per_s

__all__ = [
    "MigrationRequest",
    "MigrationRoute",
    "Steps",
    "VmMemory",
    "guest_specs",
    "migration_ends",
    "migration_requests",
    "migration_specs",
    "smb_limits",
]

#: Live migration over TCP/IP listens on port 6600 (BEHAVIOUR.md).
LIVE_MIGRATION_PORT = 6600
#: Source ports of migrations' connections start here.
MIGRATION_SOURCE_PORT = 64000


class Steps(NamedTuple):
    """Pre-copy's limits and set-up, the same for every migration of a run (`MigrationParameters`)."""

    max_passes: int
    stop_bytes: float
    setup_s: float
    #: The part of `setup_s` each host does for one migration at a time (`MigrationParameters.setup_serial_s`).
    setup_serial_s: float
    #: Bytes of memory per second the source prepares, in series with the transfer; None: no such time.
    prepare_bytes_per_s: float | None


class VmMemory(NamedTuple):
    """A VM's memory as its migrations send it, in bytes and bytes/s."""

    assigned_bytes: float
    populated_bytes: float
    #: Bytes per second the guest writes.
    dirty_bytes_per_s: float
    working_set_bytes: float
    device_state_bytes: float
    incompressible_bytes: float


@dataclass(frozen=True, slots=True, eq=False)
class MigrationRoute:
    """What every migration from one host to another shares: the source's option, its transport,
    the hosts' queues and the switch-over (made once per pair of hosts; equal only to itself)."""

    source: str
    target: str
    option: str
    #: SMB's connections (`interfaces.SmbChannel`); empty for TCP/IP and Compression.
    channels: tuple[SmbChannel, ...]
    #: The NIC or team each host uses (a live migration network); None: the host's own.
    via: tuple[str, str] | None
    #: How many migrations its source and its destination host each take part in at once (the rest wait).
    simultaneous: int
    simultaneous_in: int
    switchover_s: float


class MigrationRequest(NamedTuple):
    """A VM's live migration between two hosts (TCP/IP: one connection per step): the VM, what it
    shares with every migration between the same hosts (`route`), its memory, when it is asked for
    (`gate`: at `at_s`, or `delay_s` after the migrations of `after`, earlier ones, end) and
    pre-copy's limits; made once per migration, so a few fields, the rest read through them."""

    vm: str
    route: MigrationRoute
    memory: VmMemory
    gate: Gate
    steps: Steps
    #: The Compression option's costs; None for the other options.
    compression: specs.Compression | None

    @property
    def source(self) -> str:
        return self.route.source

    @property
    def target(self) -> str:
        return self.route.target

    @property
    def channels(self) -> tuple[SmbChannel, ...]:
        return self.route.channels

    @property
    def via(self) -> tuple[str, str] | None:
        return self.route.via

    @property
    def at_s(self) -> float:
        return self.gate.at_s

    @property
    def after(self) -> tuple[int, ...]:
        return self.gate.after

    @property
    def delay_s(self) -> float:
        return self.gate.delay_s


def migration_requests(
    scenario: Scenario,
    filename: str,
    calibration: Calibration,
    routing: Routing,
) -> tuple[Plan, list[MigrationRequest], list[Problem]]:
    """The migrations the scenario's operations make (`operations.py`), as
    requests for the core, each sent with its source host's option."""
    parameters = calibration.migration
    plan, problems = plan_operations(scenario, filename)
    requests = []
    known = Known()  # each host's interfaces, made once
    c = calibration.compression
    compressed = specs.Compression(
        ratio=c.ratio,
        zero_ratio=c.zero_ratio,
        compress_cycles_per_byte=c.compress_cycles_per_byte,
        decompress_cycles_per_byte=c.decompress_cycles_per_byte,
        zero_cycles_per_byte=c.zero_cycles_per_byte,
        weight=c.weight,
    )
    steps = Steps(
        parameters.max_passes,
        parameters.stop_bytes,
        parameters.setup_s,
        min(parameters.setup_serial_s, parameters.setup_s),
        parameters.prepare_bytes_per_s,
    )
    #: What every migration between two hosts shares, by pair (a text: why none can go).
    routes: dict[tuple[str, str], MigrationRoute | str] = {}
    #: Each VM's memory, read once (a rolling update moves it out and back).
    memories: dict[str, VmMemory] = {}
    for move in plan.moves:
        route = routes.get((move.source, move.target))
        if route is None:
            route = routes[move.source, move.target] = _route(
                scenario, calibration, routing, known, move.source, move.target
            )
        if isinstance(route, str):
            problems.append(Problem(filename, None, f"events[{move.event}]", route))
            continue
        memory = memories.get(move.vm)
        if memory is None:
            vm = scenario.vm(move.vm)
            memory = memories[move.vm] = VmMemory(
                float(vm.memory),
                float(vm.populated),
                bytes_per_s(vm.dirty_rate),
                float(vm.working_set),
                float(vm.device_state),
                float(vm.incompressible),
            )
        compression = (
            None
            if route.option != "compression"
            else _for_content(compressed, memory.populated_bytes, memory.incompressible_bytes)
        )
        requests.append(MigrationRequest(move.vm, route, memory, move.gate, steps, compression))
    return plan, requests, _unique(problems)


def _route(
    scenario: Scenario,
    calibration: Calibration,
    routing: Routing,
    known: Known,
    source: str,
    target: str,
) -> MigrationRoute | str:
    """The transport, queues and switch-over of the migrations from `source` to `target` (its source's
    option), or why none can go."""
    host, other = scenario.host(source), scenario.host(target)
    option, wake = known.migrating(host, calibration.cpu)
    if option in ("smb", "smb_direct"):
        picked = smb_channels(scenario, source, target, calibration.smb, known)
    else:
        network = migration_network(scenario, routing, source, target, known)
        picked = network if isinstance(network, str) else ((), network)
    if isinstance(picked, str):
        return picked
    channels, via = picked
    if option == "smb_direct" and not (channels and channels[0].rdma):  # SMB's channels are all RDMA or none
        return (
            f"{source} asks for smb_direct, but {source} and {target} do not both have an RDMA "
            "interface for live migration (a NIC with rdma: true outside LBFO teams, or a SET team of RDMA "
            "NICs); SMB would run over TCP: use option smb to simulate that"
        )
    switchover_s = calibration.migration.switchover_of(wake, known.migrating(other, calibration.cpu)[1])
    return MigrationRoute(
        source,
        target,
        option,
        channels,
        via,
        host.live_migration.simultaneous,
        other.live_migration.simultaneous,
        switchover_s,
    )


def _unique(problems: list[Problem]) -> list[Problem]:
    """Each problem once (a drain's VMs may all hit the same one)."""
    return list(dict.fromkeys(problems))


def migration_ends(model: NetworkModel, migrations: Sequence[MigrationRequest]) -> list[tuple[str, str]]:
    """The endpoints each migration's connections leave and arrive by: its hosts', or
    their endpoints on its live migration network (added to the model's endpoints)."""
    #: Each route's ends (one route per pair of hosts, `migration_requests`), whose endpoints are added once.
    made: dict[MigrationRoute, tuple[str, str]] = {}
    ends = []
    for m in migrations:
        end = made.get(m.route)
        if end is None:
            end = made[m.route] = _ends(model, m.route)
        ends.append(end)
    return ends


def _ends(model: NetworkModel, route: MigrationRoute) -> tuple[str, str]:
    """A route's endpoints, its channels' endpoints added (`migration_ends`)."""
    source, target = model.scenario.host(route.source), model.scenario.host(route.target)
    if route.via is None:
        end = (route.source, route.target)
    else:
        end = (model.endpoints.via(source, route.via[0]), model.endpoints.via(target, route.via[1]))
    # SMB over several team interfaces: each channel from its own (several channels per interface).
    for out, into in dict.fromkeys(channel.via for channel in route.channels if channel.via is not None):
        model.endpoints.via(source, out)
        model.endpoints.via(target, into)
    return end


def smb_limits(model: NetworkModel, migrations: Sequence[MigrationRequest]) -> dict[str, int]:
    """A resource per host that limits its SMB live migrations, all together
    (`Set-SmbBandwidthLimit -Category LiveMigration`), for the hosts that have one."""
    limits = {}
    for source in dict.fromkeys(m.source for m in migrations if m.channels):  # each host once, in order
        limit = model.scenario.host(source).live_migration.smb_bandwidth_limit
        if limit is not None:
            limits[source] = model.fabric.add(f"SMB bandwidth limit for live migration of {source}", bytes_per_s(limit))
    return limits


def guest_specs(
    model: NetworkModel, index: dict[str, int], migrations: Sequence[MigrationRequest]
) -> list[specs.Guest]:
    """The busy VMs' own CPU load for the core: (the endpoint of the host it
    starts on, cores' worth of work = vCPUs × cpu_load, the migrations that
    move it, its vCPUs). The core spreads it evenly over its host's cores
    and moves it to the destination when a migration ends, and keeps each
    of its vCPUs `cpu_load` busy (crates/migration/src/guests.rs).
    Without a CPU model there are no cores to load."""
    if model.cpu is None:
        return []
    moves: dict[str, list[int]] = {}
    for i, m in enumerate(migrations):
        moves.setdefault(m.vm, []).append(i)
    return [
        specs.Guest(
            host=index[vm.host],
            cores=vm.vcpus * vm.cpu_load,
            migrations=tuple(moves.get(vm.name, ())),
            vcpus=tuple(model.cpu.vcpus.get(vm.name, [])),
        )
        for vm in model.scenario.vms
        if vm.cpu_load > 0
    ]


def migration_specs(
    model: NetworkModel,
    migrations: Sequence[MigrationRequest],
    ends: Sequence[tuple[str, str]],
    index: dict[str, int],
    limits: dict[str, int],
) -> specs.MigrationTable:
    """The core's arguments of each migration, a row each (`specs.MigrationTable`): its route
    (endpoints, `ends`, `migration_ends`, by `index`; hosts, queues, SMB channels whose ports the
    core picks, crates/migration/src/transport.rs; limit; pre-copy), ports, memory, compression
    and waits."""
    hosts = {h.name: i for i, h in enumerate(model.scenario.hosts)}
    rdma_cost = model.cpu.parameters.rdma_cost() if model.cpu is not None else 0.0
    shapes = ChannelShapes()
    #: What the core is given alike for each migration of a route (`specs.MigrationRoute`), made once
    #: per route and pair of endpoints, by index.
    made: dict[tuple[str, str, MigrationRoute], int] = {}
    routes: list[specs.MigrationRoute] = []
    #: Pre-copy's limits alike (the run's steps, a switch-over) are one spec.
    precopies: dict[tuple[Steps, float], specs.Precopy] = {}
    #: Memories alike are one spec (VMs of one size), and compressions alike one (by identity: kept).
    memories: dict[VmMemory, int] = {}
    memory_specs: list[specs.GuestMemory] = []
    compressions: dict[int, int] = {}
    compression_specs: list[specs.Compression] = []
    route_of: list[int] = []
    memory_of: list[int] = []
    ports: list[tuple[int, int]] = []
    prepare: list[float | None] = []
    at_s: list[float] = []
    after: list[tuple[int, ...]] = []
    delay_s: list[float] = []
    compression_of: list[int | None] = []
    for i, (m, (source, target)) in enumerate(zip(migrations, ends)):
        route = m.route
        k = made.get((source, target, route))
        if k is None:
            model.add_paths(source, target)
            k = made[source, target, route] = len(routes)
            precopy = precopies.get((m.steps, route.switchover_s))
            if precopy is None:
                precopy = precopies[m.steps, route.switchover_s] = specs.Precopy(
                    m.steps.max_passes, m.steps.stop_bytes, route.switchover_s, m.steps.setup_s, m.steps.setup_serial_s
                )
            routes.append(
                specs.MigrationRoute(
                    index[source],
                    index[target],
                    (hosts[route.source], hosts[route.target]),
                    (route.simultaneous, route.simultaneous_in),
                    channel_specs(model, route.source, route.target, route.channels, index, rdma_cost, shapes),
                    limits.get(route.source) if route.channels else None,
                    precopy,
                )
            )
        memory = memories.get(m.memory)
        if memory is None:
            memory = memories[m.memory] = len(memory_specs)
            memory_specs.append(specs.GuestMemory(*m.memory[:5]))
        compression = m.compression
        if compression is not None:
            c = compressions.get(id(compression))
            if c is None:
                c = compressions[id(compression)] = len(compression_specs)
                compression_specs.append(compression)
            compression_of.append(c)
        else:
            compression_of.append(None)
        gate = m.gate
        route_of.append(k)
        memory_of.append(memory)
        ports.append((MIGRATION_SOURCE_PORT + i % 1000, LIVE_MIGRATION_PORT))
        prepare.append(m.steps.prepare_bytes_per_s)
        at_s.append(gate.at_s)
        after.append(gate.after)
        delay_s.append(gate.delay_s)
    return specs.MigrationTable(
        tuple(routes),
        tuple(memory_specs),
        tuple(compression_specs),
        tuple(route_of),
        tuple(memory_of),
        tuple(ports),
        tuple(prepare),
        tuple(at_s),
        tuple(after),
        tuple(delay_s),
        tuple(compression_of),
    )


def _for_content(compressed: specs.Compression, populated: float, incompressible: float) -> specs.Compression:
    """Compression's bytes per byte of a VM's populated memory: `ratio` for what compresses, 1 for its
    incompressible part (sent as it is); zero pages keep `zero_ratio`."""
    if incompressible <= 0 or populated <= 0:
        return compressed
    share = min(1.0, incompressible / populated)
    return replace(compressed, ratio=(1 - share) * compressed.ratio + share)
