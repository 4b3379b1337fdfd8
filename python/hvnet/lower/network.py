"""The scenario's network as the Rust core sees it: NICs, teams, endpoints and paths, by index.

`NetworkModel` turns names into indices: each NIC's cable (two resources of
the fabric, `fabric.py`), each team (its members, mode, algorithm and the
hash of the switch it is cabled to), each endpoint (a host or VM: its
uplink, vSwitch port, address, MAC and cores, `cpu.py`) and the paths
between every pair of NICs a connection may use: their equal-cost routes
from each time the fabric's routing changes on (`routing.py`, `paths.py`). A pair with
no cabled path goes through a resource of capacity 0, so a connection that
lands there is black-holed rather than silently rerouted. Two resources are
held down from 0 s (`changes.py`), so the run reports the connections on
them as black-holed: a route whose full-size frames a switch on it drops
(its MTU is too small, `frames.py`) goes through one; while routing has no
route left between two NICs (a failure cut them), their path goes through
the other. Which NIC or member each connection uses, which of the
equal-cost routes, failover and rebalancing are the core's
(`crates/network`).

A connection with a VM at an end sends packets no larger than the VM's own
MTU: it gets paths of its own for that MTU (`Path.endpoint_mtu`), whose
frame overhead and per-packet costs follow the smallest MTU on the way.
Traffic between two ports of one virtual switch (two VMs, or a VM and its
host's vNIC on that switch) never reaches a NIC: it is pinned to the
switch's internal pair, a NIC of the core's with no links, so only the
cores and vCPUs at both ends bound it (docs/model.md, "Traffic inside a
virtual switch").
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.lower import frames, specs
from hvnet.lower.changes import changes
from hvnet.lower.cpu import CpuModel, coalesces
from hvnet.lower.endpoints import Endpoints
from hvnet.lower.fabric import Port, build_fabric
from hvnet.lower.paths import Paths
from hvnet.lower.routing import Routing
from hvnet.model import Scenario
from hvnet.model.scenario import LacpTimer
from hvnet.units import bytes_per_s

__all__ = ["EPHEMERAL_PORT", "SERVICE_PORT", "ConnectionRequest", "NetworkModel"]

#: Source ports of generated connections start here (Windows' dynamic range).
EPHEMERAL_PORT = 49152
#: Destination port of generated connections (ntttcp's default port).
SERVICE_PORT = 5001
#: Capacity of a virtual switch's internal NIC: no link, so nothing a connection there could reach
#: (the cores and vCPUs at both ends bound it); a finite number for the core.
INSIDE_BYTES_PER_S = 1e15


@dataclass(frozen=True)
class ConnectionRequest:
    """A connection to open: endpoint names, bytes, start time."""

    source: str
    target: str
    size_bytes: float
    start_s: float
    #: When the sender stops (a test that runs for a set time); None: when done.
    stop_s: float | None = None
    #: The most it sends, in payload bits per second (a steady flow); None: as fast as it can.
    rate_bps: float | None = None


class NetworkModel:
    """A scenario's NICs, teams, endpoints and paths, by index for the core."""

    def __init__(
        self,
        scenario: Scenario,
        calibration: Calibration | None = None,
        links_only: bool = False,
    ) -> None:
        """`links_only` models the links alone, at their line rate: no frame
        overhead and no CPU (the pure max-min model, as SimGrid's CM02 computes it)."""
        self.scenario = scenario
        self.calibration = calibration or Calibration()
        self.fabric = build_fabric(scenario)
        self.routing = Routing(scenario, self.fabric, self.calibration.fabric)
        self.links_only = links_only
        self.cpu = None if links_only else CpuModel(scenario, self.fabric.add, self.calibration.cpu)
        self.endpoints = Endpoints(scenario)
        self._vm_names = {vm.name for vm in scenario.vms}
        self.nic_ports: list[Port] = [Port(h.name, n.name) for h in scenario.hosts for n in h.nics]
        self.nic_index = {port: i for i, port in enumerate(self.nic_ports)}
        #: The same by (host, NIC) names: what a route's SMB channels look up (`nic_of`).
        self._nic_names = {(port.node, port.port): i for port, i in self.nic_index.items()}
        self.unreachable_resource = self.fabric.add("no cabled path", 0.0)
        #: The route of NIC pairs whose full-size frames a switch on it drops (frames.py).
        self.frames_dropped = self.fabric.add("frames larger than a switch's MTU", 0.0)
        #: The path of NIC pairs while routing has no route left between them.
        self.no_route = self.fabric.add("no route left in the fabric", 0.0)
        #: The NIC pairs recorded for the core and their paths (`paths.py`).
        self.paths = Paths(
            self.fabric,
            self.routing,
            self.nic_ports,
            [coalesces(h, n) for h in scenario.hosts for n in h.nics],
            None if self.cpu is None else self.cpu.parameters,
            links_only,
            (self.unreachable_resource, self.frames_dropped, self.no_route),
        )
        self.nics: list[tuple[int, int]] = []
        self.uncabled: list[int] = []
        for i, port in enumerate(self.nic_ports):
            send, receive = self.fabric.out_of.get(port), self.fabric.into.get(port)
            if send is None or receive is None:
                self.nics.append((self.unreachable_resource, self.unreachable_resource))
                self.uncabled.append(i)
            else:
                self.nics.append((send.resource, receive.resource))
        self.team_index: dict[tuple[str, str], int] = {}
        self.teams: list[specs.Team] = []
        for host in scenario.hosts:
            for team in host.teams:
                self.team_index[(host.name, team.name)] = len(self.teams)
                members = [self.nic_index[Port(host.name, m)] for m in team.members]
                standby = None if team.standby is None else self.nic_index[Port(host.name, team.standby)]
                balancing = team.address_hash if team.load_balancing == "address_hash" else team.load_balancing
                switch_hash = self._switch_hash([self.nic_ports[m] for m in members])
                self.teams.append(
                    specs.Team(
                        tuple(members),
                        standby,
                        str(team.mode.value),
                        str(getattr(balancing, "value", balancing)),
                        switch_hash,
                    )
                )
        #: A team inside a VM is a switch-independent address-hash team of the NICs under its two
        #: virtual switches: the vNIC of a failed NIC shows disconnected, as the NIC's link does.
        self.vm_team_index: dict[str, int] = {}
        for vm in scenario.vms:
            if vm.team is not None:
                self.vm_team_index[vm.name] = len(self.teams)
                members = [self.nic_index[Port(vm.host, n)] for n in self.endpoints[vm.name].nics]
                switch_hash = self._switch_hash([self.nic_ports[m] for m in members])
                self.teams.append(
                    specs.Team(tuple(members), None, "switch_independent", str(vm.team.address_hash.value), switch_hash)
                )
        #: The endpoint pairs (and their MTU) whose NIC pairs are recorded (`add_paths`).
        self._pairs_added: set[tuple[str, str, int | None]] = set()
        #: The internal NIC of each (host, virtual switch) that carries traffic between two of its ports.
        self._inside: dict[tuple[str, str], int] = {}
        #: Names of the NICs the core sees: the hosts' NICs, then the virtual switches' internal ones.
        self.nic_names: list[str] = [str(p) for p in self.nic_ports]
        #: What carries the traffic of each (host, uplink) and of each endpoint (`uplink`), made once.
        self._uplinks: dict[tuple[str, str], tuple[str, int, tuple[int, ...]]] = {}
        self._uplink_of: dict[str, tuple[str, int, tuple[int, ...]]] = {}

    def uplink(self, name: str) -> tuple[str, int, tuple[int, ...]]:
        """What carries an endpoint's traffic: ("team", its index, its members) or ("nic", its index, (it,))."""
        found = self._uplink_of.get(name)
        if found is None:  # once per endpoint
            found = self._uplink_of[name] = self._uplink(name)
        return found

    def _uplink(self, name: str) -> tuple[str, int, tuple[int, ...]]:
        endpoint = self.endpoints[name]
        team = self.vm_team_index.get(name)
        if team is not None:
            return "team", team, self.teams[team].members
        key = (endpoint.host.name, endpoint.uplink)
        found = self._uplinks.get(key)
        if found is None:  # once per host and uplink
            team = self.team_index.get(key)
            if team is not None:
                found = ("team", team, self.teams[team].members)
            else:
                nic = self.nic_index[Port(*key)]
                found = ("nic", nic, (nic,))
            self._uplinks[key] = found
        return found

    def _switch_hash(self, members: list[Port]) -> str:
        """What the switch a team is cabled to hashes (its first member's switch)."""
        switches = {s.name: s for s in self.scenario.switches}
        for member in members:
            peer = self.fabric.peer(member)
            if peer is not None and peer.node in switches:
                return str(switches[peer.node].port_channel_hash.value)
        return "transport_ports"

    # ---- collecting what the run needs (connections, migrations) ------------------------

    def nic_of(self, host: str, nic: str) -> int:
        """The index of `host`'s NIC `nic`."""
        return self._nic_names[host, nic]

    def add_path(self, a: int, b: int) -> bool:
        """Records the routes from NIC `a` to NIC `b` for the core; whether a cabled path joins them."""
        return self.paths.add(a, b)

    def unreachable(self, requests: Sequence[ConnectionRequest]) -> list[tuple[int, str]]:
        """(request index, why) for each connection that no pair of its NICs can carry (their
        routes recorded for the core)."""
        found = []
        joined: dict[tuple[str, str], bool] = {}
        for k, request in enumerate(requests):
            key = (request.source, request.target)
            if key not in joined:
                outs, ins = self.uplink(request.source)[2], self.uplink(request.target)[2]
                inside = self.shared_vswitch(request.source, request.target) is not None  # no NIC on the way
                joined[key] = inside or any(self.add_path(a, b) for a in outs for b in ins)
            if not joined[key]:
                outs, ins = self.uplink(request.source)[2], self.uplink(request.target)[2]
                found.append((k, f"no cabled path from {self.nic_ports[outs[0]]} to {self.nic_ports[ins[0]]}"))
        return found

    def add_paths(self, source: str, target: str, endpoint_mtu: int | None = None) -> None:
        """Records the routes of every pair of NICs the two endpoints' uplinks may use
        (and, for endpoints that send at most `endpoint_mtu` bytes, their variant for them)."""
        key = (source, target, endpoint_mtu)
        if key in self._pairs_added:
            return
        self._pairs_added.add(key)
        paths, ins = self.paths, self.uplink(target)[2]
        for a in self.uplink(source)[2]:
            for b in ins:
                paths.add(a, b)
                if endpoint_mtu is not None:
                    paths.add_framed(a, b, endpoint_mtu)

    def _ports(self, name: str) -> tuple[str, set[str]]:
        """The host an endpoint is on and the virtual switches its port is on (a host: its vNIC's, the first)."""
        if name in self._vm_names:
            vm = self.scenario.vm(name)
            return vm.host, set(vm.team.members if vm.team else [vm.vswitch] if vm.vswitch else [])
        host = self.scenario.host(name)
        return host.name, {host.vswitches[0].name} if host.vswitches else set()

    def shared_vswitch(self, source: str, target: str) -> tuple[str, str] | None:
        """(host, virtual switch) both endpoints have a port on; None when their traffic leaves by NICs."""
        if source not in self._vm_names and target not in self._vm_names:
            return None
        (host, ours), (other_host, theirs) = self._ports(source), self._ports(target)
        shared = sorted(ours & theirs) if host == other_host else []
        return (host, shared[0]) if shared else None

    def add_inside(self, key: tuple[str, str]) -> int:
        """The internal NIC of a (host, virtual switch) that carries traffic between two of its
        ports, made (with its resource) the first time one does."""
        host, vswitch = key
        if key not in self._inside:
            inside = self.fabric.add(f"{host}/{vswitch} (inside the virtual switch)", INSIDE_BYTES_PER_S, fatpipe=True)
            self._inside[key] = len(self.nics)
            self.nics.append((inside, inside))
            self.nic_names.append(f"{host}/{vswitch}")
        return self._inside[key]

    def endpoint_mtu(self, source: str, target: str) -> int | None:
        """The largest IP packet the endpoints' own stacks send: the smaller VM MTU; None between hosts.
        (A host's vNIC sends at its virtual switch's uplink MTU, which the NIC pair's path already holds.)"""
        mtus = [self.scenario.vm(n).mtu for n in (source, target) if n in self._vm_names]
        return min(mtus) if mtus else None

    def _inside_mtu(self, source: str, target: str) -> int:
        """What two ports of one virtual switch exchange: the VM's MTU, and a host vNIC's (its uplink's, assumed)."""
        mtus = []
        for name in (source, target):
            if name in self._vm_names:
                mtus.append(self.scenario.vm(name).mtu)
            else:
                host = self.scenario.host(name)
                mtus.extend(host.nic(n).mtu for n in self.endpoints[name].nics)
        return min(mtus)

    def endpoint_specs(self, talking: set[str]) -> tuple[list[specs.Endpoint], dict[str, int]]:
        """The endpoints the core needs, and each name's index: every host and host vNIC, and the VMs in
        `talking`, whose own stack works (those that send or receive; a migration is the hosts'). A VM
        that does neither is nothing to the core (it reads endpoints only through connections), and
        a cluster's thousands of them would cost the spec as much again."""
        endpoints: list[specs.Endpoint] = []
        index: dict[str, int] = {}
        vm_names = self._vm_names
        none = specs.Cores("none", ())
        #: Made once per NIC set, uplink and host: a host's thousands of VMs share them.
        nic_names: dict[tuple[int, ...], list[str]] = {}
        uplinks: dict[tuple[str, int], specs.Uplink] = {}
        all_cores: dict[str, tuple[int, ...]] = {}
        for name in self.endpoints.names():
            if name in vm_names and name not in talking:
                continue
            kind, uplink, nics = self.uplink(name)
            e = self.endpoints[name]
            names = nic_names.get(nics)
            if names is None:
                names = nic_names[nics] = [self.nic_ports[n].port for n in nics]
            queue_cores: tuple[int, ...] = ()
            guest_send = guest_receive = cores = receive = none
            if self.cpu is not None and name in vm_names:
                cores, queue_cores = self.cpu.vm_cores(name, e.host, names)
                if name in talking:
                    guest_send, guest_receive = self.cpu.guest_sets(name, e.host, names)
            elif self.cpu is not None:
                cores = self.cpu.host_set(e.host, names)
                if any(v.uplink == e.uplink and not v.host_vnic_rss for v in e.host.vswitches):
                    receive = self.cpu.host_vnic_set(e.host, names)
            index[name] = len(endpoints)
            host_cores = all_cores.get(e.host.name)
            if host_cores is None:
                host_cores = all_cores[e.host.name] = () if self.cpu is None else tuple(self.cpu.cores[e.host.name])
            carrier = uplinks.get((kind, uplink))
            if carrier is None:
                carrier = uplinks[(kind, uplink)] = specs.Uplink("team" if kind == "team" else "nic", uplink)
            endpoints.append(
                specs.Endpoint(
                    uplink=carrier,
                    port=e.port_index,
                    address=e.address,
                    mac=e.mac,
                    send_cores=cores,
                    receive_cores=cores if receive.kind == "none" else receive,
                    host_cores=host_cores,
                    queue_cores=queue_cores,
                    guest_send_cores=guest_send,
                    guest_receive_cores=guest_receive,
                )
            )
        return endpoints, index

    def connection_specs(self, requests: Sequence[ConnectionRequest], index: dict[str, int]) -> list[specs.Connection]:
        """Each request as a connection for the core, from its own source port."""
        connections: list[specs.Connection] = []
        for k, request in enumerate(requests):
            shared = self.shared_vswitch(request.source, request.target)
            inside = None if shared is None else self.add_inside(shared)
            if inside is None:
                mtu = self.endpoint_mtu(request.source, request.target)
                self.add_paths(request.source, request.target, mtu)
            else:
                mtu = self._inside_mtu(request.source, request.target)
                self.paths.framed.setdefault((inside, inside, mtu), frames.mss(mtu))
            port = EPHEMERAL_PORT + k % (65536 - EPHEMERAL_PORT)
            connections.append(
                specs.Connection(
                    source=index[request.source],
                    target=index[request.target],
                    ports=(port, SERVICE_PORT),
                    amount_bytes=request.size_bytes,
                    start_s=request.start_s,
                    stop_s=request.stop_s,
                    pinned=None if inside is None else (inside, inside),
                    endpoint_mtu=mtu,
                    bound_bytes_per_s=None if request.rate_bps is None else bytes_per_s(request.rate_bps),
                )
            )
        return connections

    def _loads(self) -> tuple[specs.Load, ...]:
        """The scenario's measured demand on its NICs' links, each direction a load in bytes/s (the
        counters' bytes taken as line bytes: the preamble and gap they leave out are not added),
        weighted to share the line as a connection at the NIC's MTU does."""
        loads = []
        for demand in self.scenario.demand:
            port = Port.parse(demand.nic)
            send, receive = self.nics[self.nic_index[port]]
            mtu = self.scenario.host(port.node).nic(port.port).mtu
            weight = frames.wire_bytes_per_payload_byte(frames.mss(mtu))
            for resource, steps in ((send, demand.send), (receive, demand.receive)):
                if steps:
                    loads.append(specs.Load(resource, _in_bytes_per_s(steps), weight))
        return tuple(loads)

    def network_spec(self, endpoints: Sequence[specs.Endpoint]) -> specs.NetworkSpec:
        """The network for the core: every resource, NIC, team and endpoint, the path of every
        NIC pair recorded so far with its use per byte, and the teaming and VMQ parameters."""
        teaming, vmq = self.calibration.teaming, self.calibration.vmq
        dynamic_queues = any(e.queue_cores for e in endpoints)
        table, paths, middles = self.paths.path_specs()
        return specs.NetworkSpec(
            resources=tuple(specs.Resource(c, f) for c, f in zip(self.fabric.capacities, self.fabric.fatpipe)),
            nics=tuple(specs.Nic(send, receive, self._nic_rss(i)) for i, (send, receive) in enumerate(self.nics)),
            teams=tuple(self.teams),
            endpoints=tuple(endpoints),
            paths=paths,
            lacp_timeout_s=teaming.lacp_timeout_s,
            nic_lacp_timeouts_s=self._lacp_timeouts(),
            rebalance_interval_s=teaming.rebalance_interval_s if self.dynamic else None,
            dynamic_vmq=specs.DynamicVmq(vmq.interval_s, vmq.busy) if dynamic_queues else None,
            shared_queue_overhead=self.calibration.cpu.shared_queue_overhead,
            loads=self._loads(),
            middles=middles,
            pair_paths=table,
        )

    def _lacp_timeouts(self) -> tuple[float, ...]:
        """Each NIC's LACP timeout: its team's timer (fast: `lacp_timeout_s`, slow: `lacp_slow_timeout_s`);
        empty when no team runs the slow one."""
        slow = {
            self.nic_index[Port(host.name, member)]
            for host in self.scenario.hosts
            for team in host.teams
            if team.lacp_timer is LacpTimer.SLOW
            for member in team.members
        }
        if not slow:
            return ()
        teaming = self.calibration.teaming
        return tuple(
            teaming.lacp_slow_timeout_s if n in slow else teaming.lacp_timeout_s for n in range(len(self.nics))
        )

    def _nic_rss(self, nic: int) -> specs.Cores:
        """The cores NIC `nic`'s RSS receives a host's own traffic on: `rss_queues` from its `rss_base_core`
        (an LBFO member's settings are its own, so two members sharing cores share their capacity);
        none for a virtual switch's internal pair or without the CPU model."""
        if self.cpu is None or nic >= len(self.nic_ports):
            return specs.Cores("none", ())
        port = self.nic_ports[nic]
        return self.cpu.host_set(self.scenario.host(port.node), [port.port])

    def changes(self) -> list[specs.Change]:
        """The scenario's events as resource and link changes, in time order (`changes.py`), with the
        black holes the paths go through held down (call it after `network_spec`)."""
        return changes(self.scenario, self.fabric, self.nic_index, self.uncabled, sorted(self.paths.black_holes))

    @property
    def dynamic(self) -> bool:
        """Whether a team balances dynamically (the core then rebalances it)."""
        return any(t.balancing == "dynamic" for t in self.teams)


@functools.lru_cache(maxsize=256)
def _in_bytes_per_s(steps: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
    """Measured steps in bytes/s for the core, made once per series (check and design run a scenario's
    demand again and again; a week of it is 10,000 steps per NIC direction)."""
    return tuple((at, bytes_per_s(bps)) for at, bps in steps)
