"""A host's live-migration settings: ``networks`` names the host's own
interfaces (NICs outside teams, teams, virtual switches), and the
``smb_direct`` option has an RDMA NIC outside LBFO teams to run on."""

from __future__ import annotations

from collections.abc import Mapping

from hvnet.model.checks.context import Context, KnownHost, Loc, and_list, entries, listing, text_field
from hvnet.model.scenario import MigrationOption, TeamKind

__all__ = ["check_migration_networks", "check_rdma_option"]


def check_rdma_option(ctx: Context, at: Loc, host: Mapping[str, object], host_name: str, known: KnownHost) -> None:
    """The smb_direct option needs an RDMA NIC that is not in an LBFO team (which gives no RDMA)."""
    settings = host.get("live_migration")
    if not isinstance(settings, Mapping) or settings.get("option") != MigrationOption.SMB_DIRECT.value:
        return
    lbfo = {
        text_field(team, "name"): team
        for _, team in entries(host, "teams")
        if team.get("kind", TeamKind.LBFO.value) == TeamKind.LBFO.value
    }
    rdma = [name for name, nic in known.nic_entries.items() if nic.get("rdma") is True]
    usable = [name for name in rdma if known.team_of.get(name) not in lbfo]
    if usable:
        return
    why = (
        f"its RDMA NICs ({and_list(rdma)}) are in an LBFO team, which gives no RDMA"
        if rdma
        else f"none of {host_name}'s NICs has rdma: true"
    )
    ctx.report(
        (*at, "live_migration", "option"),
        f"smb_direct needs RDMA, but {why}; use option smb, or RDMA NICs outside LBFO teams",
    )


def check_migration_networks(
    ctx: Context, at: Loc, host: Mapping[str, object], host_name: str, known: KnownHost
) -> None:
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
            ctx.report(
                loc,
                f"{name!r} is a member of team {known.team_of[name]}; live migration uses the team: list "
                f"{known.team_of[name]}",
            )
        elif name not in known.nics and name not in known.teams and name not in known.vswitches:
            choices = (
                f"NICs: {listing(known.nics)}; teams: {listing(known.teams)}; "
                f"virtual switches: {listing(known.vswitches)}"
            )
            ctx.report(loc, f"unknown interface {name!r}; {host_name} has {choices}")
