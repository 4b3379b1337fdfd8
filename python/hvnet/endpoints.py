"""Where traffic enters and leaves a host: which NIC carries a connection.

A VM's traffic goes through its virtual switch's uplink; a host's own
traffic through its first virtual switch's uplink (a host vNIC), else its
first team, else its first cabled NIC. An uplink that is a team picks one
member per connection and direction, by the rules of BEHAVIOUR.md:

- outbound: address hash and dynamic hash the connection (RSS Toeplitz hash
  of addresses and ports) over the active members; Hyper-V port uses the
  member the vSwitch port is affinitized to;
- inbound, switch independent: address hash arrives on the primary member,
  Hyper-V port and dynamic on the port's affinitized member;
- inbound, static or LACP: the switch hashes the connection on its own.

Standby members carry nothing. Dynamic flowlet rebalancing and failover
are not modelled yet: a connection keeps the member it starts on.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from hvnet._core import rss_hash
from hvnet.model import Host, Scenario, Team
from hvnet.fabric import Port, build_fabric

__all__ = ["Connection", "Endpoint", "Endpoints", "Router"]

#: Source ports of generated connections start here (Windows' dynamic range).
EPHEMERAL_PORT = 49152
#: Destination port of generated connections (iperf3/ntttcp-like traffic).
SERVICE_PORT = 5001


@dataclass(frozen=True)
class Endpoint:
    """A host or VM that sends or receives traffic."""

    name: str
    host: Host
    #: NIC or team name that carries its traffic.
    uplink: str
    #: Position of its port on the vSwitch (for Hyper-V port affinity).
    port_index: int
    address: str


@dataclass(frozen=True)
class Connection:
    """One TCP connection between two endpoints."""

    source: Endpoint
    target: Endpoint
    source_port: int
    target_port: int

    def hash(self) -> int:
        return rss_hash(self.source.address, self.target.address, self.source_port, self.target_port)


class Endpoints:
    """Endpoints of a scenario, and the NICs a connection uses on each side."""

    def __init__(self, scenario: Scenario) -> None:
        self._by_name: dict[str, Endpoint] = {}
        network = ipaddress.IPv4Network("10.0.0.0/8")
        names: list[tuple[str, Host, str | None]] = [(h.name, h, None) for h in scenario.hosts]
        names += [(vm.name, scenario.host(vm.host), vm.vswitch) for vm in scenario.vms]
        ports_used: dict[str, int] = {}
        cabled = {end for cable in scenario.cables for end in (cable.a, cable.b)}
        for index, (name, host, vswitch) in enumerate(names, start=1):
            uplink = _uplink(host, vswitch, cabled)
            port_index = ports_used.get(f"{host.name}/{uplink}", 0)
            ports_used[f"{host.name}/{uplink}"] = port_index + 1
            self._by_name[name] = Endpoint(name, host, uplink, port_index, str(network[index]))

    def __getitem__(self, name: str) -> Endpoint:
        return self._by_name[name]

    def outbound_nic(self, connection: Connection) -> str:
        return _member(connection.source, connection, inbound=False)

    def inbound_nic(self, connection: Connection) -> str:
        return _member(connection.target, connection, inbound=True)


def _uplink(host: Host, vswitch: str | None, cabled: set[str]) -> str:
    if vswitch is not None:
        return next(v.uplink for v in host.vswitches if v.name == vswitch)
    if host.vswitches:
        return host.vswitches[0].uplink
    if host.teams:
        return host.teams[0].name
    return next((n.name for n in host.nics if f"{host.name}/{n.name}" in cabled), host.nics[0].name)


def _active_members(team: Team) -> list[str]:
    return [m for m in team.members if m != team.standby]


def _member(endpoint: Endpoint, connection: Connection, inbound: bool) -> str:
    team = next((t for t in endpoint.host.teams if t.name == endpoint.uplink), None)
    if team is None:
        return endpoint.uplink
    members = _active_members(team)
    affinitized = members[endpoint.port_index % len(members)]
    if inbound and team.mode != "switch_independent":
        return members[connection.hash() % len(members)]
    if team.load_balancing == "hyperv_port":
        return affinitized
    if inbound:
        return members[0] if team.load_balancing == "address_hash" else affinitized
    return members[connection.hash() % len(members)]


class Router:
    """Paths of new connections: endpoint NICs, then the cables between them."""

    def __init__(self, scenario: Scenario) -> None:
        self.fabric = build_fabric(scenario)
        self.endpoints = Endpoints(scenario)
        self._next_port = EPHEMERAL_PORT

    def route(self, source: str, target: str) -> list[tuple[int, float]] | str:
        """(resource, coefficient) of a new connection, or why there is no path."""
        connection = Connection(self.endpoints[source], self.endpoints[target], self._next_port, SERVICE_PORT)
        self._next_port = EPHEMERAL_PORT + (self._next_port + 1 - EPHEMERAL_PORT) % (65536 - EPHEMERAL_PORT)
        out_nic = Port(connection.source.host.name, self.endpoints.outbound_nic(connection))
        in_nic = Port(connection.target.host.name, self.endpoints.inbound_nic(connection))
        path = self.fabric.path(out_nic, in_nic, connection.hash())
        if path is None:
            return f"no cabled path from {out_nic} to {in_nic}"
        return [(resource, 1.0) for resource in path]
