"""Redundancy: a host whose uplinks all go to one switch loses its network with that switch."""

from __future__ import annotations

from hvnet.advise._design import and_list, host_switches
from hvnet.advise.rules import Check, Finding, Rule, Severity
from hvnet.advise.sources import AZURE_LOCAL_SINGLE_SWITCH, SET_AND_RDMA
from hvnet.model import Scenario

__all__ = ["CHECKS", "SINGLE_SWITCH"]

SINGLE_SWITCH = Rule(
    id="single-switch-spof",
    severity=Severity.WARNING,
    title="All of a host's uplinks go to one switch",
    sources=(AZURE_LOCAL_SINGLE_SWITCH, SET_AND_RDMA),
    confirmed=True,
    basis="With a single top-of-rack switch the hosts lose northbound connectivity when it fails or is serviced "
    "(S16); team members may go to different switches on the same subnet (S1).",
    cmdlet=None,
    simulated=False,
)


def check_single_switch(scenario: Scenario) -> list[Finding]:
    """One finding per switch that is the only switch of some hosts."""
    alone: dict[str, list[str]] = {}
    for host, nics in host_switches(scenario).items():
        switches = set(nics.values())
        if len(switches) == 1:
            alone.setdefault(switches.pop(), []).append(host)
    return [
        SINGLE_SWITCH.finding(
            f"{and_list(hosts)}: every cabled NIC goes to switch {switch}",
            f"cable each host's team members to two switches (switch independent teaming, same subnet), "
            f"so that losing {switch} leaves every host connected",
        )
        for switch, hosts in alone.items()
    ]


CHECKS: tuple[tuple[Rule, Check], ...] = ((SINGLE_SWITCH, check_single_switch),)
