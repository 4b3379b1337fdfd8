"""Cables and switches: each cable joins two existing ends (a host NIC or a
port in a switch's range), no end is cabled twice, a cable between two
switches has a speed, a static or LACP team's members go to switches
that act as one (one stack or MLAG/VLT/vPC group), and the fabric's
spanning-tree root is one of its switches."""

from __future__ import annotations

from hvnet.model.checks.context import Context, End, KnownSwitch, Loc, and_list, entries, text_field
from hvnet.model.checks.names import resolve
from hvnet.model.scenario import Switch, TeamingMode

__all__ = ["check_cables", "check_root_bridge", "check_switch_dependent_teams", "register_switches"]

_DEFAULT_PORTS = Switch.model_fields["ports"].default


def register_switches(ctx: Context) -> None:
    """Notes each switch's port count, port speed and stack; the first of duplicate names counts."""
    for _, switch in entries(ctx.data, "switches"):
        name = text_field(switch, "name")
        if name is not None and name not in ctx.switches:
            ports = switch.get("ports", _DEFAULT_PORTS)
            count = ports if isinstance(ports, int) and not isinstance(ports, bool) else None
            ctx.switches[name] = KnownSwitch(count, switch.get("port_speed") is not None, text_field(switch, "stack"))


def check_root_bridge(ctx: Context) -> None:
    """`fabric.root_bridge` names a switch."""
    fabric = ctx.data.get("fabric")
    root = text_field(fabric, "root_bridge") if isinstance(fabric, dict) else None
    if root is not None and root not in ctx.switches:
        names = ", ".join(sorted(ctx.switches)) or "none"
        ctx.report(("fabric", "root_bridge"), f"{root!r} is not a switch of the scenario; switches: {names}")


def check_cables(ctx: Context) -> None:
    """Each end exists and is cabled once; notes each end's peer for the teams' check."""
    for index, cable in entries(ctx.data, "cables"):
        ends: list[End] = []
        for side in ("a", "b"):
            text = text_field(cable, side)
            if text is None:
                continue
            loc: Loc = ("cables", index, side)
            end = resolve(ctx, text)
            if isinstance(end, str):
                ctx.report(loc, end)
                continue
            if ends and ends[0].device == end.device and (not end.on_switch or ends[0].port == end.port):
                what = f"host {end.device}" if not end.on_switch else f"port {end}"
                ctx.report(loc, f"a cable from {what} to itself; connect it to another device")
                continue
            key = (end.device, end.port)
            if key in ctx.cabled:
                ctx.report(loc, f"{text.strip()} is already cabled {ctx.where(ctx.cabled[key])}")
                continue
            ctx.cabled[key] = loc
            ends.append(end)
        if len(ends) == 2:
            ctx.peers[(ends[0].device, ends[0].port)] = ends[1]
            ctx.peers[(ends[1].device, ends[1].port)] = ends[0]
        if (
            len(ends) == 2
            and all(end.on_switch for end in ends)
            and cable.get("speed") is None
            and not any(ctx.switches[end.device].port_speed_given for end in ends)
        ):
            ctx.report(
                ("cables", index),
                f"a cable between switches {ends[0].device} and {ends[1].device} needs a speed"
                " (e.g. speed: 40Gbps) when neither switch sets port_speed",
            )


def check_switch_dependent_teams(ctx: Context) -> None:
    """The switches a static or LACP team's members are cabled to must act as one switch."""
    for team in ctx.switch_dependent:
        switches: dict[str, str | None] = {}  # name -> stack, in the members' order
        for member in team.members:
            peer = ctx.peers.get((team.host, member))
            if peer is not None and peer.on_switch:
                switches[peer.device] = ctx.switches[peer.device].stack
        stacks = set(switches.values())
        if len(switches) > 1 and (len(stacks) > 1 or None in stacks):
            ctx.report((*team.at, "mode"), _not_one_switch(team.mode, list(switches.items())))


def _not_one_switch(mode: str, switches: list[tuple[str, str | None]]) -> str:
    """Why a static or LACP team may not span these switches (name, stack), and what to do."""
    team = "an LACP team's" if mode == TeamingMode.LACP.value else "a static team's"
    pair = len(switches) == 2
    if all(stack is None for _, stack in switches):
        names = and_list([name for name, _ in switches])
        why = (
            "which are neither stacked nor in an MLAG/VLT/vPC pair"
            if pair
            else "none of which are stacked or in an MLAG/VLT/vPC group"
        )
    else:
        names = and_list(
            [f"{name} ({'not stacked' if stack is None else f'stack: {stack}'})" for name, stack in switches]
        )
        why = f"which are not one stack or MLAG/VLT/vPC {'pair' if pair else 'group'}"
    fix = "give both switches the same stack: name" if pair else "give all these switches the same stack: name"
    return f"{team} members go to switches {names}, {why} ({fix}, or use switch independent teaming)"
