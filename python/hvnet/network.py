"""The scenario as the Rust core sees it: NICs, teams, endpoints and paths.

This module turns names into indices and events into changes, builds the
core's typed specs (`hvnet.lower.specs`), then makes one call into the core
(`_core.run`), which picks team members, fails over, rebalances and runs the
engine (`crates/network/src/run.rs`, migrations: `crates/migration`). Paths between every pair of
NICs a connection may use come from `fabric.py`; a pair with no cabled path
goes through a resource of capacity 0, so a connection that lands there is
black-holed rather than silently rerouted. So does a pair whose full-size
frames a switch on its path drops (its MTU is too small, `frames.py`); that
resource is held down from 0 s, so the run reports such connections as
black-holed.

Events become changes of two kinds, each held down by its *causes* (a
resource, or a NIC's link, is up only when no cause holds it down):

- `nic_*`, `cable_*`, `switch_*`: the cable directions go down and the link
  of every NIC on them goes down (a team sees it at once);
- `port_blackhole`/`port_restore`: the cable directions go down but the
  link stays up (only LACP sees it, after its timeout).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, cast
from hvnet import _core, frames
from hvnet.hashing import rss_hash
from hvnet.cpu import CoreSet, CpuModel, CpuParameters, VmqParameters, coalesces
from hvnet.endpoints import Endpoints
from hvnet.fabric import Fabric, Port, build_fabric, ecmp_key
from hvnet.interfaces import SmbChannel
from hvnet.lower import specs
from hvnet.model import Scenario

__all__ = [
    "ConnectionOutcome",
    "ConnectionRequest",
    "MigrationOutcome",
    "MigrationRequest",
    "NetworkModel",
    "NetworkRun",
    "TeamingParameters",
]

#: Source ports of generated connections start here (Windows' dynamic range).
EPHEMERAL_PORT = 49152
#: Destination port of generated connections (ntttcp's default port).
SERVICE_PORT = 5001
#: Live migration over TCP/IP listens on port 6600 (BEHAVIOUR.md).
LIVE_MIGRATION_PORT = 6600
#: Source ports of migrations' connections start here.
MIGRATION_SOURCE_PORT = 64000
#: SMB listens on port 445; its channels' source ports start here.
SMB_PORT = 445
SMB_SOURCE_PORT = 63000


@dataclass(frozen=True)
class TeamingParameters:
    """The points no public source confirms, as named, documented choices."""

    #: LACP "short timer": LACPDUs every second, a partner is lost after 3 missed.
    lacp_timeout_s: float = 3.0
    #: How often a dynamic team spreads its outbound connections again (unconfirmed).
    rebalance_interval_s: float = 1.0


@dataclass(frozen=True)
class ConnectionRequest:
    """A connection to open: endpoint names, bytes, start time."""

    source: str
    target: str
    size_bytes: float
    start_s: float
    #: When the sender stops (a test that runs for a set time); None: when done.
    stop_s: float | None = None


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
    #: How many migrations its source host runs at once (the rest wait).
    simultaneous: int
    max_passes: int
    stop_bytes: float
    switchover_s: float
    #: Bytes of memory per second the source prepares, in series with the transfer; None: no such time.
    prepare_bytes_per_s: float | None = None
    #: SMB's connections (`interfaces.SmbChannel`); empty for TCP/IP and Compression.
    channels: tuple[SmbChannel, ...] = ()
    #: The Compression option: (ratio, zero-page ratio, compress, decompress and
    #: zero-page cycles per byte, weight); None otherwise.
    compression: tuple[float, float, float, float, float, float] | None = None
    #: Migrations (indices, earlier ones) that must end before it is asked
    #: for, and the pause after the last of them: it is asked for then, or at
    #: `at_s` if later. Empty: at `at_s`.
    after: tuple[int, ...] = ()
    delay_s: float = 0.0
    #: The NIC or team each host uses for it (a live migration network); None: the host's own.
    via: tuple[str, str] | None = None


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
    outcomes: list[ConnectionOutcome]
    end_s: float
    events: int
    wall_s: float
    #: Mean use (bytes/s) of each resource per bin, when recorded.
    series: list[list[float]] | None
    fabric: Fabric
    migrations: list[MigrationOutcome] = field(default_factory=list)


@dataclass
class _Changes:
    """Changes of resources and links, each held down by a set of causes."""

    held: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    out: list[tuple[float, str, int, bool]] = field(default_factory=list)

    def hold(self, at: float, kind: str, index: int, cause: str, down: bool) -> None:
        causes = self.held.setdefault((kind, index), set())
        was_up = not causes
        if down:
            causes.add(cause)
        else:
            causes.discard(cause)
        if was_up != (not causes):
            self.out.append((at, kind, index, not causes))


class NetworkModel:
    """A scenario's NICs, teams, endpoints and paths, by index for the core."""

    def __init__(
        self,
        scenario: Scenario,
        parameters: TeamingParameters | None = None,
        cpu: CpuParameters | None = None,
        links_only: bool = False,
        vmq: VmqParameters | None = None,
    ) -> None:
        """`links_only` models the links alone, at their line rate: no frame
        overhead and no CPU (the pure max-min model, as SimGrid's CM02 computes it)."""
        self.scenario = scenario
        self.parameters = parameters or TeamingParameters()
        self.vmq = vmq or VmqParameters()
        self.fabric = build_fabric(scenario)
        self.links_only = links_only
        self.cpu = None if links_only else CpuModel(scenario, self.fabric.add, cpu)
        self.endpoints = Endpoints(scenario)
        self.nic_ports: list[Port] = [Port(h.name, n.name) for h in scenario.hosts for n in h.nics]
        self.nic_index = {port: i for i, port in enumerate(self.nic_ports)}
        self._mtu = [n.mtu for h in scenario.hosts for n in h.nics]
        #: Whether each NIC coalesces what it receives (RSC on, and not under a virtual switch).
        self.coalesces = [coalesces(h, n) for h in scenario.hosts for n in h.nics]
        self._unreachable = self.fabric.add("no cabled path", 0.0)
        #: The path of NIC pairs whose full-size frames a switch drops (frames.py).
        self._frames_dropped = self.fabric.add("frames larger than a switch's MTU", 0.0)
        self.nics: list[tuple[int, int]] = []
        self.uncabled: list[int] = []
        for i, port in enumerate(self.nic_ports):
            send, receive = self.fabric.out_of.get(port), self.fabric.into.get(port)
            if send is None or receive is None:
                self.nics.append((self._unreachable, self._unreachable))
                self.uncabled.append(i)
            else:
                self.nics.append((send.resource, receive.resource))
        self.team_index: dict[tuple[str, str], int] = {}
        self.teams: list[tuple[list[int], int | None, str, str, str]] = []
        for host in scenario.hosts:
            for team in host.teams:
                self.team_index[(host.name, team.name)] = len(self.teams)
                members = [self.nic_index[Port(host.name, m)] for m in team.members]
                standby = None if team.standby is None else self.nic_index[Port(host.name, team.standby)]
                balancing = team.address_hash if team.load_balancing == "address_hash" else team.load_balancing
                switch_hash = self._switch_hash([self.nic_ports[m] for m in members])
                self.teams.append(
                    (members, standby, str(team.mode.value), str(getattr(balancing, "value", balancing)), switch_hash)
                )
        #: A team inside a VM is a switch-independent address-hash team of the NICs under its two
        #: virtual switches: the vNIC of a failed NIC shows disconnected, as the NIC's link does.
        self.vm_team_index: dict[str, int] = {}
        for vm in scenario.vms:
            if vm.team is not None:
                self.vm_team_index[vm.name] = len(self.teams)
                members = [self.nic_index[Port(vm.host, n)] for n in self.endpoints[vm.name].nics]
                switch_hash = self._switch_hash([self.nic_ports[m] for m in members])
                self.teams.append((members, None, "switch_independent", str(vm.team.address_hash.value), switch_hash))
        self._paths: dict[tuple[int, int], list[int]] = {}
        #: Use per payload byte of each NIC pair's links: frame and header overhead (frames.py).
        self._coefficients: dict[tuple[int, int], float] = {}

    def _uplink_nics(self, name: str) -> tuple[str, int, list[int]]:
        endpoint = self.endpoints[name]
        team = self.vm_team_index.get(name, self.team_index.get((endpoint.host.name, endpoint.uplink)))
        if team is not None:
            return "team", team, self.teams[team][0]
        nic = self.nic_index[Port(endpoint.host.name, endpoint.uplink)]
        return "nic", nic, [nic]

    def _switch_hash(self, members: list[Port]) -> str:
        """What the switch a team is cabled to hashes (its first member's switch)."""
        switches = {s.name: s for s in self.scenario.switches}
        for member in members:
            peer = self.fabric.peer(member)
            if peer is not None and peer.node in switches:
                return str(switches[peer.node].port_channel_hash.value)
        return "transport_ports"

    def _reachable(self, a: int, b: int) -> bool:
        """Whether NIC `a` reaches NIC `b`; records the path for the core either way."""
        if (a, b) not in self._paths:
            # The pair picks among equal-cost paths (ECMP), the same for all its connections.
            key = ecmp_key(a, b)
            path = self.fabric.path(self.nic_ports[a], self.nic_ports[b], key)
            mtus = frames.path_mtu(self.fabric, self.nic_ports[a], self.nic_ports[b], key)
            if mtus is not None:
                self._coefficients[(a, b)] = frames.wire_bytes_per_payload_byte(mtus.mss)
            if path is None:
                path = [self._unreachable]
            elif mtus is not None and mtus.breaks:
                path = [self._frames_dropped]  # a switch drops its full-size frames: black-holed
            self._paths[(a, b)] = path
        return self._paths[(a, b)] != [self._unreachable]

    def _path_usage(
        self, pair: tuple[int, int], path: list[int]
    ) -> tuple[list[tuple[int, float]], float, float, float, float]:
        """The links of a NIC pair with their use per payload byte, the
        cycles per payload byte on the sending and the receiving core, and
        on the sending and receiving VM's vCPU (where an end is a VM)."""
        if self.links_only:
            return [(r, 1.0) for r in path], 0.0, 0.0, 0.0, 0.0
        links = [(r, self._coefficients.get(pair, 1.0)) for r in path]
        if self.cpu is None:
            return links, 0.0, 0.0, 0.0, 0.0
        cpu = self.cpu.parameters
        mss = frames.mss(min(self._mtu[pair[0]], self._mtu[pair[1]]))
        receive = cpu.receive_cost(mss, self.coalesces[pair[1]])
        return links, cpu.send_cost(), receive, cpu.send_cost(), cpu.guest_receive_cost(mss)

    def _ends(self, m: MigrationRequest) -> tuple[str, str]:
        """The endpoints a migration's connections leave and arrive by."""
        if m.via is None:
            return m.source, m.target
        source, target = self.scenario.host(m.source), self.scenario.host(m.target)
        return self.endpoints.via(source, m.via[0]), self.endpoints.via(target, m.via[1])

    def _smb_ports(self, source_end: str, target_end: str, channels: int, receive_cores: list[int], first: int) -> list[int]:
        """Source ports for SMB's connections such that, as far as the receiving
        host's RSS cores allow, each lands on a core of its own (assumed: SMB
        spreads its connections over the RSS queues it opens them for). The
        core follows from the connection's Toeplitz hash through a 128-entry
        indirection table filled round robin (crates/network/src/cores.rs)."""
        source, target = self.endpoints[source_end].address, self.endpoints[target_end].address
        used: set[int] = set()
        ports, port = [], first
        for _ in range(channels):
            for _attempt in range(4096):
                candidate = _ephemeral(port)
                core = (rss_hash(source, target, candidate, SMB_PORT) & 127) % max(len(receive_cores), 1)
                port += 1
                if core not in used or len(used) >= len(receive_cores):
                    break
            used.add(core)
            ports.append(candidate)
        return ports

    def _smb_limits(self, migrations: Sequence[MigrationRequest]) -> dict[str, int]:
        """A resource per host that limits its SMB live migrations, all together
        (`Set-SmbBandwidthLimit -Category LiveMigration`), for the hosts that have one."""
        limits = {}
        for m in migrations:
            limit = self.scenario.host(m.source).live_migration.smb_bandwidth_limit
            if m.channels and limit is not None and m.source not in limits:
                limits[m.source] = self.fabric.add(f"SMB bandwidth limit for live migration of {m.source}", limit / 8)
        return limits

    def _guests(
        self, index: dict[str, int], migrations: Sequence[MigrationRequest]
    ) -> list[specs.Guest]:
        """The busy VMs' own CPU load for the core: the endpoint of the host it
        starts on, cores' worth of work = vCPUs × cpu_load, the migrations that
        move it, its vCPUs. The core spreads it evenly over its host's cores
        and moves it to the destination when a migration ends, and keeps each
        of its vCPUs `cpu_load` busy (crates/migration/src/guests.rs).
        Without a CPU model there are no cores to load."""
        if self.cpu is None:
            return []
        return [
            specs.Guest(
                host=index[vm.host],
                cores=vm.vcpus * vm.cpu_load,
                migrations=tuple(i for i, m in enumerate(migrations) if m.vm == vm.name),
                vcpus=tuple(self.cpu.vcpus.get(vm.name, [])),
            )
            for vm in self.scenario.vms
            if vm.cpu_load > 0
        ]

    def changes(self) -> list[tuple[float, str, int, bool]]:
        """The scenario's events as resource and link changes, in time order."""
        changes = _Changes()
        for nic in self.uncabled:
            changes.hold(0.0, "link", nic, "uncabled", down=True)
        if [self._frames_dropped] in self._paths.values():
            changes.hold(0.0, "resource", self._frames_dropped, "mtu", down=True)
        for event in sorted(self.scenario.events, key=lambda e: e.at):
            action = str(event.action.value)
            if action in ("migrate", "drain", "rolling_update") or event.target is None:
                continue
            down = action.endswith(("_down", "_blackhole"))
            cause = _cause(action, event.target, self.fabric)
            for resource in _resources_hit(action, event.target, self.fabric):
                changes.hold(event.at, "resource", resource, cause, down)
            if not action.startswith("port_"):
                for nic in self._nics_hit(action, event.target):
                    changes.hold(event.at, "link", nic, cause, down)
        return changes.out

    def _nics_hit(self, action: str, target: str) -> list[int]:
        """NICs whose link an event takes down or brings back."""
        if action.startswith("switch"):
            ends = [p for p, d in self.fabric.out_of.items() if d.target.node == target]
        else:
            node, _, port = target.partition("/")
            here = Port(node, port)
            peer = self.fabric.peer(here)
            ends = [here] if action.startswith("nic") or peer is None else [here, peer]
        return [self.nic_index[p] for p in ends if p in self.nic_index]

    def unreachable(self, requests: Sequence[ConnectionRequest]) -> list[tuple[int, str]]:
        """(request index, why) for each connection that no pair of its NICs can carry."""
        found = []
        for k, request in enumerate(requests):
            outs, ins = self._uplink_nics(request.source)[2], self._uplink_nics(request.target)[2]
            if not any(self._reachable(a, b) for a in outs for b in ins):
                found.append((k, f"no cabled path from {self.nic_ports[outs[0]]} to {self.nic_ports[ins[0]]}"))
        return found

    def run(
        self,
        requests: Sequence[ConnectionRequest],
        step_s: float | None = None,
        migrations: Sequence[MigrationRequest] = (),
    ) -> NetworkRun:
        """Runs the connections and migrations (check `unreachable` first) and
        records use per `step_s`."""
        ends = [self._ends(m) for m in migrations]
        endpoints: list[specs.Endpoint] = []
        index: dict[str, int] = {}
        vm_names = {vm.name for vm in self.scenario.vms}
        #: The VMs whose own stack works: those that send or receive (a migration is the hosts').
        talking = {end for r in requests for end in (r.source, r.target)}
        for name in self.endpoints.names():
            kind, uplink, nics = self._uplink_nics(name)
            e = self.endpoints[name]
            names = [self.nic_ports[n].port for n in nics]
            queue_cores: tuple[int, ...] = ()
            guest_send = guest_receive = cores = CoreSet("none", ())
            if self.cpu is not None and name in vm_names:
                cores = self.cpu.vm_set(name, e.host, names)
                queue_cores = self.cpu.vm_queue_cores(name, e.host, names)
                if name in talking:
                    guest_send, guest_receive = self.cpu.guest_sets(name, e.host, names)
            elif self.cpu is not None:
                cores = self.cpu.host_set(e.host, names)
            index[name] = len(endpoints)
            host_cores = [] if self.cpu is None else self.cpu.cores[e.host.name]
            endpoints.append(
                specs.Endpoint(
                    uplink=specs.Uplink("team" if kind == "team" else "nic", uplink),
                    port=e.port_index,
                    address=e.address,
                    mac=e.mac,
                    send_cores=_cores(cores),
                    receive_cores=_cores(cores),
                    host_cores=tuple(host_cores),
                    queue_cores=queue_cores,
                    guest_send_cores=_cores(guest_send),
                    guest_receive_cores=_cores(guest_receive),
                )
            )
        connections: list[specs.Connection] = []
        for k, request in enumerate(requests):
            for a in self._uplink_nics(request.source)[2]:
                for b in self._uplink_nics(request.target)[2]:
                    self._reachable(a, b)
            port = EPHEMERAL_PORT + k % (65536 - EPHEMERAL_PORT)
            connections.append(
                specs.Connection(
                    source=index[request.source],
                    target=index[request.target],
                    ports=(port, SERVICE_PORT),
                    amount_bytes=request.size_bytes,
                    start_s=request.start_s,
                    stop_s=request.stop_s,
                )
            )
        hosts = {h.name: i for i, h in enumerate(self.scenario.hosts)}
        smb_limits = self._smb_limits(migrations)
        migration_specs: list[specs.Migration] = []
        for i, (m, (source, target)) in enumerate(zip(migrations, ends)):
            for a in self._uplink_nics(source)[2]:
                for b in self._uplink_nics(target)[2]:
                    self._reachable(a, b)
            channels: list[specs.Channel] = []
            receive_cores = list(endpoints[index[target]].receive_cores.cores)
            ports = self._smb_ports(source, target, len(m.channels), receive_cores, SMB_SOURCE_PORT + 64 * i)
            for channel, port in zip(m.channels, ports):
                pair = None
                if channel.out_nic is not None and channel.in_nic is not None:
                    pair = (self.nic_index[_port(channel.out_nic)], self.nic_index[_port(channel.in_nic)])
                    self._reachable(*pair)
                rdma_cost = self.cpu.parameters.rdma_cost() if self.cpu is not None else 0.0
                cycles = (rdma_cost, rdma_cost) if channel.rdma else None
                channels.append(specs.Channel(nics=pair, ports=(port, SMB_PORT), cycles_per_byte=cycles))
            memory = specs.GuestMemory(
                assigned_bytes=m.assigned_bytes,
                populated_bytes=m.populated_bytes,
                dirty_bytes_per_s=m.dirty_bytes_per_s,
                working_set_bytes=m.working_set_bytes,
                device_state_bytes=m.device_state_bytes,
            )
            migration_specs.append(
                specs.Migration(
                    source=index[source],
                    target=index[target],
                    ports=(MIGRATION_SOURCE_PORT + i % 1000, LIVE_MIGRATION_PORT),
                    memory=memory,
                    precopy=specs.Precopy(max_passes=m.max_passes, stop_bytes=m.stop_bytes, switchover_s=m.switchover_s),
                    prepare_bytes_per_s=m.prepare_bytes_per_s,
                    at_s=m.at_s,
                    queue=hosts[m.source],
                    simultaneous=m.simultaneous,
                    channels=tuple(channels),
                    compression=None if m.compression is None else specs.Compression(*m.compression),
                    after=tuple(m.after),
                    delay_s=m.delay_s,
                    through=smb_limits.get(m.source) if m.channels else None,
                )
            )
        changes = self.changes()
        dynamic = any(t[3] == "dynamic" for t in self.teams)
        dynamic_queues = any(e.queue_cores for e in endpoints)
        guests = self._guests(index, migrations)
        network = specs.NetworkSpec(
            resources=tuple(specs.Resource(c, f) for c, f in zip(self.fabric.capacities, self.fabric.fatpipe)),
            nics=tuple(specs.Nic(send, receive) for send, receive in self.nics),
            teams=tuple(specs.Team(tuple(m), standby, mode, balancing, switch) for m, standby, mode, balancing, switch in self.teams),
            endpoints=tuple(endpoints),
            paths=tuple(_path(pair, *self._path_usage(pair, path)) for pair, path in self._paths.items()),
            lacp_timeout_s=self.parameters.lacp_timeout_s,
            rebalance_interval_s=self.parameters.rebalance_interval_s if dynamic else None,
            dynamic_vmq=specs.DynamicVmq(self.vmq.interval_s, self.vmq.busy) if dynamic_queues else None,
        )
        result = _core.run(
            specs.RunSpec(
                network=network,
                connections=tuple(connections),
                changes=tuple(_change(*change) for change in changes),
                migrations=tuple(migration_specs),
                guests=tuple(guests),
                record_step_s=step_s,
            )
        )
        names = [str(p) for p in self.nic_ports]
        outcomes = [
            ConnectionOutcome(
                end_s=c.end_s,
                nics=[(t, None if a is None else names[a], None if b is None else names[b]) for t, a, b in c.members],
                blackholed_s=c.blackholed_s,
                stalled_since_s=c.stalled_since_s,
                sent_bytes=c.sent_bytes,
            )
            for c in result.connections
        ]
        migration_outcomes = [
            MigrationOutcome(
                queued_s=m.queued_s,
                start_s=m.start_s,
                end_s=m.end_s,
                passes=list(m.passes),
                blackout_s=m.blackout_s,
                bytes_sent=m.bytes_sent,
                peak_bps=8 * m.peak_bytes_per_s,
                connections=list(m.connections),
            )
            for m in result.migrations
        ]
        return NetworkRun(
            outcomes,
            result.end_s,
            result.events,
            result.wall_s,
            result.series,
            self.fabric,
            migration_outcomes,
        )


def _cores(cores: CoreSet) -> specs.Cores:
    assert cores.kind in ("none", "rss", "queue", "spread"), cores.kind
    return specs.Cores(cast(Literal["none", "rss", "queue", "spread"], cores.kind), tuple(cores.cores))


def _change(at: float, kind: str, index: int, up: bool) -> specs.Change:
    assert kind in ("resource", "link"), kind
    return specs.Change(at, cast(Literal["resource", "link"], kind), index, up)


def _path(
    pair: tuple[int, int], links: list[tuple[int, float]], send: float, receive: float, guest_send: float, guest_receive: float
) -> specs.Path:
    return specs.Path(pair[0], pair[1], tuple(links), send, receive, guest_send, guest_receive)


def _ephemeral(port: int) -> int:
    """A source port in Windows' dynamic range (49152-65535), counting on from its start after the end."""
    return EPHEMERAL_PORT + (port - EPHEMERAL_PORT) % (65536 - EPHEMERAL_PORT)


def _port(name: str) -> Port:
    node, _, port = name.partition("/")
    return Port(node, port)


def _cause(action: str, target: str, fabric: Fabric) -> str:
    """What an event acts on, the same for its down and up actions: `nic:hv1/nic1`.

    A cable may be named by either end, so both ends give one name.
    """
    kind = action.rsplit("_", 1)[0]
    if kind == "cable":
        node, _, port = target.partition("/")
        peer = fabric.peer(Port(node, port))
        target = target if peer is None else min(target, str(peer))
    return f"{kind}:{target}"


def _resources_hit(action: str, target: str, fabric: Fabric) -> list[int]:
    if action.startswith("switch"):
        hit = [d.resource for p, d in fabric.out_of.items() if p.node == target or d.target.node == target]
        if target in fabric.backplane:
            hit.append(fabric.backplane[target])
        return hit
    node, _, port = target.partition("/")
    here = Port(node, port)
    return [d.resource for d in (fabric.out_of.get(here), fabric.into.get(here)) if d is not None]
