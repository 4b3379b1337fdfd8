"""Cross-field checks: do the names in a scenario refer to things that exist?

pydantic checks each field on its own; these checks look across fields. By concern:

- ``names``: hosts, switches and VMs share one namespace; flows have unique
  names and existing ends; what a ``host/nic`` or ``switch/port`` names.
- ``hosts``: inside a host, NIC, team and virtual switch names; teams list
  NICs of their host; the team designs Windows refuses (BEHAVIOUR.md).
- ``migration``: the live-migration settings name the host's own
  interfaces (RDMA for smb_direct).
- ``cabling``: cables join existing NICs and switch ports, no end is cabled
  twice; a static or LACP team's switches act as one; the spanning-tree
  root is a switch.
- ``vms``: VMs run on existing hosts and their virtual switches; memory
  fits; a team inside a VM is two vNICs, switch independent, address hash.
- ``events``: events name existing things; a migrate event moves a VM to
  another existing host; a drain or rolling update names hosts of a cluster
  that has another host.
- ``requirements``: drain-based requirements need another host; each kind
  of failure to survive is named once.

``context`` holds what they share. The checks read the raw data (plain dicts
and lists, as loaded from YAML), not a validated ``Scenario``, so that a file
with both a bad unit and an unknown host reports both at once. Anything of
the wrong type is skipped here: pydantic reports it. Each finding is the
location of the offending value and a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hvnet.model.checks.cabling import check_cables, check_root_bridge, check_switch_dependent_teams, register_switches
from hvnet.model.checks.context import Context, Finding, KnownHost, Loc, entries, text_field
from hvnet.model.checks.events import check_events
from hvnet.model.checks.hosts import check_host
from hvnet.model.checks.names import check_demand, check_names, check_traffic
from hvnet.model.checks.requirements import check_requirements
from hvnet.model.checks.vms import check_host_memory, check_vms

__all__ = ["Finding", "Loc", "check_references"]


def check_references(data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> list[Finding]:
    """Every cross-reference mistake in raw scenario data.

    ``line_of`` gives the 1-based line of the value at a location, or None; it
    is used to say where the first of two clashing things is.
    """
    ctx = Context(data, line_of)
    check_names(ctx)
    for index, host in entries(data, "hosts"):
        name = text_field(host, "name")
        known = KnownHost()
        if name is not None and name not in ctx.hosts:  # the first of duplicate hosts counts
            ctx.hosts[name] = known
        check_host(ctx, ("hosts", index), host, known)
    register_switches(ctx)
    ctx.vms = {name: None for _, vm in entries(data, "vms") if (name := text_field(vm, "name")) is not None}
    check_cables(ctx)
    check_root_bridge(ctx)
    check_switch_dependent_teams(ctx)
    check_vms(ctx)
    check_host_memory(ctx)
    check_traffic(ctx)
    check_demand(ctx)
    check_events(ctx)
    check_requirements(ctx)
    return ctx.findings
