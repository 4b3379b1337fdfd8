"""A host's teams and virtual switches: LBFO teams (Get-NetLbfoTeam, -Member) and the external virtual
switches (Get-VMSwitch) with their uplink, a NIC, an LBFO team's interface or a SET team (Get-VMSwitchTeam).

A SET team has no name of its own in Windows: it is its switch's, so it is named ``<switch>-set``.
Members that are no enabled physical adapter, internal and private switches, and switches without an
uplink are left out, each said so.
"""

from __future__ import annotations

from hvnet.importers.config.adapters import Adapters
from hvnet.importers.config.dump import Node, by_name, section_error
from hvnet.importers.config.names import clean_name, unique_name
from hvnet.importers.config.record import Assumptions, Noted, stated
from hvnet.model.scenario import (
    AddressHash,
    LoadBalancing,
    Nic,
    Team,
    TeamingMode,
    TeamKind,
    VirtualSwitch,
)

__all__ = ["import_lbfo_teams", "import_vswitches"]

_TEAMING_MODES = {
    "Static": TeamingMode.STATIC,
    "SwitchIndependent": TeamingMode.SWITCH_INDEPENDENT,
    "Lacp": TeamingMode.LACP,
}
_ALGORITHMS: dict[str, tuple[LoadBalancing, AddressHash | None]] = {
    "TransportPorts": (LoadBalancing.ADDRESS_HASH, AddressHash.TRANSPORT_PORTS),
    "IPAddresses": (LoadBalancing.ADDRESS_HASH, AddressHash.IP_ADDRESSES),
    "MacAddresses": (LoadBalancing.ADDRESS_HASH, AddressHash.MAC_ADDRESSES),
    "HyperVPort": (LoadBalancing.HYPERV_PORT, None),
    "Dynamic": (LoadBalancing.DYNAMIC, None),
}


def import_lbfo_teams(
    root: Node, host: str, lbfo: list[Node], nics: dict[str, Noted[Nic]], assumptions: Assumptions
) -> list[Noted[Team]]:
    """The LBFO teams that have an enabled physical member, in Get-NetLbfoTeam's order."""
    member_rows = root.get("NetLbfoTeamMember").objects()
    teams: list[Noted[Team]] = []
    for row in lbfo:
        team = _lbfo_team(row, member_rows, host, nics, assumptions)
        if team is not None:
            teams.append(team)
    return teams


def _lbfo_team(
    row: Node, member_rows: list[Node], host: str, nics: dict[str, Noted[Nic]], assumptions: Assumptions
) -> Noted[Team] | None:
    team_name = row.get("Name").text() or ""
    listed = row.get("Members").texts()
    rows = [m for m in member_rows if (m.get("Team").text() or "").casefold() == team_name.casefold()]
    if not listed:
        listed = [m.get("Name").text() or "" for m in rows]
    members = [nics[m.casefold()].item.name for m in listed if m.casefold() in nics]
    notes: list[str] = []
    for missing in (m for m in listed if m.casefold() not in nics):
        notes.append(
            assumptions.add(
                host, f"team {team_name}: member {missing} is not an enabled physical adapter and is left out"
            )
        )
    standby = _standby(rows, nics)
    mode = row.get("TeamingMode").enum("TeamingMode")
    if mode is None:
        notes.append(assumptions.add(host, f"team {team_name}: no TeamingMode; switch independent"))
    algorithm = row.get("LoadBalancingAlgorithm").enum("LoadBalancingAlgorithm")
    if algorithm is None:
        notes.append(assumptions.add(host, f"team {team_name}: no LoadBalancingAlgorithm; dynamic (LBFO's default)"))
    load_balancing, address_hash = _ALGORITHMS[algorithm or "Dynamic"]
    if not members:
        assumptions.add(host, f"team {team_name} has no enabled physical member and is left out")
        return None
    team = stated(
        Team,
        name=clean_name(team_name),
        kind=TeamKind.LBFO,
        members=tuple(members),
        standby=standby if len(members) >= 2 else None,
        mode=_TEAMING_MODES[mode or "SwitchIndependent"],
        load_balancing=load_balancing,
        address_hash=address_hash,
    )
    return Noted(team, notes)


def _standby(member_rows: list[Node], nics: dict[str, Noted[Nic]]) -> str | None:
    """The member whose AdministrativeMode is Standby (the last listed, if several), if it is a NIC."""
    standby: str | None = None
    for row in member_rows:
        if row.get("AdministrativeMode").enum("AdministrativeMode") == "Standby":
            member = (row.get("Name").text() or "").casefold()
            if member in nics:
                standby = nics[member].item.name
    return standby


def import_vswitches(
    root: Node,
    host: str,
    nics: dict[str, Noted[Nic]],
    teams: list[Noted[Team]],
    adapters: Adapters,
    assumptions: Assumptions,
) -> tuple[list[Noted[VirtualSwitch]], list[Noted[Team]]]:
    """The external virtual switches, each on its own uplink, and the SET teams of those with embedded teaming."""
    switches_node = root.get("VMSwitch")
    if switches_node.missing:
        assumptions.add(host, f"no virtual switches ({section_error(root, 'VMSwitch')}): none imported")
        return [], []
    set_rows = by_name(root.get("VMSwitchTeam").objects())
    taken = {n.casefold() for n in nics} | {t.item.name.casefold() for t in teams}
    vswitches: list[Noted[VirtualSwitch]] = []
    set_teams: list[Noted[Team]] = []
    used_uplinks: set[str] = set()
    for switch in switches_node.objects():
        raw_name = switch.get("Name").text()
        if raw_name is None:
            raise switch.get("Name").error("missing; every virtual switch has a name")
        kind = switch.get("SwitchType").enum("SwitchType")
        descriptions = _uplink_descriptions(switch)
        if kind is None:
            kind = "External" if descriptions else "Internal"
        if kind != "External" or not descriptions:
            assumptions.add(host, f"virtual switch {raw_name} is {kind.lower()} (no physical uplink) and is left out")
            continue
        embedded = switch.get("EmbeddedTeamingEnabled").flag() is True or len(descriptions) > 1
        set_row = set_rows.get(raw_name.casefold())
        if embedded and set_row is not None:
            listed = [
                (d, n) for n in set_row.get("NetAdapterInterfaceDescription").items() if (d := n.text()) is not None
            ]
            descriptions = listed or descriptions
        uplinks = _uplinks(descriptions, embedded, raw_name, host, nics, adapters, assumptions)
        if not uplinks:
            assumptions.add(host, f"virtual switch {raw_name} has no enabled uplink and is left out")
            continue
        uplink = uplinks[0]
        if embedded:
            team = _set_team(clean_name(raw_name), raw_name, set_row, uplinks, taken, host, assumptions)
            set_teams.append(team)
            uplink = team.item.name
        if uplink.casefold() in used_uplinks:
            assumptions.add(host, f"virtual switch {raw_name} shares its uplink {uplink} with another and is left out")
            continue
        used_uplinks.add(uplink.casefold())
        vswitches.append(Noted(VirtualSwitch.model_construct(name=clean_name(raw_name), uplink=uplink)))
    return vswitches, set_teams


def _uplink_descriptions(switch: Node) -> list[tuple[str, Node]]:
    """The InterfaceDescriptions a switch names its uplink adapters by (NetAdapterInterfaceDescriptions, else the
    single NetAdapterInterfaceDescription), each with where it is in the dump."""
    descriptions = [
        (d, n) for n in switch.get("NetAdapterInterfaceDescriptions").items() if (d := n.text()) is not None
    ]
    if not descriptions:
        single = switch.get("NetAdapterInterfaceDescription")
        if single.text() is not None:
            descriptions = [(single.text() or "", single)]
    return descriptions


def _uplinks(
    descriptions: list[tuple[str, Node]],
    embedded: bool,
    switch: str,
    host: str,
    nics: dict[str, Noted[Nic]],
    adapters: Adapters,
    assumptions: Assumptions,
) -> list[str]:
    """The NICs (or, without embedded teaming, the LBFO team) a switch's uplink descriptions name."""
    uplinks: list[str] = []
    for description, node in descriptions:
        found = adapters.by_description.get(description.casefold())
        if found is None:
            raise node.error(f"{description!r} is the InterfaceDescription of no adapter in NetAdapter")
        adapter, physical = found
        key = adapter.casefold()
        if physical and key in nics:
            uplinks.append(nics[key].item.name)
        elif not physical and key in adapters.team_interfaces and not embedded:
            uplinks.append(adapters.team_interfaces[key])
        elif key in adapters.skipped:
            assumptions.add(host, f"virtual switch {switch}: uplink {adapter} {adapters.skipped[key][1]}")
        else:
            raise node.error(f"{description!r} ({adapter}) is neither a physical adapter nor an LBFO team interface")
    return uplinks


def _set_team(
    switch_name: str,
    raw_name: str,
    set_row: Node | None,
    uplinks: list[str],
    taken: set[str],
    host: str,
    assumptions: Assumptions,
) -> Noted[Team]:
    """The SET team of a switch with embedded teaming: its members and Get-VMSwitchTeam's load balancing."""
    notes: list[str] = []
    if set_row is None:
        load_balancing = LoadBalancing.HYPERV_PORT
        notes.append(
            assumptions.add(
                host,
                f"SET switch {raw_name}: no Get-VMSwitchTeam row; Hyper-V port (the default from Windows Server 2019)",
            )
        )
    else:
        algorithm = set_row.get("LoadBalancingAlgorithm").enum("VMSwitchLoadBalancingAlgorithm")
        load_balancing = LoadBalancing.DYNAMIC if algorithm == "Dynamic" else LoadBalancing.HYPERV_PORT
        if algorithm is None:
            notes.append(assumptions.add(host, f"SET switch {raw_name}: no LoadBalancingAlgorithm; Hyper-V port"))
        set_row.get("TeamingMode").enum("VMSwitchTeamingMode")  # read to refuse a bad value: SET is switch independent
    team = Team.model_construct(
        name=unique_name(f"{switch_name}-set", taken),
        kind=TeamKind.SET,
        members=tuple(uplinks),
        mode=TeamingMode.SWITCH_INDEPENDENT,
        load_balancing=load_balancing,
    )
    return Noted(team, notes)
