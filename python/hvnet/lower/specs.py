"""The specs of one run of the Rust core, field for field as the core reads them.

Frozen, slotted dataclasses that mirror `crates/network/src/spec/` and
`crates/migration/src/spec.rs`; `hvnet._core.run` reads them by attribute
(`crates/python/src/specs.rs`). Everything is by index: resources, NICs,
teams, endpoints, migrations. Units are in the names: bytes, bytes per
second, seconds, cycles per byte; a core's capacity is in cycles per second.
One spec has no counterpart there: a `Path` may name a `Middle`, the routes
between two switches that many NIC pairs share, and the glue composes each
pair's routes from it and its two cables (`crates/python/src/paths.rs`).
Thousands of NIC pairs come as one `PathTable` of columns rather than a
`Path` each (`NetworkSpec.pair_paths`), and the migrations as `Migration`s
or as rows of a `MigrationTable` naming their shared `MigrationRoute`
(`RunSpec.migration_table`); the glue expands both into the same specs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Change",
    "Channel",
    "Compression",
    "Connection",
    "Cores",
    "DynamicVmq",
    "Endpoint",
    "Guest",
    "GuestMemory",
    "Middle",
    "Migration",
    "MigrationRoute",
    "MigrationTable",
    "NetworkSpec",
    "Nic",
    "Path",
    "PathTable",
    "Precopy",
    "Resource",
    "Routes",
    "RunSpec",
    "Team",
    "Uplink",
]


@dataclass(frozen=True, slots=True)
class Resource:
    """A link direction, backplane or core: capacity in bytes/s (links) or cycles/s (cores)."""

    capacity: float
    #: Each user gets the whole capacity (a backplane) rather than a share.
    fatpipe: bool


@dataclass(frozen=True, slots=True)
class Cores:
    """How an endpoint's connections spread over cores (resource ids)."""

    kind: Literal["none", "rss", "queue", "spread"]
    cores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Nic:
    """A NIC: the resource ids of its cable's two directions, and the cores its RSS receives a host's own
    traffic on (none: the endpoints' sets; a VM's traffic keeps its VMQ queue or vRSS spread)."""

    send: int
    receive: int
    rss: Cores = Cores("none", ())


@dataclass(frozen=True, slots=True)
class Team:
    """A team of NICs (indices); mode, balancing and switch hash by name."""

    members: tuple[int, ...]
    standby: int | None
    #: "switch_independent", "static" or "lacp".
    mode: str
    #: "transport_ports", "ip_addresses", "mac_addresses", "hyperv_port" or "dynamic".
    balancing: str
    #: What the switch hashes: "transport_ports", "ip_addresses" or "mac_addresses".
    switch_hash: str


@dataclass(frozen=True, slots=True)
class Uplink:
    """What carries an endpoint's traffic: a NIC or a team, by index."""

    kind: Literal["nic", "team"]
    index: int


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A host or VM that sends or receives."""

    uplink: Uplink
    #: Its port on the vSwitch.
    port: int
    address: str
    mac: tuple[int, int, int, int, int, int]
    send_cores: Cores
    receive_cores: Cores
    #: All the cores of its host (compression spreads over them).
    host_cores: tuple[int, ...]
    #: The cores dynamic VMQ may move its queue among; empty: none.
    queue_cores: tuple[int, ...]
    #: A VM's vCPUs its own stack sends and receives on.
    guest_send_cores: Cores
    guest_receive_cores: Cores


#: One way through the fabric: (resource, use per payload byte) of each link and backplane.
Route = tuple[tuple[int, float], ...]


@dataclass(frozen=True, slots=True)
class Routes:
    """The equal-cost routes between two NICs from `from_s` on (at least one); a connection
    takes route `ECMP hash mod len(ecmp)`."""

    from_s: float
    ecmp: tuple[Route, ...]


@dataclass(frozen=True, slots=True)
class Middle:
    """The routes between two switches at one packet size, shared by the NIC pairs whose cables
    meet those switches (`Path.middle`): the core makes each of a pair's routes the cable out of
    its source NIC, a route of the middle, the cable into its target NIC."""

    #: The routes in force from each time on (the first from 0, at least one each time): each
    #: the resources between the pair's two cables with their use per payload byte, or None
    #: where a switch on it drops the packets (the pair's route is then `dropped`).
    routing: tuple[tuple[float, tuple[Route | None, ...]], ...]
    #: The use per payload byte of the pair's two cables.
    coefficient: float
    #: A pair's whole route in place of a route given as None (the frames-dropped resource).
    dropped: Route = ()


@dataclass(frozen=True, slots=True)
class Path:
    """What a connection from NIC `out_nic` to NIC `in_nic` uses per payload byte: its routes as
    given (`routing`), or those its NICs' cables make around a `middle` other pairs share."""

    out_nic: int
    in_nic: int
    #: The routes in force from each time on: the first from 0, then one each time the
    #: fabric's routing converges on a failure or a repair (`lower/routing.py`). Empty
    #: with a `middle`.
    routing: tuple[Routes, ...]
    send_cycles_per_byte: float
    receive_cycles_per_byte: float
    guest_send_cycles_per_byte: float
    guest_receive_cycles_per_byte: float
    #: The path of connections whose endpoints send packets of at most this many bytes
    #: (`Connection.endpoint_mtu`); None: the NICs' own path.
    endpoint_mtu: int | None = None
    #: Its routes between its NICs' switches (`NetworkSpec.middles`, by index) in place of
    #: `routing`, each between the resources of the cable out of NIC `out_nic` and of the
    #: cable into NIC `in_nic` (None: a cable from NIC to NIC, the one cable alone).
    middle: int | None = None
    out_cable: int | None = None
    in_cable: int | None = None


#: Cycles per payload byte on the sending and receiving core and vCPU.
Costs = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class PathTable:
    """The NIC pairs' own paths (no endpoint MTU) as columns of equal length, one row per pair:
    the same as a `Path` each, without an object per pair (`NetworkSpec.pair_paths`)."""

    out_nic: tuple[int, ...]
    in_nic: tuple[int, ...]
    #: Each pair's middle (`Path.middle`), or None: its routes are `routings[routing]`.
    middle: tuple[int | None, ...]
    routing: tuple[int | None, ...]
    #: The cables around its middle (`Path.out_cable`, `Path.in_cable`); None without one.
    out_cable: tuple[int | None, ...]
    in_cable: tuple[int | None, ...]
    #: Its cycles per payload byte: `costs[cost]`.
    cost: tuple[int, ...]
    #: The routes over time that pairs without a middle name (a pair with no cabled path).
    routings: tuple[tuple[Routes, ...], ...]
    costs: tuple[Costs, ...]


@dataclass(frozen=True, slots=True)
class DynamicVmq:
    """Dynamic VMQ: how often queues spread again, and the busy share of a core (0, 1]."""

    interval_s: float
    busy: float


@dataclass(frozen=True, slots=True)
class NetworkSpec:
    """The network: resources, NICs, teams, endpoints, paths and parameters."""

    resources: tuple[Resource, ...]
    nics: tuple[Nic, ...]
    teams: tuple[Team, ...]
    endpoints: tuple[Endpoint, ...]
    paths: tuple[Path, ...]
    lacp_timeout_s: float
    #: Each NIC's LACP timeout (its LACP team's timer); empty: `lacp_timeout_s` for all.
    nic_lacp_timeouts_s: tuple[float, ...]
    rebalance_interval_s: float | None
    dynamic_vmq: DynamicVmq | None
    #: A host's own connection received by RSS on a core where m other NICs receive by RSS now
    #: costs 1 + shared_queue_overhead × m times its cycles per byte there.
    shared_queue_overhead: float
    #: Measured load replayed on resources (a host NIC's counters), as background work.
    loads: tuple[Load, ...] = ()
    #: The routes between switches that paths share (`Path.middle`).
    middles: tuple[Middle, ...] = ()
    #: The NIC pairs' own paths as one table, read before `paths` (a pair in both: `paths`'s).
    pair_paths: PathTable | None = None


@dataclass(frozen=True, slots=True)
class Load:
    """Measured load on one resource: (from time, rate in bytes/s) steps; the last holds to the end."""

    resource: int
    steps: tuple[tuple[float, float], ...]
    #: Its weight in the max-min share: the line bytes per payload byte of the NIC's frames, so that it
    #: gets the share of the line a connection of that MTU gets.
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Connection:
    """A connection between two endpoints (indices)."""

    source: int
    target: int
    ports: tuple[int, int] | None
    amount_bytes: float
    start_s: float
    #: When the sender stops; None: when its amount is done.
    stop_s: float | None
    #: The NIC pair it is bound to instead of the one the team rules give (traffic inside one
    #: virtual switch: its internal pair); None: the rules decide.
    pinned: tuple[int, int] | None = None
    #: The largest IP packet its endpoints' own stacks send (the smaller VM MTU); its paths are
    #: then those recorded for that MTU. None: the NICs' own paths.
    endpoint_mtu: int | None = None
    #: The most it sends, in payload bytes per second (a steady flow); None: as fast as its share allows.
    bound_bytes_per_s: float | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """A resource or a NIC's link goes down (`up=False`) or comes back."""

    at_s: float
    kind: Literal["resource", "link"]
    index: int
    up: bool


@dataclass(frozen=True, slots=True)
class GuestMemory:
    """A VM's memory as pre-copy sees it."""

    assigned_bytes: float
    populated_bytes: float
    dirty_bytes_per_s: float
    working_set_bytes: float
    device_state_bytes: float


@dataclass(frozen=True, slots=True)
class Precopy:
    """Pre-copy's limits: passes, the size small enough to stop at, the switch-over, and the set-up
    before the first pass (work that does not scale with memory)."""

    max_passes: int
    stop_bytes: float
    switchover_s: float
    setup_s: float = 0.0
    #: The part of `setup_s` each host does for one migration at a time (concurrent ones take turns).
    setup_serial_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Channel:
    """An SMB channel: bound to a NIC pair (None: the team rules place it, by the port
    the core picks for it), with cycles per byte on the sending and receiving cores
    (None: the path's)."""

    nics: tuple[int, int] | None
    cycles_per_byte: tuple[float, float] | None
    #: The endpoints it joins instead of the migration's (a team interface of its own); None: the migration's.
    endpoints: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Compression:
    """The Compression option: compressed bytes per byte, cycles per byte, weight."""

    ratio: float
    zero_ratio: float
    compress_cycles_per_byte: float
    decompress_cycles_per_byte: float
    zero_cycles_per_byte: float
    weight: float


@dataclass(frozen=True, slots=True)
class Migration:
    """One VM's live migration between two host endpoints."""

    source: int
    target: int
    ports: tuple[int, int]
    memory: GuestMemory
    precopy: Precopy
    prepare_bytes_per_s: float | None
    at_s: float
    #: Its source and destination hosts (their numbers), and how many live migrations each
    #: takes part in at once, outgoing and incoming alike.
    hosts: tuple[int, int]
    simultaneous: tuple[int, int]
    #: SMB channels; empty for TCP/IP and Compression.
    channels: tuple[Channel, ...]
    compression: Compression | None
    #: Earlier migrations it waits for, and the pause after the last ends.
    after: tuple[int, ...]
    delay_s: float
    #: A resource all its bytes pass (a host's SMB limit); None: none.
    through: int | None


@dataclass(frozen=True, slots=True)
class MigrationRoute:
    """What every migration of a table between two endpoints shares (`Migration`'s fields of the
    same names)."""

    source: int
    target: int
    hosts: tuple[int, int]
    simultaneous: tuple[int, int]
    channels: tuple[Channel, ...]
    through: int | None
    precopy: Precopy


@dataclass(frozen=True, slots=True)
class MigrationTable:
    """Migrations as columns of equal length, one row each (`RunSpec.migration_table`): the same as a
    `Migration` each, its route, memory and compression by index into the few the table holds."""

    routes: tuple[MigrationRoute, ...]
    memories: tuple[GuestMemory, ...]
    compressions: tuple[Compression, ...]
    route: tuple[int, ...]
    memory: tuple[int, ...]
    ports: tuple[tuple[int, int], ...]
    prepare_bytes_per_s: tuple[float | None, ...]
    at_s: tuple[float, ...]
    after: tuple[tuple[int, ...], ...]
    delay_s: tuple[float, ...]
    #: None: not the Compression option.
    compression: tuple[int | None, ...]

    def migrations(self) -> tuple[Migration, ...]:
        """Each row as the `Migration` the core makes of it, in row order."""
        out = []
        for r, m, ports, prepare, at_s, after, delay_s, c in zip(
            self.route,
            self.memory,
            self.ports,
            self.prepare_bytes_per_s,
            self.at_s,
            self.after,
            self.delay_s,
            self.compression,
            strict=True,
        ):
            route = self.routes[r]
            out.append(
                Migration(
                    route.source,
                    route.target,
                    ports,
                    self.memories[m],
                    route.precopy,
                    prepare,
                    at_s,
                    route.hosts,
                    route.simultaneous,
                    route.channels,
                    None if c is None else self.compressions[c],
                    after,
                    delay_s,
                    route.through,
                )
            )
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Guest:
    """A busy VM's own CPU load: its host endpoint at the start, cores' worth of
    work, the migrations that move it, and its vCPUs (resources)."""

    host: int
    cores: float
    migrations: tuple[int, ...]
    vcpus: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One run: the network, connections, changes, migrations and guests."""

    network: NetworkSpec
    connections: tuple[Connection, ...]
    changes: tuple[Change, ...]
    migrations: tuple[Migration, ...]
    guests: tuple[Guest, ...]
    #: Record each resource's use over time (as change points).
    record: bool
    #: Migrations as rows, after `migrations` (their indices, for `after` and `Guest.migrations`,
    #: continue those of `migrations`).
    migration_table: MigrationTable | None = None

    def all_migrations(self) -> tuple[Migration, ...]:
        """Every migration of the run, in the core's order: `migrations`, then the table's rows."""
        if self.migration_table is None:
            return self.migrations
        return self.migrations + self.migration_table.migrations()
