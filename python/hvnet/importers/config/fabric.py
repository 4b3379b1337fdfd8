"""The physical switches and cables, which no host's dump can tell: assumed the simplest way, and said so.

The n-th NIC of every host (by name) goes to switch ``torN``, host k to port k; ``tor2``, ``tor3``...
each have one link to ``tor1`` as fast as all their NICs together (non-blocking); where a static or
LACP team spans switches they are one stack (``stack: tor-stack``), as Windows needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.importers.config.record import Assumptions, ImportedHost, Noted
from hvnet.model.scenario import FASTEST_LINK_BPS, Cable, Switch, TeamingMode

__all__ = ["AssumedFabric", "assume_fabric"]

_ASSUMED = "ASSUMED"
_STACK = "tor-stack"


@dataclass
class AssumedFabric:
    """The assumed switches and cables, each marked ASSUMED."""

    switches: list[Noted[Switch]]
    cables: list[Noted[Cable]]
    stack_note: str = ""
    """Why the switches are one stack (a switch-dependent team spans them); empty when they are not."""


def assume_fabric(hosts: list[ImportedHost], assumptions: Assumptions) -> AssumedFabric:
    """One switch per NIC position (tor1 for every host's first NIC, ...), joined to tor1."""
    taken = {h.name.casefold() for h in hosts} | {vm.item.name.casefold() for h in hosts for vm in h.vms}
    count = max(len(h.nics) for h in hosts)
    names: list[str] = []
    for k in range(1, count + 1):
        name = f"tor{k}"
        while name.casefold() in taken:
            name = f"{name}x"
        names.append(name)
    ports = max(48, len(hosts) + count - 1)
    cables: list[Cable] = []
    per_switch: list[float] = [0.0] * count
    for index, host in enumerate(hosts):
        for position, nic in enumerate(host.nics):
            cables.append(Cable.model_construct(a=f"{host.name}/{nic.item.name}", b=f"{names[position]}/{index + 1}"))
            per_switch[position] += nic.item.speed
    for k in range(1, count):
        speed = min(per_switch[k], FASTEST_LINK_BPS)
        cables.append(Cable.model_construct(a=f"{names[k]}/{ports}", b=f"{names[0]}/{ports - k + 1}", speed=speed))
    spanning = _spanning_teams(hosts)
    stack = _STACK if spanning else None
    fabric = AssumedFabric(
        [Noted(Switch.model_construct(name=n, ports=ports, stack=stack), [_ASSUMED]) for n in names],
        [Noted(cable, [_ASSUMED]) for cable in cables],
    )
    if spanning:
        fabric.stack_note = assumptions.add(
            "fabric",
            f"the switches are one stack or MLAG pair (stack: {_STACK}), as the switch-dependent teams "
            f"{', '.join(spanning)} need; Windows refuses such a team over switches that are not",
        )
    assumptions.add(
        "fabric",
        f"the dumps do not say where NICs are cabled: the n-th NIC of each host (by name) goes to switch torN "
        f"({', '.join(names)}), host k to port k",
    )
    assumptions.add(
        "fabric",
        "switch models, port speeds and backplanes are unknown: non-blocking, each port at its NIC's speed, MTU 9216",
    )
    if count > 1:
        assumptions.add(
            "fabric",
            f"each of {', '.join(names[1:])} has one link to {names[0]}, as fast as all the NICs on it together "
            "(non-blocking)",
        )
    return fabric


def _spanning_teams(hosts: list[ImportedHost]) -> list[str]:
    """The static and LACP teams (``host/team``) whose members are on more than one switch, sorted."""
    spanning: list[str] = []
    for host in hosts:
        positions = [nic.item.name for nic in host.nics]
        for noted in host.teams:
            team = noted.item
            switch_dependent = team.mode in (TeamingMode.STATIC, TeamingMode.LACP)
            if switch_dependent and len({positions.index(member) for member in team.members}) > 1:
                spanning.append(f"{host.name}/{team.name}")
    return sorted(spanning)
