"""Cross-reference checks: do the names in a scenario refer to things that exist?

pydantic checks each field on its own; these checks look across fields: names
are unique, teams list NICs of their host, cables join existing NICs and
switch ports and no end is cabled twice, VMs run on existing hosts, flows and
events name existing things, a migrate event moves a VM to another
existing host, a drain or rolling update names hosts of a cluster that has
another host, a host's VMs fit in its memory, and the live-migration
settings name the host's own interfaces (RDMA for smb_direct). They also
refuse the team designs Windows
refuses (BEHAVIOUR.md): too many members, a SET team of unlike NICs or with
LBFO-only settings, a static or LACP team across switches that are not one
logical switch, and a team inside a VM other than two vNICs, switch
independent, address hash.

The checks read the raw data (plain dicts and lists, as loaded from YAML), not
a validated ``Scenario``, so that a file with both a bad unit and an unknown
host reports both at once. Anything of the wrong type is skipped here: pydantic
reports it. Each finding is the location of the offending value and a message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from hvnet.errors import UnitError
from hvnet.model.scenario import (
    EventAction,
    LoadBalancing,
    MigrationOption,
    Nic,
    Switch,
    TeamingMode,
    TeamKind,
    split_endpoint,
)
from hvnet.units import format_bitrate, format_bytes, parse_bitrate, parse_bytes, parse_duration, show_value

__all__ = ["Finding", "Loc", "check_references"]

Loc = tuple[str | int, ...]
"""Where a value is, as pydantic says it: ("hosts", 0, "nics", 1, "speed")."""


@dataclass(frozen=True)
class Finding:
    """One cross-reference mistake: where it is and what is wrong."""

    loc: Loc
    message: str


@dataclass
class _Host:
    nics: dict[str, Loc] = field(default_factory=dict)
    nic_entries: dict[str, Mapping[str, object]] = field(default_factory=dict)  # NIC name -> its fields
    teams: dict[str, Loc] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)  # member NIC -> team
    vswitches: dict[str, Loc] = field(default_factory=dict)
    vswitch_uplink: dict[str, str] = field(default_factory=dict)  # virtual switch -> its NIC or team


@dataclass
class _Switch:
    ports: int | None  # None: the port count itself is invalid (pydantic says so)
    port_speed_given: bool
    stack: str | None  # switches sharing a stack name act as one (stack, MLAG, VLT, vPC)


@dataclass(frozen=True)
class _SwitchDependentTeam:
    """A static or LACP team, kept until the cables say where its members go."""

    at: Loc
    host: str
    mode: str
    members: list[str]


@dataclass(frozen=True)
class _End:
    """One resolved end of a cable: a host NIC or a switch port."""

    device: str
    port: str | int  # NIC name, or switch port number
    on_switch: bool

    def __str__(self) -> str:
        return f"{self.device}/{self.port}"


_DEFAULT_PORTS = Switch.model_fields["ports"].default


def _items(data: Mapping[str, object], key: str) -> Iterator[tuple[int, Mapping[str, object]]]:
    """The entries of a list field that are mappings, with their index."""
    entries = data.get(key)
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            if isinstance(entry, Mapping):
                yield index, entry


def _text(entry: Mapping[str, object], key: str) -> str | None:
    value = entry.get(key)
    return value if isinstance(value, str) else None


def _names(names: Iterable[str]) -> str:
    """``"hv1, hv2"``, shortened for long lists, or ``"none"``."""
    shown = list(names)
    if not shown:
        return "none"
    if len(shown) > 8:
        return f"{', '.join(shown[:8])}, ... ({len(shown)} in all)"
    return ", ".join(shown)


def _and(names: list[str]) -> str:
    """``"tor1"``, ``"tor1 and tor2"``, ``"tor1, tor2 and tor3"``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_MAX_MEMBERS = {TeamKind.LBFO.value: 32, TeamKind.SET.value: 8}
_MEMBER_RULE = {
    TeamKind.LBFO.value: "an LBFO team has at most 32 members (NIC teaming supports 1–32 NICs)",
    TeamKind.SET.value: "a SET team has at most 8 members (Switch Embedded Teaming supports 1–8 identical NICs)",
}
_SWITCH_DEPENDENT = (TeamingMode.STATIC.value, TeamingMode.LACP.value)


def _set_traits(nic: Mapping[str, object]) -> dict[str, tuple[object, str]]:
    """What SET compares between members: field -> (value to compare, value to show).

    A value pydantic refuses is left out (it reports it), and so is a model
    that is not stated: an unknown model matches any.
    """
    traits: dict[str, tuple[object, str]] = {}
    speed = nic.get("speed")
    if isinstance(speed, str):
        try:
            rate = parse_bitrate(speed)
        except UnitError:
            pass
        else:
            traits["speed"] = (rate, format_bitrate(rate))
    model = nic.get("model")
    if isinstance(model, str):
        traits["model"] = (" ".join(model.split()).casefold(), show_value(model))
    rdma = nic.get("rdma", Nic.model_fields["rdma"].default)
    if isinstance(rdma, bool):
        traits["rdma"] = (rdma, show_value(rdma))
    mtu = nic.get("mtu", Nic.model_fields["mtu"].default)
    if isinstance(mtu, int) and not isinstance(mtu, bool):
        traits["mtu"] = (mtu, show_value(mtu))
    return traits


def _not_one_switch(mode: str, switches: list[tuple[str, str | None]]) -> str:
    """Why a static or LACP team may not span these switches (name, stack), and what to do."""
    team = "an LACP team's" if mode == TeamingMode.LACP.value else "a static team's"
    pair = len(switches) == 2
    if all(stack is None for _, stack in switches):
        names = _and([name for name, _ in switches])
        why = (
            "which are neither stacked nor in an MLAG/VLT/vPC pair"
            if pair
            else "none of which are stacked or in an MLAG/VLT/vPC group"
        )
    else:
        names = _and([f"{name} ({'not stacked' if stack is None else f'stack: {stack}'})" for name, stack in switches])
        why = f"which are not one stack or MLAG/VLT/vPC {'pair' if pair else 'group'}"
    fix = "give both switches the same stack: name" if pair else "give all these switches the same stack: name"
    return f"{team} members go to switches {names}, {why} ({fix}, or use switch independent teaming)"


class _Checker:
    def __init__(self, data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> None:
        self.data = data
        self.line_of = line_of
        self.findings: list[Finding] = []
        self.hosts: dict[str, _Host] = {}
        self.switches: dict[str, _Switch] = {}
        self.vms: dict[str, None] = {}  # a dict keeps the file's order in messages
        self.cabled: dict[tuple[str, str | int], Loc] = {}
        self.peers: dict[tuple[str, str | int], _End] = {}  # a cabled end -> the other end
        self.switch_dependent: list[_SwitchDependentTeam] = []

    def report(self, loc: Loc, message: str) -> None:
        self.findings.append(Finding(loc, message))

    def where(self, loc: Loc) -> str:
        """``"at line 28"``, or the field path when the line is unknown."""
        line = self.line_of(loc)
        if line is not None:
            return f"at line {line}"
        return "at " + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in loc).lstrip(".")

    def run(self) -> list[Finding]:
        self.check_names()
        for index, host in _items(self.data, "hosts"):
            name = _text(host, "name")
            known = _Host()
            if name is not None and name not in self.hosts:  # the first of duplicate hosts counts
                self.hosts[name] = known
            self.check_host(("hosts", index), host, known)
        for _, switch in _items(self.data, "switches"):
            name = _text(switch, "name")
            if name is not None and name not in self.switches:
                ports = switch.get("ports", _DEFAULT_PORTS)
                count = ports if isinstance(ports, int) and not isinstance(ports, bool) else None
                self.switches[name] = _Switch(count, switch.get("port_speed") is not None, _text(switch, "stack"))
        self.vms = {name: None for _, vm in _items(self.data, "vms") if (name := _text(vm, "name")) is not None}
        self.check_cables()
        self.check_switch_dependent_teams()
        self.check_vms()
        self.check_host_memory()
        self.check_traffic()
        self.check_events()
        return self.findings

    # --- names ---------------------------------------------------------------------

    def check_names(self) -> None:
        """Hosts, switches and VMs share one namespace."""
        seen: dict[str, tuple[str, Loc]] = {}
        for key, kind in (("hosts", "host"), ("switches", "switch"), ("vms", "VM")):
            for index, entry in _items(self.data, key):
                name = _text(entry, "name")
                if name is None:
                    continue
                loc: Loc = (key, index, "name")
                if name in seen:
                    first_kind, first_loc = seen[name]
                    self.report(loc, f"{name!r} is already the name of a {first_kind} {self.where(first_loc)}")
                else:
                    seen[name] = (kind, loc)

    # --- inside a host ---------------------------------------------------------------

    def check_host(self, at: Loc, host: Mapping[str, object], known: _Host) -> None:
        host_name = _text(host, "name") or "this host"
        for index, nic in _items(host, "nics"):
            name = _text(nic, "name")
            if name is None:
                continue
            loc = (*at, "nics", index, "name")
            if name in known.nics:
                self.report(loc, f"{name!r} is already a NIC of {host_name} {self.where(known.nics[name])}")
            else:
                known.nics[name] = loc
                known.nic_entries[name] = nic
        for index, team in _items(host, "teams"):
            self.check_team((*at, "teams", index), team, host_name, known)
        uplinked: dict[str, Loc] = {}
        for index, vswitch in _items(host, "vswitches"):
            loc = (*at, "vswitches", index)
            name = _text(vswitch, "name")
            if name is not None:
                if name in known.vswitches:
                    self.report(
                        (*loc, "name"),
                        f"{name!r} is already a virtual switch of {host_name} {self.where(known.vswitches[name])}",
                    )
                else:
                    known.vswitches[name] = (*loc, "name")
            uplink = _text(vswitch, "uplink")
            if uplink is None:
                continue
            if name is not None:
                known.vswitch_uplink.setdefault(name, uplink)
            if uplink not in known.nics and uplink not in known.teams:
                choices = f"NICs: {_names(known.nics)}; teams: {_names(known.teams)}"
                self.report((*loc, "uplink"), f"unknown uplink {uplink!r}; {host_name} has {choices}")
            elif uplink in known.team_of:
                self.report(
                    (*loc, "uplink"),
                    f"{uplink!r} is a member of team {known.team_of[uplink]}; make the team the uplink",
                )
            elif uplink in uplinked:
                where = self.where(uplinked[uplink])
                self.report((*loc, "uplink"), f"{uplink!r} is already the uplink of a virtual switch {where}")
            else:
                uplinked[uplink] = (*loc, "uplink")
        self.check_migration_networks(at, host, host_name, known)
        self.check_rdma_option(at, host, host_name, known)

    def check_rdma_option(self, at: Loc, host: Mapping[str, object], host_name: str, known: _Host) -> None:
        """The smb_direct option needs an RDMA NIC that is not in an LBFO team (which gives no RDMA)."""
        settings = host.get("live_migration")
        if not isinstance(settings, Mapping) or settings.get("option") != MigrationOption.SMB_DIRECT.value:
            return
        lbfo = {
            _text(team, "name"): team
            for _, team in _items(host, "teams")
            if team.get("kind", TeamKind.LBFO.value) == TeamKind.LBFO.value
        }
        rdma = [name for name, nic in known.nic_entries.items() if nic.get("rdma") is True]
        usable = [name for name in rdma if known.team_of.get(name) not in lbfo]
        if usable:
            return
        why = (
            f"its RDMA NICs ({_and(rdma)}) are in an LBFO team, which gives no RDMA"
            if rdma
            else f"none of {host_name}'s NICs has rdma: true"
        )
        self.report((*at, "live_migration", "option"), f"smb_direct needs RDMA, but {why}; use option smb, or RDMA NICs outside LBFO teams")

    def check_migration_networks(self, at: Loc, host: Mapping[str, object], host_name: str, known: _Host) -> None:
        """live_migration.networks names interfaces of the host: NICs outside teams, teams, virtual switches."""
        settings = host.get("live_migration")
        networks = settings.get("networks") if isinstance(settings, Mapping) else None
        if not isinstance(networks, list):
            return  # absent; pydantic reports a value that is not a list
        for k, name in enumerate(networks):
            loc = (*at, "live_migration", "networks", k)
            if not isinstance(name, str):
                continue
            if name in known.team_of:
                self.report(loc, f"{name!r} is a member of team {known.team_of[name]}; live migration uses the team: list {known.team_of[name]}")
            elif name not in known.nics and name not in known.teams and name not in known.vswitches:
                choices = f"NICs: {_names(known.nics)}; teams: {_names(known.teams)}; virtual switches: {_names(known.vswitches)}"
                self.report(loc, f"unknown interface {name!r}; {host_name} has {choices}")

    def check_team(self, at: Loc, team: Mapping[str, object], host_name: str, known: _Host) -> None:
        name = _text(team, "name")
        if name is not None:
            if name in known.nics:
                self.report((*at, "name"), f"{name!r} is already a NIC of {host_name}; a team needs its own name")
            elif name in known.teams:
                where = self.where(known.teams[name])
                self.report((*at, "name"), f"{name!r} is already a team of {host_name} {where}")
            else:
                known.teams[name] = (*at, "name")
        team_name = name or "this team"
        members = team.get("members")
        valid: list[str] = []
        if isinstance(members, list):
            for index, member in enumerate(members):
                if not isinstance(member, str):
                    continue
                loc = (*at, "members", index)
                if member not in known.nics:
                    self.report(loc, f"unknown NIC {member!r}; {host_name} has NICs: {_names(known.nics)}")
                elif member in valid:
                    self.report(loc, f"{member!r} is listed twice")
                elif member in known.team_of:
                    other = known.team_of[member]
                    self.report(loc, f"{member!r} is already a member of team {other}; a NIC can be in one team only")
                else:
                    valid.append(member)
                    known.team_of[member] = team_name
        named = list(dict.fromkeys(m for m in members if isinstance(m, str))) if isinstance(members, list) else []
        is_set = team.get("kind") == TeamKind.SET.value
        kind = team.get("kind", TeamKind.LBFO.value)
        if isinstance(kind, str) and kind in _MAX_MEMBERS and isinstance(members, list):
            if len(members) > _MAX_MEMBERS[kind]:
                self.report((*at, "members"), f"{_MEMBER_RULE[kind]}; this one has {len(members)}")
            if is_set:
                self.check_set_members(at, members, valid, known)
        mode = team.get("mode")
        if kind == TeamKind.LBFO.value and isinstance(mode, str) and mode in _SWITCH_DEPENDENT:
            if self.hosts.get(host_name) is known:  # not a duplicate host: cables name the first
                self.switch_dependent.append(_SwitchDependentTeam(at, host_name, mode, valid))
        standby = _text(team, "standby")
        if standby is not None:
            if is_set:
                self.report((*at, "standby"), "a SET team has no standby member; all members are active")
            elif isinstance(members, list) and standby not in named:
                choices = ", ".join(named) or "its members"
                self.report((*at, "standby"), f"{standby!r} is not a member of {team_name}; choose one of {choices}")
            elif named == [standby]:
                message = f"{standby!r} is the only member; a team needs an active member besides the standby"
                self.report((*at, "standby"), message)
        if is_set and team.get("mode") in (TeamingMode.STATIC.value, TeamingMode.LACP.value):
            message = "a SET team is always switch_independent; static and lacp need kind: lbfo"
            self.report((*at, "mode"), message)
        if is_set and team.get("load_balancing") == LoadBalancing.ADDRESS_HASH.value:
            message = "a SET team balances by hyperv_port or dynamic; address_hash needs kind: lbfo"
            self.report((*at, "load_balancing"), message)

    def check_set_members(self, at: Loc, members: list[object], valid: list[str], known: _Host) -> None:
        """SET teams identical NICs: each member is compared with the first."""
        if not valid:
            return
        first = valid[0]
        reference = _set_traits(known.nic_entries[first])
        for member in valid[1:]:
            traits = _set_traits(known.nic_entries[member])
            differences = [
                f"{key} ({shown} vs {reference[key][1]})"
                for key, (value, shown) in traits.items()
                if key in reference and value != reference[key][0]
            ]
            if differences:
                self.report(
                    (*at, "members", members.index(member)),
                    "a SET team's members must be identical NICs (same speed, model, rdma and mtu);"
                    f" {member} differs from {first} in {_and(differences)}",
                )

    # --- cables ------------------------------------------------------------------------

    def resolve(self, text: str) -> _End | str:
        """The host NIC or switch port an endpoint names, or why it names none."""
        try:
            device, port = split_endpoint(text)
        except ValueError as error:
            return str(error)
        if device in self.hosts:
            host = self.hosts[device]
            if port in host.nics:
                return _End(device, port, on_switch=False)
            if port in host.teams:
                members = [nic for nic, team in host.team_of.items() if team == port]
                return f"{port!r} is a team of {device}; name one of its NICs: {_names(members)}"
            return f"{device} has no NIC {port!r}; its NICs: {_names(host.nics)}"
        if device in self.switches:
            ports = self.switches[device].ports
            if not (port.isascii() and port.isdigit()):
                return f"{port!r} is not a port number of switch {device}; write {device}/1 .. {device}/{ports or 'N'}"
            number = int(port)
            if ports is not None and not 1 <= number <= ports:
                return f"port {number} is out of range; {device} has ports 1..{ports}"
            return _End(device, number, on_switch=True)
        if device in self.vms:
            return f"{device!r} is a VM; a cable joins host NICs and switch ports"
        return f"unknown host or switch {device!r}; hosts: {_names(self.hosts)}; switches: {_names(self.switches)}"

    def check_cables(self) -> None:
        for index, cable in _items(self.data, "cables"):
            ends: list[_End] = []
            for side in ("a", "b"):
                text = _text(cable, side)
                if text is None:
                    continue
                loc: Loc = ("cables", index, side)
                end = self.resolve(text)
                if isinstance(end, str):
                    self.report(loc, end)
                    continue
                if ends and ends[0].device == end.device and (not end.on_switch or ends[0].port == end.port):
                    what = f"host {end.device}" if not end.on_switch else f"port {end}"
                    self.report(loc, f"a cable from {what} to itself; connect it to another device")
                    continue
                key = (end.device, end.port)
                if key in self.cabled:
                    self.report(loc, f"{text.strip()} is already cabled {self.where(self.cabled[key])}")
                    continue
                self.cabled[key] = loc
                ends.append(end)
            if len(ends) == 2:
                self.peers[(ends[0].device, ends[0].port)] = ends[1]
                self.peers[(ends[1].device, ends[1].port)] = ends[0]
            if (
                len(ends) == 2
                and all(end.on_switch for end in ends)
                and cable.get("speed") is None
                and not any(self.switches[end.device].port_speed_given for end in ends)
            ):
                self.report(
                    ("cables", index),
                    f"a cable between switches {ends[0].device} and {ends[1].device} needs a speed"
                    " (e.g. speed: 40Gbps) when neither switch sets port_speed",
                )

    def check_switch_dependent_teams(self) -> None:
        """The switches a static or LACP team's members are cabled to must act as one switch."""
        for team in self.switch_dependent:
            switches: dict[str, str | None] = {}  # name -> stack, in the members' order
            for member in team.members:
                peer = self.peers.get((team.host, member))
                if peer is not None and peer.on_switch:
                    switches[peer.device] = self.switches[peer.device].stack
            stacks = set(switches.values())
            if len(switches) > 1 and (len(stacks) > 1 or None in stacks):
                self.report((*team.at, "mode"), _not_one_switch(team.mode, list(switches.items())))

    # --- VMs, traffic, events -------------------------------------------------------------

    def check_vms(self) -> None:
        for index, vm in _items(self.data, "vms"):
            host = _text(vm, "host")
            if host is not None and host not in self.hosts:
                self.report(("vms", index, "host"), f"unknown host {host!r}; hosts: {_names(self.hosts)}")
                host = None
            self.check_vm_memory(("vms", index), vm)
            team = vm.get("team")
            if isinstance(team, Mapping):
                self.check_vm_team(("vms", index, "team"), team, host)
            if host is None:
                continue
            vswitch = _text(vm, "vswitch")
            known = self.hosts[host].vswitches
            if vswitch is not None and vswitch not in known:
                self.report(
                    ("vms", index, "vswitch"),
                    f"{host} has no virtual switch {vswitch!r}; its virtual switches: {_names(known)}",
                )
            elif vswitch is not None and isinstance(team, Mapping):
                self.report(
                    ("vms", index, "vswitch"),
                    "a VM with a team sends through the team's two virtual switches; leave vswitch out",
                )

    def check_host_memory(self) -> None:
        """The VMs a host runs at the start fit in the memory it states."""
        assigned: dict[str, list[tuple[str, int]]] = {}
        for _, vm in _items(self.data, "vms"):
            name, runs_on, memory = _text(vm, "name"), _text(vm, "host"), _size(vm.get("memory"))
            if name is not None and runs_on is not None and memory is not None:
                assigned.setdefault(runs_on, []).append((name, memory))
        for index, host in _items(self.data, "hosts"):
            name, memory = _text(host, "name"), _size(host.get("memory"))
            vms = assigned.get(name or "", [])
            total = sum(size for _, size in vms)
            if memory is not None and total > memory:
                self.report(
                    ("hosts", index, "memory"),
                    f"{name} has {format_bytes(memory)} for VMs, but its VMs ({_and([v for v, _ in vms])}) are "
                    f"assigned {format_bytes(total)}; give it more memory or move VMs to another host",
                )

    def check_vm_memory(self, at: Loc, vm: Mapping[str, object]) -> None:
        """populated and working_set are parts of memory."""
        sizes: dict[str, int] = {}
        for key in ("memory", "populated", "working_set"):
            value = vm.get(key)
            if isinstance(value, str):
                try:
                    sizes[key] = parse_bytes(value)
                except UnitError:
                    pass  # pydantic reports it
        if "memory" not in sizes:
            return
        memory = format_bytes(sizes["memory"])
        what = {"populated": "the memory that is not zero pages", "working_set": "the memory the guest writes to"}
        for key, meaning in what.items():
            if key in sizes and sizes[key] > sizes["memory"]:
                shown = format_bytes(sizes[key])
                self.report((*at, key), f"{shown} is more than memory ({memory}); {key} is {meaning}, at most memory")

    def check_vm_team(self, at: Loc, team: Mapping[str, object], host: str | None) -> None:
        """A team inside a VM: two vNICs on two virtual switches, switch independent, address hash."""
        members = team.get("members")
        if isinstance(members, list):
            if len(members) != 2:
                self.report(
                    (*at, "members"),
                    "a team inside a VM has exactly 2 members (two vNICs, each on its own virtual switch"
                    f" of the host); this one has {len(members)}",
                )
            vswitches = self.hosts[host].vswitches if host is not None else None
            seen: set[str] = set()
            for index, member in enumerate(members):
                if not isinstance(member, str):
                    continue
                loc = (*at, "members", index)
                if member in seen:
                    message = "a team inside a VM needs two different virtual switches of its host"
                    self.report(loc, f"{member!r} is listed twice; {message}")
                elif vswitches is not None and member not in vswitches:
                    choices = _names(vswitches)
                    self.report(loc, f"{host} has no virtual switch {member!r}; its virtual switches: {choices}")
                elif host is not None and self.hosts[host].vswitch_uplink.get(member) in self.hosts[host].teams:
                    self.report(
                        loc,
                        f"{member!r} is bound to team {self.hosts[host].vswitch_uplink[member]!r}; hvnet simulates"
                        " a team inside a VM over virtual switches each bound to one NIC (the design for SR-IOV),"
                        " not over host teams",
                    )
                seen.add(member)
        if team.get("mode") in _SWITCH_DEPENDENT:
            message = "a team inside a VM is always switch_independent; static and lacp are not supported in a guest"
            self.report((*at, "mode"), message)
        if team.get("load_balancing") in (LoadBalancing.HYPERV_PORT.value, LoadBalancing.DYNAMIC.value):
            message = (
                "a team inside a VM balances by address_hash only; hyperv_port and dynamic are not supported"
                " in a guest"
            )
            self.report((*at, "load_balancing"), message)

    def check_traffic(self) -> None:
        names: dict[str, Loc] = {}
        for index, flow in _items(self.data, "traffic"):
            name = _text(flow, "name")
            if name is not None:
                if name in names:
                    where = self.where(names[name])
                    self.report(("traffic", index, "name"), f"{name!r} is already the name of a flow {where}")
                else:
                    names[name] = ("traffic", index, "name")
            ends = {side: _text(flow, side) for side in ("from", "to")}
            for side, end in ends.items():
                if end is not None and end not in self.hosts and end not in self.vms:
                    self.report(
                        ("traffic", index, side),
                        f"unknown host or VM {end!r}; hosts: {_names(self.hosts)}; VMs: {_names(self.vms)}",
                    )
            if ends["from"] is not None and ends["from"] == ends["to"]:
                self.report(("traffic", index, "to"), f"a flow from {ends['to']} to itself; from and to must differ")

    def check_events(self) -> None:
        actions = {action.value for action in EventAction}
        operations = {EventAction.DRAIN.value, EventAction.ROLLING_UPDATE.value}
        migrations: list[tuple[float, int, str, str]] = []  # (at, index, VM, destination host)
        first_operation = float("inf")  # time of the first drain or rolling update
        for index, event in _items(self.data, "events"):
            action, target = _text(event, "action"), _text(event, "target")
            if action not in actions:
                continue  # pydantic reports a bad action
            self.check_event_fields(index, event, action)
            if action in operations:
                when = _time(event)
                first_operation = min(first_operation, when if when is not None else float("-inf"))
            if action == EventAction.ROLLING_UPDATE.value:
                self.check_rolling_update(index, event)
                continue
            if target is None:
                if event.get("target") is None:
                    self.report(("events", index, "target"), f"{action} needs a target ({_TARGETS[action]})")
                continue  # pydantic reports a target that is not text
            if action == EventAction.MIGRATE.value:
                self.check_migrate(index, event, target, migrations)
            elif action == EventAction.DRAIN.value:
                self.check_drain(index, target)
            elif (message := self.event_target_problem(action, target)) is not None:
                self.report(("events", index, "target"), message)
        # Where each VM runs when it is migrated: its host, then each earlier migration's destination.
        # Drains and rolling updates place VMs by memory; the simulation checks the migrations after them.
        runs_on: dict[str, str] = {}
        for _, vm in _items(self.data, "vms"):
            name, host = _text(vm, "name"), _text(vm, "host")
            if name is not None and host in self.hosts and name not in runs_on:
                runs_on[name] = host
        for at, index, vm_name, to in sorted(migrations):
            if at >= first_operation:
                break
            if runs_on.get(vm_name) == to:
                self.report(("events", index, "to"), f"{vm_name} already runs on {to}; migrate it to another host")
            runs_on[vm_name] = to

    def check_event_fields(self, index: int, event: Mapping[str, object], action: str) -> None:
        """Each event field is used by some actions only; a field given to another action is a mistake."""
        for field, takers in _EVENT_FIELDS.items():
            if event.get(field) is not None and action not in takers:
                takes = "takes" if len(takers) == 1 else "take"
                what = "a destination" if field == "to" else field
                self.report(("events", index, field), f"only {_and(sorted(takers))} {takes} {what}")
        if action == EventAction.ROLLING_UPDATE.value and event.get("target") is not None:
            self.report(("events", index, "target"), "rolling_update takes nodes (the hosts to patch, in order), not target")

    def check_drain(self, index: int, host: str) -> None:
        """A drain names a host of a cluster that has another host to take its VMs."""
        if host not in self.hosts:
            what = "a VM; drain empties a host" if host in self.vms else "not a host of the scenario"
            self.report(("events", index, "target"), f"{host!r} is {what}; hosts: {_names(self.hosts)}")
        elif len(self.hosts) < 2:
            self.report(("events", index, "target"), f"drain needs another host to move {host}'s VMs to")

    def check_rolling_update(self, index: int, event: Mapping[str, object]) -> None:
        """A rolling update patches existing hosts, each once, for a stated patch time."""
        if event.get("patch_time") is None:
            self.report(("events", index, "patch_time"), "rolling_update needs patch_time (how long each node is down), e.g. 15min")
        if len(self.hosts) < 2:
            self.report(("events", index, "action"), "a rolling update needs at least two hosts (each node's VMs go to the others)")
        nodes = event.get("nodes")
        if not isinstance(nodes, list):
            return  # absent: every host; pydantic reports a value that is not a list
        seen: set[str] = set()
        for k, node in enumerate(nodes):
            if not isinstance(node, str):
                continue
            if node not in self.hosts:
                self.report(("events", index, "nodes", k), f"{node!r} is not a host of the scenario; hosts: {_names(self.hosts)}")
            elif node in seen:
                self.report(("events", index, "nodes", k), f"{node} is listed twice; each node is patched once")
            seen.add(node)

    def check_migrate(
        self, index: int, event: Mapping[str, object], target: str, migrations: list[tuple[float, int, str, str]]
    ) -> None:
        """A migrate event names a VM and, in to:, an existing host to move it to."""
        if target in self.hosts:
            message = f"{target!r} is a host; migrate moves a VM; VMs: {_names(self.vms)}"
            self.report(("events", index, "target"), message)
        elif target not in self.vms:
            self.report(("events", index, "target"), f"unknown VM {target!r}; VMs: {_names(self.vms)}")
        to = event.get("to")
        if to is None:
            message = f"migrate needs a destination host (to: ...); hosts: {_names(self.hosts)}"
            self.report(("events", index, "to"), message)
            return
        if not isinstance(to, str):
            return  # pydantic reports it
        if to not in self.hosts:
            self.report(("events", index, "to"), f"{to} is not a host of the scenario; hosts: {_names(self.hosts)}")
            return
        when = _time(event)
        if when is None:
            return  # pydantic reports a bad time; without one the order of migrations is unknown
        if target in self.vms:
            migrations.append((when, index, target, to))

    def event_target_problem(self, action: str, target: str) -> str | None:
        kind = action.rsplit("_", 1)[0]
        if kind == "switch":
            if "/" in target:
                return f"{target!r} is not a switch; {action} needs a switch name (port_blackhole takes one port)"
            if target not in self.switches:
                return f"unknown switch {target!r}; switches: {_names(self.switches)}"
            return None
        end = self.resolve(target)
        if isinstance(end, str):
            return end
        if kind == "nic" and end.on_switch:
            return (
                f"{target!r} is a switch port; {action} needs host/nic, e.g. hv1/nic1"
                " (port_blackhole takes a switch port)"
            )
        if kind == "port" and not end.on_switch:
            return f"{target!r} is a host NIC; {action} needs switch/port, e.g. tor1/1 (nic_down takes a NIC)"
        if kind == "cable" and (end.device, end.port) not in self.cabled:
            return f"{target!r} is not cabled; {action} needs an end of a cable listed in cables"
        return None


#: The event fields that only some actions take.
_EVENT_FIELDS = {
    "to": {EventAction.MIGRATE.value},
    "placement": {EventAction.DRAIN.value, EventAction.ROLLING_UPDATE.value},
    "nodes": {EventAction.ROLLING_UPDATE.value},
    "patch_time": {EventAction.ROLLING_UPDATE.value},
    "fail_back": {EventAction.ROLLING_UPDATE.value},
}

#: What each action's target is.
_TARGETS = {
    "nic_down": "host/nic",
    "nic_up": "host/nic",
    "cable_down": "an end of a cable: host/nic or switch/port",
    "cable_up": "an end of a cable: host/nic or switch/port",
    "switch_down": "a switch",
    "switch_up": "a switch",
    "port_blackhole": "switch/port",
    "port_restore": "switch/port",
    "migrate": "a VM",
    "drain": "a host",
}


def _size(value: object) -> int | None:
    """A size in bytes; None if it is not a valid size (pydantic reports it)."""
    try:
        return parse_bytes(value) if isinstance(value, str) else None
    except UnitError:
        return None


def _time(event: Mapping[str, object]) -> float | None:
    """An event's time in seconds; None if it is not a valid duration (pydantic reports it)."""
    at = event.get("at")
    try:
        return parse_duration(at) if isinstance(at, str) else None
    except UnitError:
        return None


def check_references(data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> list[Finding]:
    """Every cross-reference mistake in raw scenario data.

    ``line_of`` gives the 1-based line of the value at a location, or None; it
    is used to say where the first of two clashing things is.
    """
    return _Checker(data, line_of).run()
