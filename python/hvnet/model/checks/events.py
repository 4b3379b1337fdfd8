"""Events and operations: each event names a target of its kind (a host/nic,
an end of a cable, a switch, a switch/port, a VM or a host) and only the
fields its action takes; a migrate event moves an existing VM to another
existing host; a drain or rolling update names hosts of a cluster that has
another host to take their VMs."""

from __future__ import annotations

from collections.abc import Mapping

from hvnet.model.checks.context import Context, and_list, entries, event_time, listing, text_field
from hvnet.model.checks.names import resolve
from hvnet.model.refs import is_ref
from hvnet.model.scenario import EventAction

__all__ = ["check_events"]

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


def check_events(ctx: Context) -> None:
    """Every event's fields and target; then that no migration before the first operation moves a VM to its own host."""
    actions = {action.value for action in EventAction}
    operations = {EventAction.DRAIN.value, EventAction.ROLLING_UPDATE.value}
    migrations: list[tuple[float, int, str, str]] = []  # (at, index, VM, destination host)
    first_operation = float("inf")  # time of the first drain or rolling update
    for index, event in entries(ctx.data, "events"):
        action, target = text_field(event, "action"), text_field(event, "target")
        if action not in actions:
            continue  # pydantic reports a bad action
        check_event_fields(ctx, index, event, action)
        if action in operations:
            when = event_time(event)
            first_operation = min(first_operation, when if when is not None else float("-inf"))
        if action == EventAction.ROLLING_UPDATE.value:
            check_rolling_update(ctx, index, event)
            continue
        if target is None:
            if event.get("target") is None:
                ctx.report(("events", index, "target"), f"{action} needs a target ({_TARGETS[action]})")
            continue  # pydantic reports a target that is not text
        if action == EventAction.MIGRATE.value:
            check_migrate(ctx, index, event, target, migrations)
        elif action == EventAction.DRAIN.value:
            check_drain(ctx, index, target)
        elif (message := event_target_problem(ctx, action, target)) is not None:
            ctx.report(("events", index, "target"), message)
    check_migrations_move(ctx, migrations, first_operation)


def check_migrations_move(ctx: Context, migrations: list[tuple[float, int, str, str]], first_operation: float) -> None:
    """No migration before the first operation moves a VM to the host it runs on then: its host, then each
    earlier migration's destination. Drains and rolling updates place VMs by memory; the simulation checks
    the migrations after them."""
    if not migrations:
        return
    runs_on: dict[str, str] = {}
    for _, vm in entries(ctx.data, "vms"):
        name, host = text_field(vm, "name"), text_field(vm, "host")
        if name is not None and host in ctx.hosts and name not in runs_on:
            runs_on[name] = host
    for at, index, vm_name, to in sorted(migrations):
        if at >= first_operation:
            break
        if runs_on.get(vm_name) == to:
            ctx.report(("events", index, "to"), f"{vm_name} already runs on {to}; migrate it to another host")
        runs_on[vm_name] = to


def check_event_fields(ctx: Context, index: int, event: Mapping[str, object], action: str) -> None:
    """Each event field is used by some actions only; a field given to another action is a mistake."""
    for field, takers in _EVENT_FIELDS.items():
        if event.get(field) is not None and action not in takers:
            takes = "takes" if len(takers) == 1 else "take"
            what = "a destination" if field == "to" else field
            ctx.report(("events", index, field), f"only {and_list(sorted(takers))} {takes} {what}")
    if action == EventAction.ROLLING_UPDATE.value and event.get("target") is not None:
        ctx.report(("events", index, "target"), "rolling_update takes nodes (the hosts to patch, in order), not target")


def check_drain(ctx: Context, index: int, host: str) -> None:
    """A drain names a host of a cluster that has another host to take its VMs."""
    if host not in ctx.hosts:
        what = "a VM; drain empties a host" if host in ctx.vms else "not a host of the scenario"
        ctx.report(("events", index, "target"), f"{host!r} is {what}; hosts: {listing(ctx.hosts)}")
    elif len(ctx.hosts) < 2:
        ctx.report(("events", index, "target"), f"drain needs another host to move {host}'s VMs to")


def check_rolling_update(ctx: Context, index: int, event: Mapping[str, object]) -> None:
    """A rolling update patches existing hosts, each once, for a stated patch time."""
    if event.get("patch_time") is None:
        ctx.report(
            ("events", index, "patch_time"), "rolling_update needs patch_time (how long each node is down), e.g. 15min"
        )
    if len(ctx.hosts) < 2:
        ctx.report(
            ("events", index, "action"), "a rolling update needs at least two hosts (each node's VMs go to the others)"
        )
    nodes = event.get("nodes")
    if not isinstance(nodes, list):
        return  # absent: every host; pydantic reports a value that is not a list
    seen: set[str] = set()
    for k, node in enumerate(nodes):
        if not isinstance(node, str):
            continue
        if node not in ctx.hosts:
            ctx.report(
                ("events", index, "nodes", k), f"{node!r} is not a host of the scenario; hosts: {listing(ctx.hosts)}"
            )
        elif node in seen:
            ctx.report(("events", index, "nodes", k), f"{node} is listed twice; each node is patched once")
        seen.add(node)


def check_migrate(
    ctx: Context, index: int, event: Mapping[str, object], target: str, migrations: list[tuple[float, int, str, str]]
) -> None:
    """A migrate event names a VM and, in to:, an existing host to move it to."""
    if target in ctx.hosts:
        message = f"{target!r} is a host; migrate moves a VM; VMs: {listing(ctx.vms)}"
        ctx.report(("events", index, "target"), message)
    elif target not in ctx.vms:
        ctx.report(("events", index, "target"), f"unknown VM {target!r}; VMs: {listing(ctx.vms)}")
    to = event.get("to")
    if to is None:
        message = f"migrate needs a destination host (to: ...); hosts: {listing(ctx.hosts)}"
        ctx.report(("events", index, "to"), message)
        return
    if not isinstance(to, str):
        return  # pydantic reports it
    if to not in ctx.hosts:
        ctx.report(("events", index, "to"), f"{to} is not a host of the scenario; hosts: {listing(ctx.hosts)}")
        return
    when = event_time(event)
    if when is None:
        return  # pydantic reports a bad time; without one the order of migrations is unknown
    if target in ctx.vms:
        migrations.append((when, index, target, to))


def event_target_problem(ctx: Context, action: str, target: str) -> str | None:
    """Why a NIC, cable, switch or port event's target is not one of its kind; None if it is."""
    kind = action.rsplit("_", 1)[0]
    if kind == "switch":
        if is_ref(target):
            return f"{target!r} is not a switch; {action} needs a switch name (port_blackhole takes one port)"
        if target not in ctx.switches:
            return f"unknown switch {target!r}; switches: {listing(ctx.switches)}"
        return None
    end = resolve(ctx, target)
    if isinstance(end, str):
        return end
    if kind == "nic" and end.on_switch:
        return (
            f"{target!r} is a switch port; {action} needs host/nic, e.g. hv1/nic1 (port_blackhole takes a switch port)"
        )
    if kind == "port" and not end.on_switch:
        return f"{target!r} is a host NIC; {action} needs switch/port, e.g. tor1/1 (nic_down takes a NIC)"
    if kind == "cable" and (end.device, end.port) not in ctx.cabled:
        return f"{target!r} is not cabled; {action} needs an end of a cable listed in cables"
    return None
