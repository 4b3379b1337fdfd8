"""Inside a host: NICs, teams and virtual switches.

NIC, team and virtual switch names are unique within their host; a team
lists NICs of its host, each in one team only; a virtual switch's uplink is a
NIC outside teams or a team, and uplinks one virtual switch. The team designs
Windows refuses are refused (BEHAVIOUR.md): too many members, a SET team of
unlike NICs or with LBFO-only settings, a standby that is not a member or is
the only one. A static or LACP team is noted here; which switches its members
are cabled to is checked with the cables (``cabling``). Each host's
live-migration settings are checked last (``migration``).
"""

from __future__ import annotations

from collections.abc import Mapping

from hvnet.errors import UnitError
from hvnet.model.checks.context import (
    Context,
    KnownHost,
    Loc,
    SwitchDependentTeam,
    and_list,
    entries,
    listing,
    text_field,
)
from hvnet.model.checks.migration import check_migration_networks, check_rdma_option
from hvnet.model.scenario import LoadBalancing, Nic, TeamingMode, TeamKind
from hvnet.units import format_bitrate, parse_bitrate, show_value

__all__ = ["SWITCH_DEPENDENT", "check_host"]

_MAX_MEMBERS = {TeamKind.LBFO.value: 32, TeamKind.SET.value: 8}
_MEMBER_RULE = {
    TeamKind.LBFO.value: "an LBFO team has at most 32 members (NIC teaming supports 1–32 NICs)",
    TeamKind.SET.value: "a SET team has at most 8 members (Switch Embedded Teaming supports 1–8 identical NICs)",
}

#: The teaming modes in which the physical switch takes part.
SWITCH_DEPENDENT = (TeamingMode.STATIC.value, TeamingMode.LACP.value)


def check_host(ctx: Context, at: Loc, host: Mapping[str, object], known: KnownHost) -> None:
    """One host's NICs, teams, virtual switches and live-migration settings; fills in ``known``."""
    host_name = text_field(host, "name") or "this host"
    for index, nic in entries(host, "nics"):
        name = text_field(nic, "name")
        if name is None:
            continue
        loc = (*at, "nics", index, "name")
        if name in known.nics:
            ctx.report(loc, f"{name!r} is already a NIC of {host_name} {ctx.where(known.nics[name])}")
        else:
            known.nics[name] = loc
            known.nic_entries[name] = nic
    for index, team in entries(host, "teams"):
        check_team(ctx, (*at, "teams", index), team, host_name, known)
    uplinked: dict[str, Loc] = {}
    for index, vswitch in entries(host, "vswitches"):
        loc = (*at, "vswitches", index)
        name = text_field(vswitch, "name")
        if name is not None:
            if name in known.vswitches:
                ctx.report(
                    (*loc, "name"),
                    f"{name!r} is already a virtual switch of {host_name} {ctx.where(known.vswitches[name])}",
                )
            else:
                known.vswitches[name] = (*loc, "name")
        uplink = text_field(vswitch, "uplink")
        if uplink is None:
            continue
        if name is not None:
            known.vswitch_uplink.setdefault(name, uplink)
        if uplink not in known.nics and uplink not in known.teams:
            choices = f"NICs: {listing(known.nics)}; teams: {listing(known.teams)}"
            ctx.report((*loc, "uplink"), f"unknown uplink {uplink!r}; {host_name} has {choices}")
        elif uplink in known.team_of:
            ctx.report(
                (*loc, "uplink"),
                f"{uplink!r} is a member of team {known.team_of[uplink]}; make the team the uplink",
            )
        elif uplink in uplinked:
            where = ctx.where(uplinked[uplink])
            ctx.report((*loc, "uplink"), f"{uplink!r} is already the uplink of a virtual switch {where}")
        else:
            uplinked[uplink] = (*loc, "uplink")
    check_migration_networks(ctx, at, host, host_name, known)
    check_rdma_option(ctx, at, host, host_name, known)


def check_team(ctx: Context, at: Loc, team: Mapping[str, object], host_name: str, known: KnownHost) -> None:
    """A team's name, members, size, standby and settings."""
    name = text_field(team, "name")
    if name is not None:
        _team_name(ctx, at, name, host_name, known)
    team_name = name or "this team"
    members = team.get("members")
    valid = _team_members(ctx, at, members, team_name, host_name, known) if isinstance(members, list) else []
    is_set = team.get("kind") == TeamKind.SET.value
    kind = team.get("kind", TeamKind.LBFO.value)
    if isinstance(kind, str) and kind in _MAX_MEMBERS and isinstance(members, list):
        if len(members) > _MAX_MEMBERS[kind]:
            ctx.report((*at, "members"), f"{_MEMBER_RULE[kind]}; this one has {len(members)}")
        if is_set:
            check_set_members(ctx, at, members, valid, known)
    mode = team.get("mode")
    lbfo_switch_dependent = kind == TeamKind.LBFO.value and mode in SWITCH_DEPENDENT
    if isinstance(mode, str) and lbfo_switch_dependent and ctx.hosts.get(host_name) is known:
        # not a duplicate host: cables name the first
        ctx.switch_dependent.append(SwitchDependentTeam(at, host_name, mode, valid))
    standby = text_field(team, "standby")
    if standby is not None:
        _standby(ctx, at, standby, members, team_name, is_set=is_set)
    if is_set and team.get("mode") in SWITCH_DEPENDENT:
        message = "a SET team is always switch_independent; static and lacp need kind: lbfo"
        ctx.report((*at, "mode"), message)
    if is_set and team.get("load_balancing") == LoadBalancing.ADDRESS_HASH.value:
        message = "a SET team balances by hyperv_port or dynamic; address_hash needs kind: lbfo"
        ctx.report((*at, "load_balancing"), message)


def _team_name(ctx: Context, at: Loc, name: str, host_name: str, known: KnownHost) -> None:
    """A team's name is its own: no NIC's, no other team's."""
    if name in known.nics:
        ctx.report((*at, "name"), f"{name!r} is already a NIC of {host_name}; a team needs its own name")
    elif name in known.teams:
        where = ctx.where(known.teams[name])
        ctx.report((*at, "name"), f"{name!r} is already a team of {host_name} {where}")
    else:
        known.teams[name] = (*at, "name")


def _team_members(
    ctx: Context, at: Loc, members: list[object], team_name: str, host_name: str, known: KnownHost
) -> list[str]:
    """The members that are NICs of the host, each once and in no other team (the others reported)."""
    valid: list[str] = []
    for index, member in enumerate(members):
        if not isinstance(member, str):
            continue
        loc = (*at, "members", index)
        if member not in known.nics:
            ctx.report(loc, f"unknown NIC {member!r}; {host_name} has NICs: {listing(known.nics)}")
        elif member in valid:
            ctx.report(loc, f"{member!r} is listed twice")
        elif member in known.team_of:
            other = known.team_of[member]
            ctx.report(loc, f"{member!r} is already a member of team {other}; a NIC can be in one team only")
        else:
            valid.append(member)
            known.team_of[member] = team_name
    return valid


def _standby(ctx: Context, at: Loc, standby: str, members: object, team_name: str, *, is_set: bool) -> None:
    """A standby member is one of an LBFO team's members, and not its only one."""
    named = list(dict.fromkeys(m for m in members if isinstance(m, str))) if isinstance(members, list) else []
    if is_set:
        ctx.report((*at, "standby"), "a SET team has no standby member; all members are active")
    elif isinstance(members, list) and standby not in named:
        choices = ", ".join(named) or "its members"
        ctx.report((*at, "standby"), f"{standby!r} is not a member of {team_name}; choose one of {choices}")
    elif named == [standby]:
        message = f"{standby!r} is the only member; a team needs an active member besides the standby"
        ctx.report((*at, "standby"), message)


def check_set_members(ctx: Context, at: Loc, members: list[object], valid: list[str], known: KnownHost) -> None:
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
            ctx.report(
                (*at, "members", members.index(member)),
                "a SET team's members must be identical NICs (same speed, model, rdma and mtu);"
                f" {member} differs from {first} in {and_list(differences)}",
            )


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
