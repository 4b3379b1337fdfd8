"""Where traffic enters and leaves a host: the endpoints of connections.

A VM's traffic goes through its virtual switch's uplink, or, for a VM
with a team inside it, through its team: one vNIC on each of two virtual
switches, each bound to a NIC (`vm_team`); a host's own traffic through its
first virtual switch's uplink (a host vNIC), else its first team, else its
first cabled NIC. Which member of a team carries a connection is decided in
the Rust core (`crates/network/src/team.rs`).

Each endpoint gets a port on its uplink's vSwitch (in scenario order, for
Hyper-V port affinity), an IPv4 address in 10.0.0.0/8 and a MAC address in
Hyper-V's range (00:15:5D), both in scenario order: the hashes that choose
members and queues read them.
"""

from __future__ import annotations

from typing import NamedTuple

from hvnet.model import Host, Scenario

__all__ = ["Endpoint", "Endpoints"]

#: The organisationally unique identifier of Hyper-V's dynamic MAC addresses.
HYPER_V_OUI = (0x00, 0x15, 0x5D)


class Endpoint(NamedTuple):
    """A host or VM that sends or receives traffic (one per VM of a cluster: a tuple)."""

    name: str
    host: Host
    #: NIC or team name that carries its traffic.
    uplink: str
    #: Position of its port on the vSwitch (for Hyper-V port affinity).
    port_index: int
    address: str
    mac: tuple[int, int, int, int, int, int]
    #: A VM with a team inside it: the NICs of the team's two virtual switches, primary first.
    vm_team: tuple[str, ...] | None = None

    @property
    def nics(self) -> tuple[str, ...]:
        """The NICs its traffic may use: its VM team's, the members of its uplink team, or the uplink NIC."""
        if self.vm_team is not None:
            return self.vm_team
        team = next((t for t in self.host.teams if t.name == self.uplink), None)
        return (self.uplink,) if team is None else team.members


class Endpoints:
    """The endpoints of a scenario, by name."""

    def __init__(self, scenario: Scenario) -> None:
        self._by_name: dict[str, Endpoint] = {}
        names: list[tuple[str, Host, str | None, tuple[str, ...] | None]] = [
            (h.name, h, None, None) for h in scenario.hosts
        ]
        for vm in scenario.vms:
            host = scenario.host(vm.host)
            team = None if vm.team is None else tuple(host.vswitch(v).uplink for v in vm.team.members)
            names.append((vm.name, host, vm.team.members[0] if vm.team else vm.vswitch, team))
        #: The ports taken on each (host, uplink)'s virtual switch so far.
        self._ports_used: dict[tuple[str, str], int] = {}
        cabled = scenario.cabled
        uplinks: dict[tuple[str, str | None], str] = {}  # once per host and virtual switch
        for index, (name, host, vswitch, vm_team) in enumerate(names, start=1):
            uplink = uplinks.get((host.name, vswitch))
            if uplink is None:
                uplink = uplinks[(host.name, vswitch)] = _uplink(host, vswitch, cabled)
            self._by_name[name] = Endpoint(
                name, host, uplink, self._port(host, uplink), _address(index), _mac(index), vm_team
            )

    def _port(self, host: Host, uplink: str) -> int:
        """The next port on the virtual switch of the host's `uplink` (in the order endpoints are made)."""
        key = (host.name, uplink)
        port_index = self._ports_used.get(key, 0)
        self._ports_used[key] = port_index + 1
        return port_index

    def __getitem__(self, name: str) -> Endpoint:
        return self._by_name[name]

    def names(self) -> list[str]:
        """Every endpoint's name: hosts, VMs, then the interfaces added by `via`."""
        return list(self._by_name)

    def via(self, host: Host, uplink: str) -> str:
        """The host's own endpoint on one of its NICs or teams (a live migration
        network), added with the next address if new; its name, `host/uplink`."""
        name = f"{host.name}/{uplink}"
        if name not in self._by_name:
            index = len(self._by_name) + 1
            self._by_name[name] = Endpoint(name, host, uplink, self._port(host, uplink), _address(index), _mac(index))
        return name


def _address(index: int) -> str:
    """The `index`-th address of 10.0.0.0/8, as text (what `str(IPv4Network("10.0.0.0/8")[index])` gives,
    without building an address object for each of thousands of endpoints)."""
    if not 0 <= index < 1 << 24:
        raise IndexError("address out of range")
    return f"10.{index >> 16}.{(index >> 8) & 0xFF}.{index & 0xFF}"


def _mac(index: int) -> tuple[int, int, int, int, int, int]:
    """The `index`-th MAC address of Hyper-V's range."""
    return (*HYPER_V_OUI, (index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF)


def _uplink(host: Host, vswitch: str | None, cabled: frozenset[str]) -> str:
    if vswitch is not None:
        return next(v.uplink for v in host.vswitches if v.name == vswitch)
    if host.vswitches:
        return host.vswitches[0].uplink
    if host.teams:
        return host.teams[0].name
    return next((n.name for n in host.nics if f"{host.name}/{n.name}" in cabled), host.nics[0].name)
