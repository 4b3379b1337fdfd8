"""The scenario's network as the Rust core sees it: NICs, teams, endpoints and paths, by index.

`NetworkModel` turns names into indices: each NIC's cable (two resources of
the fabric, `fabric.py`), each team (its members, mode, algorithm and the
hash of the switch it is cabled to), each endpoint (a host or VM: its
uplink, vSwitch port, address, MAC and cores, `cpu.py`) and the paths
between every pair of NICs a connection may use. A pair with no cabled path
goes through a resource of capacity 0, so a connection that lands there is
black-holed rather than silently rerouted. So does a pair whose full-size
frames a switch on its path drops (its MTU is too small, `frames.py`); that
resource is held down from 0 s (`changes.py`), so the run reports such
connections as black-holed. Which NIC or member each connection uses,
failover and rebalancing are the core's (`crates/network`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.lower import frames, specs
from hvnet.lower.changes import changes
from hvnet.lower.cpu import CpuModel, coalesces
from hvnet.lower.endpoints import Endpoints
from hvnet.lower.fabric import Port, build_fabric, ecmp_key
from hvnet.model import Scenario

__all__ = ["EPHEMERAL_PORT", "SERVICE_PORT", "ConnectionRequest", "NetworkModel"]

#: Source ports of generated connections start here (Windows' dynamic range).
EPHEMERAL_PORT = 49152
#: Destination port of generated connections (ntttcp's default port).
SERVICE_PORT = 5001



@dataclass(frozen=True)
class ConnectionRequest:
    """A connection to open: endpoint names, bytes, start time."""

    source: str
    target: str
    size_bytes: float
    start_s: float
    #: When the sender stops (a test that runs for a set time); None: when done.
    stop_s: float | None = None



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
        self.parameters = self.calibration.teaming
        self.vmq = self.calibration.vmq
        self.fabric = build_fabric(scenario)
        self.links_only = links_only
        self.cpu = None if links_only else CpuModel(scenario, self.fabric.add, self.calibration.cpu)
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

    def uplink(self, name: str) -> tuple[str, int, list[int]]:
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

    def reachable(self, a: int, b: int) -> bool:
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

    def _path_spec(self, pair: tuple[int, int], path: list[int]) -> specs.Path:
        """The links of a NIC pair with their use per payload byte, the
        cycles per payload byte on the sending and the receiving core, and
        on the sending and receiving VM's vCPU (where an end is a VM)."""
        if self.links_only:
            return specs.Path(pair[0], pair[1], tuple((r, 1.0) for r in path), 0.0, 0.0, 0.0, 0.0)
        links = tuple((r, self._coefficients.get(pair, 1.0)) for r in path)
        if self.cpu is None:
            return specs.Path(pair[0], pair[1], links, 0.0, 0.0, 0.0, 0.0)
        cpu = self.cpu.parameters
        mss = frames.mss(min(self._mtu[pair[0]], self._mtu[pair[1]]))
        receive = cpu.receive_cost(mss, self.coalesces[pair[1]])
        return specs.Path(pair[0], pair[1], links, cpu.send_cost(), receive, cpu.send_cost(), cpu.guest_receive_cost(mss))

    def unreachable(self, requests: Sequence[ConnectionRequest]) -> list[tuple[int, str]]:
        """(request index, why) for each connection that no pair of its NICs can carry."""
        found = []
        for k, request in enumerate(requests):
            outs, ins = self.uplink(request.source)[2], self.uplink(request.target)[2]
            if not any(self.reachable(a, b) for a in outs for b in ins):
                found.append((k, f"no cabled path from {self.nic_ports[outs[0]]} to {self.nic_ports[ins[0]]}"))
        return found

    def reach(self, source: str, target: str) -> None:
        """Records the path of every pair of NICs the two endpoints' uplinks may use."""
        for a in self.uplink(source)[2]:
            for b in self.uplink(target)[2]:
                self.reachable(a, b)

    def endpoint_specs(self, talking: set[str]) -> tuple[list[specs.Endpoint], dict[str, int]]:
        """Every endpoint for the core, and each name's index. `talking`: the VMs whose
        own stack works (those that send or receive; a migration is the hosts')."""
        endpoints: list[specs.Endpoint] = []
        index: dict[str, int] = {}
        vm_names = {vm.name for vm in self.scenario.vms}
        for name in self.endpoints.names():
            kind, uplink, nics = self.uplink(name)
            e = self.endpoints[name]
            names = [self.nic_ports[n].port for n in nics]
            queue_cores: tuple[int, ...] = ()
            guest_send = guest_receive = cores = specs.Cores("none", ())
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
                    send_cores=cores,
                    receive_cores=cores,
                    host_cores=tuple(host_cores),
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
            self.reach(request.source, request.target)
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
        return connections

    def network_spec(self, endpoints: Sequence[specs.Endpoint]) -> specs.NetworkSpec:
        """The network for the core: every resource, NIC, team and endpoint, the path of every
        NIC pair recorded so far with its use per byte, and the teaming and VMQ parameters."""
        teaming, vmq = self.calibration.teaming, self.calibration.vmq
        dynamic_queues = any(e.queue_cores for e in endpoints)
        return specs.NetworkSpec(
            resources=tuple(specs.Resource(c, f) for c, f in zip(self.fabric.capacities, self.fabric.fatpipe)),
            nics=tuple(specs.Nic(send, receive) for send, receive in self.nics),
            teams=tuple(specs.Team(tuple(m), standby, mode, lb, switch) for m, standby, mode, lb, switch in self.teams),
            endpoints=tuple(endpoints),
            paths=tuple(self._path_spec(pair, path) for pair, path in self._paths.items()),
            lacp_timeout_s=teaming.lacp_timeout_s,
            rebalance_interval_s=teaming.rebalance_interval_s if self.dynamic else None,
            dynamic_vmq=specs.DynamicVmq(vmq.interval_s, vmq.busy) if dynamic_queues else None,
        )

    def changes(self) -> list[specs.Change]:
        """The scenario's events as resource and link changes, in time order (`changes.py`)."""
        dropped = self._frames_dropped if [self._frames_dropped] in self._paths.values() else None
        return changes(self.scenario, self.fabric, self.nic_index, self.uncabled, dropped)

    @property
    def dynamic(self) -> bool:
        """Whether a team balances dynamically (the core then rebalances it)."""
        return any(t[3] == "dynamic" for t in self.teams)

