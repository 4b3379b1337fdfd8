"""A scenario's failures and repairs as the core's changes of resources and links.

Events become changes of two kinds, each held down by its *causes* (a
resource, or a NIC's link, is up only when no cause holds it down):

- `nic_*`, `cable_*`, `switch_*`: the cable directions go down and the link
  of every NIC on them goes down (a team sees it at once);
- `port_blackhole`/`port_restore`: the cable directions go down but the
  link stays up (only LACP sees it, after its timeout).

Causes that hold from 0 s: a NIC that is not cabled has no link, and the
resources through which the lowering sends routes whose full-size frames a
switch drops and NIC pairs that routing has no route left for
(`network.py`) are down, so their connections are black-holed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from hvnet.lower.fabric import Fabric, Port
from hvnet.lower.specs import Change
from hvnet.model import Scenario

__all__ = ["changes", "down_at", "failure_pairs"]

Kind = Literal["resource", "link"]

#: Operations, not failures: they become migrations (`migrations.py`).
_OPERATIONS = ("migrate", "drain", "rolling_update")


@dataclass
class _Held:
    """Changes of resources and links, each held down by a set of causes."""

    causes: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    out: list[Change] = field(default_factory=list)

    def hold(self, at: float, kind: Kind, index: int, cause: str, down: bool) -> None:
        causes = self.causes.setdefault((kind, index), set())
        was_up = not causes
        if down:
            causes.add(cause)
        else:
            causes.discard(cause)
        if was_up != (not causes):
            self.out.append(Change(at_s=at, kind=kind, index=index, up=not causes))


def changes(
    scenario: Scenario,
    fabric: Fabric,
    nic_index: dict[Port, int],
    uncabled: Iterable[int],
    held_down: Iterable[int] = (),
) -> list[Change]:
    """The scenario's events as resource and link changes, in time order.

    `uncabled`: NICs with no cable (their link is down throughout);
    `held_down`: resources that stand for a black hole (down throughout).
    """
    held = _Held()
    for nic in uncabled:
        held.hold(0.0, "link", nic, "uncabled", down=True)
    for resource in held_down:
        held.hold(0.0, "resource", resource, "black hole", down=True)
    for event in sorted(scenario.events, key=lambda e: e.at):
        action = str(event.action.value)
        if action in _OPERATIONS or event.target is None:
            continue
        down = action.endswith(("_down", "_blackhole"))
        cause = _cause(action, event.target, fabric)
        for resource in _resources_hit(action, event.target, fabric):
            held.hold(event.at, "resource", resource, cause, down)
        if not action.startswith("port_"):
            for nic in _nics_hit(action, event.target, fabric, nic_index):
                held.hold(event.at, "link", nic, cause, down)
    return held.out


def down_at(scenario: Scenario, fabric: Fabric, at_s: float) -> dict[int, list[tuple[str, float]]]:
    """For each cable direction or backplane that events hold down at `at_s` (after the events of
    that instant): the events that do, as ("action target", time), earliest first."""
    held: dict[int, dict[str, tuple[str, float]]] = {}
    for event in sorted(scenario.events, key=lambda e: e.at):
        action = str(event.action.value)
        if event.at > at_s or action in _OPERATIONS or event.target is None:
            continue
        cause = _cause(action, event.target, fabric)
        for resource in _resources_hit(action, event.target, fabric):
            causes = held.setdefault(resource, {})
            if action.endswith(("_down", "_blackhole")):
                causes.setdefault(cause, (f"{action} {event.target}", event.at))
            else:
                causes.pop(cause, None)
    return {r: sorted(c.values(), key=lambda v: v[1]) for r, c in held.items() if c}


def failure_pairs(scenario: Scenario, fabric: Fabric) -> list[tuple[int, int | None]]:
    """Each failure event (`*_down`, `port_blackhole`) by its index in the scenario's events, with
    the index of the event that repairs it (the next `*_up` or `port_restore` of the same thing),
    None when nothing does; in time order."""
    order = sorted(range(len(scenario.events)), key=lambda i: scenario.events[i].at)
    open_failures: dict[str, list[int]] = {}
    pairs: dict[int, int | None] = {}
    for i in order:
        event = scenario.events[i]
        action = str(event.action.value)
        if action in _OPERATIONS or event.target is None:
            continue
        cause = _cause(action, event.target, fabric)
        if action.endswith(("_down", "_blackhole")):
            pairs[i] = None
            open_failures.setdefault(cause, []).append(i)
        elif open_failures.get(cause):
            for failed in open_failures.pop(cause):
                pairs[failed] = i
    return sorted(pairs.items(), key=lambda p: (scenario.events[p[0]].at, p[0]))


def _cause(action: str, target: str, fabric: Fabric) -> str:
    """What an event acts on, the same for its down and up actions: `nic:hv1/nic1`.

    A cable may be named by either end, so both ends give one name.
    """
    kind = action.rsplit("_", 1)[0]
    if kind == "cable":
        peer = fabric.peer(Port.parse(target))
        target = target if peer is None else min(target, str(peer))
    return f"{kind}:{target}"


def _resources_hit(action: str, target: str, fabric: Fabric) -> list[int]:
    """The cable directions (and a switch's backplane) an event takes down or brings back."""
    if action.startswith("switch"):
        hit = [d.resource for p, d in fabric.out_of.items() if target in (p.node, d.target.node)]
        if target in fabric.backplane:
            hit.append(fabric.backplane[target])
        return hit
    here = Port.parse(target)
    return [d.resource for d in (fabric.out_of.get(here), fabric.into.get(here)) if d is not None]


def _nics_hit(action: str, target: str, fabric: Fabric, nic_index: dict[Port, int]) -> list[int]:
    """NICs whose link an event takes down or brings back."""
    if action.startswith("switch"):
        ends = [p for p, d in fabric.out_of.items() if d.target.node == target]
    else:
        here = Port.parse(target)
        peer = fabric.peer(here)
        ends = [here] if action.startswith("nic") or peer is None else [here, peer]
    return [nic_index[p] for p in ends if p in nic_index]
