"""Cross-reference checks: do the names in a scenario refer to things that exist?

pydantic checks each field on its own; these checks look across fields: names
are unique, teams list NICs of their host, cables join existing NICs and
switch ports and no end is cabled twice, VMs run on existing hosts, flows and
events name existing things.

The checks read the raw data (plain dicts and lists, as loaded from YAML), not
a validated ``Scenario``, so that a file with both a bad unit and an unknown
host reports both at once. Anything of the wrong type is skipped here: pydantic
reports it. Each finding is the location of the offending value and a message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from hvnet.model.scenario import EventAction, LoadBalancing, Switch, TeamingMode, TeamKind, split_endpoint

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
    teams: dict[str, Loc] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)  # member NIC -> team
    vswitches: dict[str, Loc] = field(default_factory=dict)


@dataclass
class _Switch:
    ports: int | None  # None: the port count itself is invalid (pydantic says so)
    port_speed_given: bool


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


class _Checker:
    def __init__(self, data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> None:
        self.data = data
        self.line_of = line_of
        self.findings: list[Finding] = []
        self.hosts: dict[str, _Host] = {}
        self.switches: dict[str, _Switch] = {}
        self.vms: dict[str, None] = {}  # a dict keeps the file's order in messages
        self.cabled: dict[tuple[str, str | int], Loc] = {}

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
                self.switches[name] = _Switch(count, switch.get("port_speed") is not None)
        self.vms = {name: None for _, vm in _items(self.data, "vms") if (name := _text(vm, "name")) is not None}
        self.check_cables()
        self.check_vms()
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

    # --- VMs, traffic, events -------------------------------------------------------------

    def check_vms(self) -> None:
        for index, vm in _items(self.data, "vms"):
            host = _text(vm, "host")
            if host is None:
                continue
            if host not in self.hosts:
                self.report(("vms", index, "host"), f"unknown host {host!r}; hosts: {_names(self.hosts)}")
                continue
            vswitch = _text(vm, "vswitch")
            known = self.hosts[host].vswitches
            if vswitch is not None and vswitch not in known:
                self.report(
                    ("vms", index, "vswitch"),
                    f"{host} has no virtual switch {vswitch!r}; its virtual switches: {_names(known)}",
                )

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
        for index, event in _items(self.data, "events"):
            action, target = _text(event, "action"), _text(event, "target")
            if action not in actions or target is None:
                continue  # pydantic reports a bad action or a missing target
            message = self.event_target_problem(action, target)
            if message is not None:
                self.report(("events", index, "target"), message)

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


def check_references(data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> list[Finding]:
    """Every cross-reference mistake in raw scenario data.

    ``line_of`` gives the 1-based line of the value at a location, or None; it
    is used to say where the first of two clashing things is.
    """
    return _Checker(data, line_of).run()
