"""`hvnet topology star` and `hvnet topology leaf-spine`: a scenario to start from, printed (the design of
`hvnet.topology.Design` from the options, checked by the loader before it is printed)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from hvnet.cli.app import option_value, topology_app, user_errors

if TYPE_CHECKING:
    from collections.abc import Callable

    from hvnet.topology import Design

__all__ = ["topology_leaf_spine", "topology_star"]


#: The options both generators take: what each host has and runs, and what happens (`hvnet.topology.Design`).
NicsOption = Annotated[
    int | None, typer.Option("--nics", min=1, max=32, help="NICs per host (default: 2 with --team, else 1).")
]
TeamOption = Annotated[str | None, typer.Option("--team", help="Team every host's NICs: lbfo or set.")]
TeamModeOption = Annotated[
    str | None, typer.Option("--team-mode", help="The team's mode: switch_independent, static or lacp.")
]
BalancingOption = Annotated[
    str | None,
    typer.Option("--load-balancing", help="The team's algorithm: address_hash, hyperv_port or dynamic."),
]
VswitchOption = Annotated[
    bool | None,
    typer.Option(
        "--vswitch/--no-vswitch", help="A virtual switch on the team, or on nic1 (default: with VMs or a team)."
    ),
]
LiveMigrationOption = Annotated[
    str | None,
    typer.Option(
        "--live-migration",
        help="Live-migration option: tcp_ip, compression, smb or smb_direct (RDMA on) (default: compression).",
    ),
]
VmsOption = Annotated[
    int, typer.Option("--vms", min=0, help="VMs on each host: vm1, vm2, ... numbered across the hosts.")
]
VmMemoryOption = Annotated[str, typer.Option("--vm-memory", help="Each VM's memory, e.g. 8GiB.")]
VmVcpusOption = Annotated[int, typer.Option("--vm-vcpus", min=1, max=240, help="Each VM's vCPUs.")]
DrainOption = Annotated[
    str | None, typer.Option("--drain", help="Drain this host at 0 s (e.g. hv1): its VMs live-migrate away.")
]
TrafficOption = Annotated[
    str | None, typer.Option("--traffic", help="A transfer of this size (e.g. 10GB) from hv1 to the last host.")
]


def _generated(
    make: Callable[[Design], str],
    nics: int | None,
    team: str | None,
    team_mode: str | None,
    load_balancing: str | None,
    vswitch: bool | None,
    live_migration: str | None,
    workload: tuple[int, str, int, str | None, str | None],
) -> None:
    """Prints what `make` generates for the options' design; bad input named by its option, one line."""
    from hvnet.model import LoadBalancing, MigrationOption, TeamingMode, TeamKind, parse_scenario
    from hvnet.topology import Design, choice

    vms, vm_memory, vm_vcpus, drain, traffic = workload
    with user_errors():
        kind = None if team is None else choice("--team", team, TeamKind)
        design = Design(
            nics=nics or (2 if kind is not None else 1),
            team=kind,
            team_mode=None if team_mode is None else choice("--team-mode", team_mode, TeamingMode),
            load_balancing=None
            if load_balancing is None
            else choice("--load-balancing", load_balancing, LoadBalancing),
            vswitch=vswitch,
            live_migration=None
            if live_migration is None
            else choice("--live-migration", live_migration, MigrationOption),
            vms=vms,
            vm_memory=vm_memory,
            vm_vcpus=vm_vcpus,
            drain=drain,
            traffic=traffic,
        )
        text = make(design)
        parse_scenario(text, "<generated>")  # what is printed loads: a mistake here is hvnet's
    sys.stdout.write(text)


@topology_app.command("star")
def topology_star(
    hosts: Annotated[int, typer.Option(min=1, help="Number of hosts.")],
    nic: Annotated[str, typer.Option(help="NIC speed, e.g. 10Gbps.")] = "10Gbps",
    nics: NicsOption = None,
    team: TeamOption = None,
    team_mode: TeamModeOption = None,
    load_balancing: BalancingOption = None,
    vswitch: VswitchOption = None,
    live_migration: LiveMigrationOption = None,
    vms: VmsOption = 0,
    vm_memory: VmMemoryOption = "8GiB",
    vm_vcpus: VmVcpusOption = 2,
    drain: DrainOption = None,
    traffic: TrafficOption = None,
) -> None:
    """N hosts cabled to one non-blocking switch; with --vms and --drain or --traffic, something to simulate."""
    from hvnet.topology import star
    from hvnet.units import parse_bitrate

    with user_errors():
        option_value("--nic", nic, parse_bitrate)
    _generated(
        lambda design: star(hosts, nic, design=design),
        nics,
        team,
        team_mode,
        load_balancing,
        vswitch,
        live_migration,
        (vms, vm_memory, vm_vcpus, drain, traffic),
    )


@topology_app.command("leaf-spine")
def topology_leaf_spine(
    hosts: Annotated[int, typer.Option(min=1, help="Number of hosts.")],
    nic: Annotated[str, typer.Option(help="NIC speed, e.g. 25Gbps.")] = "10Gbps",
    leaves: Annotated[int, typer.Option(min=1, help="Number of leaf switches.")] = 2,
    spines: Annotated[int, typer.Option(min=1, help="Number of spine switches.")] = 2,
    uplink: Annotated[str, typer.Option(help="Leaf-to-spine cable speed.")] = "40Gbps",
    nics: NicsOption = None,
    team: TeamOption = None,
    team_mode: TeamModeOption = None,
    load_balancing: BalancingOption = None,
    vswitch: VswitchOption = None,
    live_migration: LiveMigrationOption = None,
    vms: VmsOption = 0,
    vm_memory: VmMemoryOption = "8GiB",
    vm_vcpus: VmVcpusOption = 2,
    drain: DrainOption = None,
    traffic: TrafficOption = None,
) -> None:
    """Hosts spread over leaf switches, every leaf cabled to every spine; with --vms and --drain or --traffic,
    something to simulate."""
    from hvnet.topology import leaf_spine
    from hvnet.units import parse_bitrate

    with user_errors():
        option_value("--nic", nic, parse_bitrate)
        option_value("--uplink", uplink, parse_bitrate)
    _generated(
        lambda design: leaf_spine(hosts, nic, leaves, spines, uplink, design=design),
        nics,
        team,
        team_mode,
        load_balancing,
        vswitch,
        live_migration,
        (vms, vm_memory, vm_vcpus, drain, traffic),
    )
