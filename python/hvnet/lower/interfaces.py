"""The interfaces a host's live migrations may use, and which of them a
migration uses.

A host's interfaces are its cabled NICs outside any team, and one per team:
the host vNIC on the virtual switch over the team (named by the virtual
switch), or the team interface itself when no virtual switch uses the team.
`live_migration.networks` limits and orders them (by NIC, team or virtual
switch name); without it, all of them, in file order. SMB takes the listed
ones as a start: Multichannel adds the host's other interfaces of the same
kind and speed (observed in the field: "Don't Let Live Migration Settings
Behavior Confuse You", workinghardinit blog; TCP/IP uses only the first
network that works, the others only when it is not available).

- **TCP/IP and Compression**: one TCP connection per step, over the first
  network in the order of the host that states one (the source's if both
  do) that the other host also allows (an interface of the same name, or any
  if it states none) and that a cable path joins. Without a `networks`
  setting on either host: the host's own traffic's interface (`endpoints.py`).
- **SMB Multichannel** (BEHAVIOUR.md): RDMA interfaces if both hosts have
  them (SMB Direct), else RSS interfaces, else the rest (SMB over TCP, the
  fallback wherever one host has no RDMA interface); of those only the
  fastest (a team reports the sum of its members' speeds); the i-th of the
  source paired with the i-th of the destination; 2 connections per RDMA
  interface, 4 per RSS interface, 1 otherwise. A NIC's connections are bound
  to it; a team interface's connections are placed on its members by the
  team's own rules (so Hyper-V port keeps them on one member, address hash
  and dynamic spread them). An LBFO team gives no RDMA (SMB runs over TCP
  on its team interface, RDMA-capable members or not); a SET team whose
  members have RDMA offers SMB Direct over one RDMA host vNIC per member,
  each mapped to its member (Set-VMNetworkAdapterTeamMapping: the converged
  design Microsoft documents; assumed, as hvnet does not model host vNICs
  one by one).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

from hvnet.calibration import CpuParameters, SmbParameters
from hvnet.lower.fabric import Port
from hvnet.lower.routing import Routing
from hvnet.model import Host, Nic, Scenario, Team

__all__ = ["Interface", "SmbChannel", "interfaces", "migration_network", "smb_channels"]


@dataclass(frozen=True)
class Interface:
    """Something a host has an IP address on: a NIC, or a team's interface."""

    #: The names `live_migration.networks` may give it (NIC; team, virtual switch).
    names: tuple[str, ...]
    #: The NIC or team that carries it.
    uplink: str
    nics: tuple[Nic, ...]
    team: Team | None

    @property
    def name(self) -> str:
        return self.names[-1]

    @functools.cached_property
    def speed(self) -> float:
        """Its reported link speed: a team's is the sum of its members'."""
        return sum(n.speed for n in self.nics)

    @functools.cached_property
    def rss(self) -> bool:
        return all(n.rss_queues > 1 for n in self.nics)

    @functools.cached_property
    def rdma(self) -> bool:
        """An LBFO team gives no RDMA (BEHAVIOUR.md); SET passes its members' on."""
        lbfo = self.team is not None and str(self.team.kind.value) == "lbfo"
        return not lbfo and all(n.rdma for n in self.nics)


class SmbChannel(NamedTuple):
    """One SMB connection: bound to a NIC pair (the NIC's name on the source
    host, and on the destination host), or with no NICs when it runs over team
    interfaces, whose rules place it: then `via` names the uplinks (team or
    NIC) it leaves and arrives by. Named without the hosts' names, the
    channels are the same for every pair of hosts of the same two kinds."""

    out_nic: str | None
    in_nic: str | None
    rdma: bool
    via: tuple[str, str] | None = None


@dataclass
class Known:
    """Each host's interfaces, those SMB prefers, and its live migration option and cores' wake, by host
    name, for one scenario: what a caller that asks about many pairs of hosts keeps (`interfaces`'s and
    `smb_channels`'s `known`; `migrating`)."""

    interfaces: dict[str, list[Interface]] = field(default_factory=dict)
    #: What SMB makes of each host's interfaces.
    smb: dict[str, _SmbSide] = field(default_factory=dict)
    #: SMB's channels between two hosts and the uplinks of those over team interfaces
    #: (`smb_channels`), by what decides them (`_SmbSide.shape`): the same for every pair of hosts
    #: of those kinds.
    channels: dict[tuple[object, ...], tuple[tuple[SmbChannel, ...], tuple[str, str] | None]] = field(
        default_factory=dict
    )
    #: Each kind of host's number (`_SmbSide.shape`), by all its channels depend on.
    shapes: dict[tuple[object, ...], int] = field(default_factory=dict)
    #: Each host's live migration option and the time one of its idle cores takes to wake (`migrating`).
    hosts: dict[str, tuple[str, float]] = field(default_factory=dict)

    def migrating(self, host: Host, cpu: CpuParameters) -> tuple[str, float]:
        """`host`'s live migration option and the wake of one of its cores (`CpuParameters.wake_s`), read once."""
        found = self.hosts.get(host.name)
        if found is None:
            found = self.hosts[host.name] = (str(host.live_migration.option.value), cpu.wake_s(host))
        return found


def interfaces(scenario: Scenario, host: Host, known: Known | None = None) -> list[Interface]:
    """The host's cabled NICs outside any team, then its teams' interfaces, in file order
    (remembered in `known`, when given, for the scenario it was made for)."""
    if known is not None:
        if host.name not in known.interfaces:
            known.interfaces[host.name] = interfaces(scenario, host)
        return known.interfaces[host.name]
    cabled = scenario.cabled
    teamed = {member for team in host.teams for member in team.members}
    found = [
        Interface((nic.name,), nic.name, (nic,), None)
        for nic in host.nics
        if nic.name not in teamed and f"{host.name}/{nic.name}" in cabled
    ]
    for team in host.teams:
        members = tuple(host.nic(m) for m in team.members if f"{host.name}/{m}" in cabled)
        vswitches = tuple(v.name for v in host.vswitches if v.uplink == team.name)
        if members:
            found.append(Interface((team.name, *vswitches), team.name, members, team))
    return found


def _allowed(scenario: Scenario, host: Host, known: Known | None = None) -> list[Interface]:
    """The interfaces its live migrations may use, in the order of its `networks` setting."""
    mine = interfaces(scenario, host, known)
    networks = host.live_migration.networks
    if networks is None:
        return mine
    return [i for name in networks for i in mine if name in i.names]


def _smb_candidates(scenario: Scenario, host: Host, known: Known | None = None) -> list[Interface]:
    """The interfaces SMB may use: those `networks` lists, and Multichannel
    adds the host's others of the same kind (RDMA, RSS) and speed as a listed one."""
    mine = interfaces(scenario, host, known)
    listed = _allowed(scenario, host, known)
    kinds = {(i.rdma, i.rss, i.speed) for i in listed}
    return listed + [i for i in mine if i not in listed and (i.rdma, i.rss, i.speed) in kinds]


def _joined(routing: Routing, a: Interface, b: Interface, source: str, target: str) -> bool:
    """Whether a cable path joins some NIC of `a` on `source` to some NIC of `b` on `target`."""
    return any(
        routing.nic_routes(Port(source, x.name), Port(target, y.name)) is not None for x in a.nics for y in b.nics
    )


def migration_network(
    scenario: Scenario, routing: Routing, source: str, target: str, known: Known | None = None
) -> tuple[str, str] | str | None:
    """The uplinks (NIC or team names) a TCP/IP or Compression migration uses
    on each host; None: the hosts' own (neither has a `networks` setting);
    a text: why there is none."""
    hosts = scenario.host(source), scenario.host(target)
    if all(h.live_migration.networks is None for h in hosts):
        return None
    mine, theirs = _allowed(scenario, hosts[0], known), _allowed(scenario, hosts[1], known)
    stated = [h.live_migration.networks is not None for h in hosts]

    def same(a: Interface, b: Interface) -> bool:
        return bool(set(a.names) & set(b.names))

    # The stating host's order decides (the source's if both state one); its interface is paired
    # with the other host's of the same name, or with any if the other host states none.
    if stated[0]:
        pairs = [(a, b) for a in mine for b in [b for b in theirs if same(a, b)] + ([] if stated[1] else theirs)]
    else:
        pairs = [(a, b) for b in theirs for a in [a for a in mine if same(a, b)] + mine]
    for a, b in pairs:
        if _joined(routing, a, b, source, target):
            return a.uplink, b.uplink
    names = [", ".join(i.name for i in side) or "none" for side in (mine, theirs)]
    return (
        f"no live migration network joins {source} ({names[0]}) and {target} ({names[1]}): "
        "a network is used when both hosts allow an interface of that name and a cable path joins them"
    )


def _preferred(side: list[Interface], rdma: bool) -> list[Interface]:
    """The interfaces SMB Multichannel uses of a host's candidates: its RDMA ones (SMB Direct), else
    its RSS ones, else all; of those the fastest."""
    kind = [i for i in side if i.rdma] if rdma else [i for i in side if i.rss] or side
    fastest = max(i.speed for i in kind)
    return [i for i in kind if i.speed == fastest]


class _SmbSide(NamedTuple):
    """A host's SMB candidates (`_smb_candidates`), the ones SMB uses with RDMA (empty: it has none) and
    without (`_preferred`), and what of them decides its channels over team interfaces (`smb_channels`):
    whether it has RDMA, and each interface it uses without, by uplink, team or not, and RSS."""

    candidates: list[Interface]
    rdma: list[Interface]
    tcp: list[Interface]
    #: All that SMB's channels from or to the host depend on (`smb_channels`): its RDMA and other
    #: interfaces' uplinks, kinds and NICs' names (not the host's name); as a number in `known`
    #: (hosts alike have one), else the shape itself.
    shape: object


def _smb_side(scenario: Scenario, name: str, known: Known | None) -> _SmbSide:
    """Host `name`'s `_SmbSide`, made once per host (in `known`)."""
    if known is not None and name in known.smb:
        return known.smb[name]
    host = scenario.host(name)
    candidates = _smb_candidates(scenario, host, known)
    rdma = _preferred(candidates, True) if any(i.rdma for i in candidates) else []
    tcp = _preferred(candidates, False) if candidates else []
    shape = tuple(
        tuple((i.uplink, i.team is not None, i.rss, tuple(n.name for n in i.nics)) for i in k) for k in (rdma, tcp)
    )
    if known is None:
        return _SmbSide(candidates, rdma, tcp, shape)
    side = known.smb[name] = _SmbSide(candidates, rdma, tcp, known.shapes.setdefault(shape, len(known.shapes)))
    return side


def smb_channels(
    scenario: Scenario, source: str, target: str, smb: SmbParameters | None = None, known: Known | None = None
) -> tuple[tuple[SmbChannel, ...], tuple[str, str] | None] | str:
    """SMB Multichannel's connections between two hosts (channels alike are one object), and the
    uplinks its team-interface connections leave and arrive by (None if it has none); or why there
    are none. Made once per pair of kinds of host (`Known.channels`)."""
    sides = (_smb_side(scenario, source, known), _smb_side(scenario, target, known))
    if not sides[0].candidates or not sides[1].candidates:
        empty = source if not sides[0].candidates else target
        return f"SMB finds no interface for live migration on {empty}: no cabled NIC or team (in its networks setting)"
    smb = smb or SmbParameters()
    key = (sides[0].shape, sides[1].shape, smb)
    made = None if known is None else known.channels.get(key)
    if made is None:
        channels, via = _channels(sides, smb)
        alike: dict[SmbChannel, SmbChannel] = {}
        made = tuple(alike.setdefault(channel, channel) for channel in channels), via
        if known is not None:
            known.channels[key] = made
    return made


def _channels(
    sides: tuple[_SmbSide, _SmbSide], smb: SmbParameters
) -> tuple[tuple[SmbChannel, ...], tuple[str, str] | None]:
    """SMB's channels between hosts of these sides, their NICs named without the hosts' names, and
    the uplinks its team-interface channels use."""
    # SMB Direct where both hosts have an RDMA interface; else SMB over TCP (BEHAVIOUR.md), over RDMA
    # NICs too when they are in an LBFO team, which gives no RDMA: the team interface is an RSS one.
    rdma = all(side.rdma for side in sides)
    pairs = list(zip(*(side.rdma if rdma else side.tcp for side in sides)))
    # The uplink pairs whose connections the team rules place (each team interface its own), in pair order.
    unbound = list(
        dict.fromkeys((a.uplink, b.uplink) for a, b in pairs if (a.team is not None or b.team is not None) and not rdma)
    )
    if rdma:
        per_interface = smb.connections_per_rdma_interface
    elif all(i.rss for pair in pairs for i in pair):
        per_interface = smb.connections_per_rss_interface
    else:
        per_interface = smb.connections_per_interface
    channels: list[SmbChannel] = []
    bound: list[tuple[str | None, str | None]]
    for a, b in pairs:
        if a.team is None and b.team is None:
            bound = [(a.nics[0].name, b.nics[0].name)]
        elif rdma:  # one RDMA host vNIC per SET member, mapped to it
            bound = [(x.name, y.name) for x, y in zip(a.nics, b.nics)]
        else:
            bound = [(None, None)]  # the teams' rules place each connection, from these uplinks
        via = None if bound != [(None, None)] else (a.uplink, b.uplink)
        for _ in range(per_interface):
            channels += [SmbChannel(out_nic, in_nic, rdma, via) for out_nic, in_nic in bound]
    # At most MaximumConnectionCountPerServer in all (the interfaces' first ones kept).
    return tuple(channels[: smb.max_connections_per_server]), next(iter(unbound), None)
