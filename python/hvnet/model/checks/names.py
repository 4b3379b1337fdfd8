"""Names and references: hosts, switches and VMs share one namespace, flows
have unique names and run between existing hosts or VMs, and a ``host/nic``
or ``switch/port`` names a NIC or a port that exists."""

from __future__ import annotations

from hvnet.model.checks.context import Context, End, Loc, entries, listing, text_field
from hvnet.model.refs import parse_ref

__all__ = ["check_names", "check_traffic", "resolve"]


def check_names(ctx: Context) -> None:
    """Hosts, switches and VMs share one namespace."""
    seen: dict[str, tuple[str, Loc]] = {}
    for key, kind in (("hosts", "host"), ("switches", "switch"), ("vms", "VM")):
        for index, entry in entries(ctx.data, key):
            name = text_field(entry, "name")
            if name is None:
                continue
            loc: Loc = (key, index, "name")
            if name in seen:
                first_kind, first_loc = seen[name]
                ctx.report(loc, f"{name!r} is already the name of a {first_kind} {ctx.where(first_loc)}")
            else:
                seen[name] = (kind, loc)


def resolve(ctx: Context, text: str) -> End | str:
    """The host NIC or switch port an endpoint names, or why it names none."""
    try:
        ref = parse_ref(text)
    except ValueError as error:
        return str(error)
    device, port = ref.node, ref.port
    if device in ctx.hosts:
        host = ctx.hosts[device]
        if port in host.nics:
            return End(device, port, on_switch=False)
        if port in host.teams:
            members = [nic for nic, team in host.team_of.items() if team == port]
            return f"{port!r} is a team of {device}; name one of its NICs: {listing(members)}"
        return f"{device} has no NIC {port!r}; its NICs: {listing(host.nics)}"
    if device in ctx.switches:
        ports = ctx.switches[device].ports
        if not (port.isascii() and port.isdigit()):
            return f"{port!r} is not a port number of switch {device}; write {device}/1 .. {device}/{ports or 'N'}"
        number = int(port)
        if ports is not None and not 1 <= number <= ports:
            return f"port {number} is out of range; {device} has ports 1..{ports}"
        return End(device, number, on_switch=True)
    if device in ctx.vms:
        return f"{device!r} is a VM; a cable joins host NICs and switch ports"
    return f"unknown host or switch {device!r}; hosts: {listing(ctx.hosts)}; switches: {listing(ctx.switches)}"


def check_traffic(ctx: Context) -> None:
    """Flow names are unique; a flow runs from one existing host or VM to another."""
    names: dict[str, Loc] = {}
    for index, flow in entries(ctx.data, "traffic"):
        name = text_field(flow, "name")
        if name is not None:
            if name in names:
                where = ctx.where(names[name])
                ctx.report(("traffic", index, "name"), f"{name!r} is already the name of a flow {where}")
            else:
                names[name] = ("traffic", index, "name")
        ends = {side: text_field(flow, side) for side in ("from", "to")}
        for side, end in ends.items():
            if end is not None and end not in ctx.hosts and end not in ctx.vms:
                ctx.report(
                    ("traffic", index, side),
                    f"unknown host or VM {end!r}; hosts: {listing(ctx.hosts)}; VMs: {listing(ctx.vms)}",
                )
        if ends["from"] is not None and ends["from"] == ends["to"]:
            ctx.report(("traffic", index, "to"), f"a flow from {ends['to']} to itself; from and to must differ")


def check_demand(ctx: Context) -> None:
    """Measured demand names a cabled NIC of a host, each NIC once."""
    seen: dict[str, Loc] = {}
    for index, entry in entries(ctx.data, "demand"):
        nic = text_field(entry, "nic")
        if nic is None:
            continue  # pydantic reports it
        loc: Loc = ("demand", index, "nic")
        host, _, name = nic.partition("/")
        known = ctx.hosts.get(host)
        if known is None:
            ctx.report(loc, f"unknown host {host!r} in {nic!r}; hosts: {listing(ctx.hosts)}")
        elif name not in known.nics:
            ctx.report(loc, f"{host} has no NIC {name!r}; its NICs: {listing(known.nics)}")
        elif (host, name) not in ctx.cabled:
            ctx.report(loc, f"{nic} is not cabled: its measured load is replayed on its link, and it has none")
        elif nic in seen:
            ctx.report(loc, f"{nic} already has its demand {ctx.where(seen[nic])}; give each NIC one entry")
        else:
            seen[nic] = loc
