"""VMs and memory: a VM runs on an existing host and uses one of its virtual
switches; its populated and working-set memory are parts of its memory; a
host's VMs fit in its memory; and a team inside a VM is two vNICs on two
virtual switches, each bound to one NIC, switch independent, address hash."""

from __future__ import annotations

from collections.abc import Mapping

from hvnet.model.checks.context import Context, Loc, and_list, entries, listing, size, text_field
from hvnet.model.checks.hosts import SWITCH_DEPENDENT
from hvnet.model.scenario import LoadBalancing
from hvnet.units import format_bytes

__all__ = ["check_host_memory", "check_vms"]


def check_vms(ctx: Context) -> None:
    """Each VM's host, memory, team and virtual switch."""
    for index, vm in entries(ctx.data, "vms"):
        host = text_field(vm, "host")
        if host is not None and host not in ctx.hosts:
            ctx.report(("vms", index, "host"), f"unknown host {host!r}; hosts: {listing(ctx.hosts)}")
            host = None
        check_vm_memory(ctx, ("vms", index), vm)
        team = vm.get("team")
        if team is not None and isinstance(team, Mapping):  # (most VMs have none: known at once)
            check_vm_team(ctx, ("vms", index, "team"), team, host)
        if host is None:
            continue
        vswitch = text_field(vm, "vswitch")
        known = ctx.hosts[host].vswitches
        if vswitch is not None and vswitch not in known:
            ctx.report(
                ("vms", index, "vswitch"),
                f"{host} has no virtual switch {vswitch!r}; its virtual switches: {listing(known)}",
            )
        elif vswitch is not None and team is not None and isinstance(team, Mapping):
            ctx.report(
                ("vms", index, "vswitch"),
                "a VM with a team sends through the team's two virtual switches; leave vswitch out",
            )


def check_host_memory(ctx: Context) -> None:
    """The VMs a host runs at the start fit in the memory it states."""
    assigned: dict[str, list[tuple[str, int]]] = {}
    for _, vm in entries(ctx.data, "vms"):
        name, runs_on = text_field(vm, "name"), text_field(vm, "host")
        if name is not None and runs_on is not None and (memory := size(vm.get("memory"))) is not None:
            assigned.setdefault(runs_on, []).append((name, memory))
    for index, host in entries(ctx.data, "hosts"):
        name, memory = text_field(host, "name"), size(host.get("memory"))
        vms = assigned.get(name or "", [])
        total = sum(assigned_bytes for _, assigned_bytes in vms)
        if memory is not None and total > memory:
            ctx.report(
                ("hosts", index, "memory"),
                f"{name} has {format_bytes(memory)} for VMs, but its VMs ({and_list([v for v, _ in vms])}) are "
                f"assigned {format_bytes(total)}; give it more memory or move VMs to another host",
            )


def check_vm_memory(ctx: Context, at: Loc, vm: Mapping[str, object]) -> None:
    """populated and working_set are parts of memory, incompressible a part of populated."""
    if "populated" not in vm and "working_set" not in vm and "incompressible" not in vm:
        return  # all of memory, and none (nearly every VM)
    sizes: dict[str, int] = {}
    for key in ("memory", "populated", "working_set", "incompressible"):
        if (value := size(vm.get(key))) is not None:  # (pydantic reports a size that is not one)
            sizes[key] = value
    if "memory" not in sizes:
        return
    what = {"populated": "the memory that is not zero pages", "working_set": "the memory the guest writes to"}
    for key, meaning in what.items():
        if key in sizes and sizes[key] > sizes["memory"]:
            memory, shown = format_bytes(sizes["memory"]), format_bytes(sizes[key])
            ctx.report((*at, key), f"{shown} is more than memory ({memory}); {key} is {meaning}, at most memory")
    populated = sizes.get("populated", sizes["memory"])
    if sizes.get("incompressible", 0) > populated:
        shown, part = format_bytes(sizes["incompressible"]), format_bytes(populated)
        ctx.report(
            (*at, "incompressible"),
            f"{shown} is more than populated ({part}); incompressible is the part of the memory that is not "
            "zero pages that does not compress, at most populated",
        )


def check_vm_team(ctx: Context, at: Loc, team: Mapping[str, object], host: str | None) -> None:
    """A team inside a VM: two vNICs on two virtual switches, switch independent, address hash."""
    members = team.get("members")
    if isinstance(members, list):
        if len(members) != 2:
            ctx.report(
                (*at, "members"),
                "a team inside a VM has exactly 2 members (two vNICs, each on its own virtual switch"
                f" of the host); this one has {len(members)}",
            )
        vswitches = ctx.hosts[host].vswitches if host is not None else None
        seen: set[str] = set()
        for index, member in enumerate(members):
            if not isinstance(member, str):
                continue
            loc = (*at, "members", index)
            if member in seen:
                message = "a team inside a VM needs two different virtual switches of its host"
                ctx.report(loc, f"{member!r} is listed twice; {message}")
            elif vswitches is not None and member not in vswitches:
                choices = listing(vswitches)
                ctx.report(loc, f"{host} has no virtual switch {member!r}; its virtual switches: {choices}")
            elif host is not None and ctx.hosts[host].vswitch_uplink.get(member) in ctx.hosts[host].teams:
                ctx.report(
                    loc,
                    f"{member!r} is bound to team {ctx.hosts[host].vswitch_uplink[member]!r}; hvnet simulates"
                    " a team inside a VM over virtual switches each bound to one NIC (the design for SR-IOV),"
                    " not over host teams",
                )
            seen.add(member)
    if team.get("mode") in SWITCH_DEPENDENT:
        message = "a team inside a VM is always switch_independent; static and lacp are not supported in a guest"
        ctx.report((*at, "mode"), message)
    if team.get("load_balancing") in (LoadBalancing.HYPERV_PORT.value, LoadBalancing.DYNAMIC.value):
        message = (
            "a team inside a VM balances by address_hash only; hyperv_port and dynamic are not supported in a guest"
        )
        ctx.report((*at, "load_balancing"), message)
