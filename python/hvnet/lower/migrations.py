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
from hvnet.lower.interfaces import Known, SmbChannel, migration_network, smb_channels
from hvnet.lower.network import NetworkModel
from hvnet.lower.operations import Plan, plan_operations
from hvnet.lower.routing import Routing
from hvnet.model import Scenario
from hvnet.units import bytes_per_s

__all__ = ["MigrationRequest", "guest_specs", "migration_ends", "migration_requests", "migration_specs", "smb_limits"]

#: Live migration over TCP/IP listens on port 6600 (BEHAVIOUR.md).
LIVE_MIGRATION_PORT = 6600
#: Source ports of migrations' connections start here.
MIGRATION_SOURCE_PORT = 64000


@dataclass(frozen=True)
class MigrationRequest:
    """A VM's live migration between two hosts (TCP/IP: one connection per step)."""

    vm: str
    source: str
    target: str
    at_s: float
    assigned_bytes: float
    populated_bytes: float
    #: Bytes per second the guest writes.
    dirty_bytes_per_s: float
    working_set_bytes: float
    device_state_bytes: float
    #: How many migrations its source and its destination host each take part in at once (the rest wait).
    simultaneous: int
    simultaneous_in: int
    max_passes: int
    stop_bytes: float
    switchover_s: float
    #: Before the first pass: negotiation, the destination's VM and its checks (`MigrationParameters.setup_s`).
    setup_s: float
    #: The part of it each host does for one migration at a time (`MigrationParameters.setup_serial_s`).
    setup_serial_s: float = 0.0
    #: Bytes of memory per second the source prepares, in series with the transfer; None: no such time.
    prepare_bytes_per_s: float | None = None
    #: SMB's connections (`interfaces.SmbChannel`); empty for TCP/IP and Compression.
    channels: tuple[SmbChannel, ...] = ()
    #: The Compression option's costs; None for the other options.
    compression: specs.Compression | None = None
    #: Migrations (indices, earlier ones) that must end before it is asked
    #: for, and the pause after the last of them: it is asked for then, or at
    #: `at_s` if later. Empty: at `at_s`.
    after: tuple[int, ...] = ()
    delay_s: float = 0.0
    #: The NIC or team each host uses for it (a live migration network); None: the host's own.
    via: tuple[str, str] | None = None


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
    setup_serial_s = min(parameters.setup_serial_s, parameters.setup_s)
    #: What every migration between two hosts shares (hosts, option, transport, queues, switch-over), by pair.
    pairs: dict[tuple[str, str], _Pair | str] = {}
    #: Each VM's memory, read once (a rolling update moves it out and back).
    memories: dict[str, _Memory] = {}
    for move in plan.moves:
        pair = pairs.get((move.source, move.target))
        if pair is None:
            pair = pairs[move.source, move.target] = _pair(
                scenario, filename, calibration, routing, known, move.source, move.target
            )
        if isinstance(pair, str):
            problems.append(Problem(filename, None, f"events[{move.event}]", pair))
            continue
        memory = memories.get(move.vm)
        if memory is None:
            vm = scenario.vm(move.vm)
            memory = memories[move.vm] = _Memory(
                float(vm.memory),
                float(vm.populated),
                bytes_per_s(vm.dirty_rate),
                float(vm.working_set),
                float(vm.device_state),
                float(vm.incompressible),
            )
        compression = (
            None
            if pair.option != "compression"
            else _for_content(compressed, memory.populated_bytes, memory.incompressible_bytes)
        )
        requests.append(
            MigrationRequest(
                vm=move.vm,
                source=move.source,
                target=move.target,
                at_s=move.gate.at_s,
                assigned_bytes=memory.assigned_bytes,
                populated_bytes=memory.populated_bytes,
                dirty_bytes_per_s=memory.dirty_bytes_per_s,
                working_set_bytes=memory.working_set_bytes,
                device_state_bytes=memory.device_state_bytes,
                simultaneous=pair.simultaneous,
                simultaneous_in=pair.simultaneous_in,
                max_passes=parameters.max_passes,
                stop_bytes=parameters.stop_bytes,
                switchover_s=pair.switchover_s,
                setup_s=parameters.setup_s,
                setup_serial_s=setup_serial_s,
                prepare_bytes_per_s=parameters.prepare_bytes_per_s,
                channels=pair.channels,
                compression=compression,
                after=move.gate.after,
                delay_s=move.gate.delay_s,
                via=pair.via,
            )
        )
    return plan, requests, _unique(problems)


class _Memory(NamedTuple):
    """A VM's memory as its migrations send it, in bytes and bytes/s."""

    assigned_bytes: float
    populated_bytes: float
    dirty_bytes_per_s: float
    working_set_bytes: float
    device_state_bytes: float
    incompressible_bytes: float


@dataclass(frozen=True, slots=True)
class _Pair:
    """What every migration from one host to another shares."""

    option: str
    channels: tuple[SmbChannel, ...]
    via: tuple[str, str] | None
    simultaneous: int
    simultaneous_in: int
    switchover_s: float


def _pair(
    scenario: Scenario,
    filename: str,
    calibration: Calibration,
    routing: Routing,
    known: Known,
    source: str,
    target: str,
) -> _Pair | str:
    """The transport, queues and switch-over of the migrations from `source` to `target` (its source's
    option), or why none can go."""
    host, other = scenario.host(source), scenario.host(target)
    option = str(host.live_migration.option.value)
    if option in ("smb", "smb_direct"):
        picked = smb_channels(scenario, source, target, calibration.smb, known)
    else:
        network = migration_network(scenario, routing, source, target, known)
        picked = network if isinstance(network, str) else ((), network)
    if isinstance(picked, str):
        return picked
    channels, via = picked
    if option == "smb_direct" and not any(channel.rdma for channel in channels):
        return (
            f"{source} asks for smb_direct, but {source} and {target} do not both have an RDMA "
            "interface for live migration (a NIC with rdma: true outside LBFO teams, or a SET team of RDMA "
            "NICs); SMB would run over TCP: use option smb to simulate that"
        )
    switchover_s = calibration.migration.switchover_s(host, other, calibration.cpu)
    return _Pair(
        option, channels, via, host.live_migration.simultaneous, other.live_migration.simultaneous, switchover_s
    )


def _unique(problems: list[Problem]) -> list[Problem]:
    """Each problem once (a drain's VMs may all hit the same one)."""
    return list(dict.fromkeys(problems))


def migration_ends(model: NetworkModel, migrations: Sequence[MigrationRequest]) -> list[tuple[str, str]]:
    """The endpoints each migration's connections leave and arrive by: its hosts', or
    their endpoints on its live migration network (added to the model's endpoints)."""
    ends = []
    #: Each pair of hosts' ends, by its transport (`via`, and the channels: one tuple for all the pair's
    #: migrations, `migration_requests`), whose endpoints are added once.
    made: dict[tuple[str, str, tuple[str, str] | None, int], tuple[str, str]] = {}
    for m in migrations:
        key = (m.source, m.target, m.via, id(m.channels))
        end = made.get(key)
        if end is None:
            end = made[key] = _ends(model, m)
        ends.append(end)
    return ends


def _ends(model: NetworkModel, m: MigrationRequest) -> tuple[str, str]:
    """A migration's endpoints, its channels' endpoints added (`migration_ends`)."""
    source, target = model.scenario.host(m.source), model.scenario.host(m.target)
    if m.via is None:
        end = (m.source, m.target)
    else:
        end = (model.endpoints.via(source, m.via[0]), model.endpoints.via(target, m.via[1]))
    for channel in m.channels:  # SMB over several team interfaces: each channel from its own
        if channel.via is not None:
            model.endpoints.via(source, channel.via[0])
            model.endpoints.via(target, channel.via[1])
    return end


def smb_limits(model: NetworkModel, migrations: Sequence[MigrationRequest]) -> dict[str, int]:
    """A resource per host that limits its SMB live migrations, all together
    (`Set-SmbBandwidthLimit -Category LiveMigration`), for the hosts that have one."""
    limits = {}
    for m in migrations:
        limit = model.scenario.host(m.source).live_migration.smb_bandwidth_limit
        if m.channels and limit is not None and m.source not in limits:
            limits[m.source] = model.fabric.add(
                f"SMB bandwidth limit for live migration of {m.source}", bytes_per_s(limit)
            )
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
) -> list[specs.Migration]:
    """The core's arguments of each migration: its endpoints (`ends`, `migration_ends`, by
    `index`), ports, memory, pre-copy parameters, queue, SMB channels (the core picks their
    ports: crates/migration/src/transport.rs), compression and waits."""
    hosts = {h.name: i for i, h in enumerate(model.scenario.hosts)}
    out: list[specs.Migration] = []
    #: The channels of the migrations between two endpoints over the same SMB channels (made once).
    made: dict[tuple[str, str, int], tuple[specs.Channel, ...]] = {}  # by the channels' tuple (one per pair)
    #: Memories and pre-copy parameters alike are one spec (VMs of one size, hosts of one kind).
    memories: dict[tuple[float, ...], specs.GuestMemory] = {}
    precopies: dict[tuple[float, ...], specs.Precopy] = {}
    for i, (m, (source, target)) in enumerate(zip(migrations, ends)):
        key = (source, target, id(m.channels))
        if key not in made:
            model.add_paths(source, target)
            made[key] = _channels(model, m, index)
        size = (m.assigned_bytes, m.populated_bytes, m.dirty_bytes_per_s, m.working_set_bytes, m.device_state_bytes)
        memory = memories.get(size)
        if memory is None:
            memory = memories[size] = specs.GuestMemory(*size)
        steps = (m.max_passes, m.stop_bytes, m.switchover_s, m.setup_s, m.setup_serial_s)
        precopy = precopies.get(steps)
        if precopy is None:
            precopy = precopies[steps] = specs.Precopy(*steps)
        out.append(
            specs.Migration(
                source=index[source],
                target=index[target],
                ports=(MIGRATION_SOURCE_PORT + i % 1000, LIVE_MIGRATION_PORT),
                memory=memory,
                precopy=precopy,
                prepare_bytes_per_s=m.prepare_bytes_per_s,
                at_s=m.at_s,
                hosts=(hosts[m.source], hosts[m.target]),
                simultaneous=(m.simultaneous, m.simultaneous_in),
                channels=made[key],
                compression=m.compression,
                after=tuple(m.after),
                delay_s=m.delay_s,
                through=limits.get(m.source) if m.channels else None,
            )
        )
    return out


def _channels(model: NetworkModel, m: MigrationRequest, index: dict[str, int]) -> tuple[specs.Channel, ...]:
    """A migration's SMB channels for the core (each bound to its NIC pair, or its team interfaces'
    endpoints), their paths recorded."""
    channels: list[specs.Channel] = []
    rdma_cost = model.cpu.parameters.rdma_cost() if model.cpu is not None else 0.0
    made: dict[SmbChannel, specs.Channel] = {}  # a migration's channels are often alike (4 per interface)
    for channel in m.channels:
        if channel in made:
            channels.append(made[channel])
            continue
        pair = None
        if channel.out_nic is not None and channel.in_nic is not None:
            pair = (model.nic_of(channel.out_nic), model.nic_of(channel.in_nic))
            model.add_path(*pair)
        cycles = (rdma_cost, rdma_cost) if channel.rdma else None
        endpoints = None
        if channel.via is not None:
            names = (f"{m.source}/{channel.via[0]}", f"{m.target}/{channel.via[1]}")
            model.add_paths(*names)
            endpoints = (index[names[0]], index[names[1]])
        made[channel] = specs.Channel(nics=pair, cycles_per_byte=cycles, endpoints=endpoints)
        channels.append(made[channel])
    return tuple(channels)


def _for_content(compressed: specs.Compression, populated: float, incompressible: float) -> specs.Compression:
    """Compression's bytes per byte of a VM's populated memory: `ratio` for what compresses, 1 for its
    incompressible part (sent as it is); zero pages keep `zero_ratio`."""
    if incompressible <= 0 or populated <= 0:
        return compressed
    share = min(1.0, incompressible / populated)
    return replace(compressed, ratio=(1 - share) * compressed.ratio + share)
