"""The single failures `requirements.survive` explores, one per NIC, cable, switch or cabled switch port."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hvnet.model import Event, EventAction, FailureKind, Scenario, split_endpoint

__all__ = ["Failure", "cut_off", "failures"]

#: What each kind of failure does to its target, at 0 s.
_ACTIONS = {
    FailureKind.NIC: EventAction.NIC_DOWN,
    FailureKind.CABLE: EventAction.CABLE_DOWN,
    FailureKind.SWITCH: EventAction.SWITCH_DOWN,
    FailureKind.PORT: EventAction.PORT_BLACKHOLE,
}


@dataclass(frozen=True)
class Failure:
    """One single failure, from the start of each experiment (0 s) to its end."""

    kind: FailureKind
    target: str
    #: How a row names it: "nic hv1/nic2 down", "cable hv2/nic1—tor1/2 down".
    label: str

    @property
    def action(self) -> EventAction:
        return _ACTIONS[self.kind]

    def event(self) -> Event:
        """The event that makes it happen at 0 s."""
        return Event.model_validate({"at": "0s", "action": self.action.value, "target": self.target})

    def document(self) -> dict[str, str]:
        return {"kind": self.kind.value, "action": self.action.value, "target": self.target, "label": self.label}


def failures(scenario: Scenario, kind: FailureKind) -> list[Failure]:
    """Every single failure of `kind`, in file order: each host NIC; each cable (pulled at its
    first end); each switch; each switch port a cable uses (a port with no cable carries nothing)."""
    if kind is FailureKind.NIC:
        return [
            Failure(kind, f"{host.name}/{nic.name}", f"nic {host.name}/{nic.name} down")
            for host in scenario.hosts
            for nic in host.nics
        ]
    if kind is FailureKind.CABLE:
        return [Failure(kind, cable.a, f"cable {cable.a}—{cable.b} down") for cable in scenario.cables]
    if kind is FailureKind.SWITCH:
        return [Failure(kind, switch.name, f"switch {switch.name} down") for switch in scenario.switches]
    return [Failure(kind, port, f"port {port} black-holed") for port in _cabled_ports(scenario)]


def cut_off(scenario: Scenario, failure: Failure) -> dict[str, str]:
    """The hosts a failure leaves with no working NIC, each with why: every NIC of theirs that is
    cabled goes to the failed switch, or is the failed NIC, cable or port. What a team of NICs on
    two switches would survive."""
    peer: dict[str, str] = {}
    for cable in scenario.cables:
        peer[cable.a], peer[cable.b] = cable.b, cable.a
    hit = {failure.target}
    if failure.kind is FailureKind.CABLE and failure.target in peer:
        hit.add(peer[failure.target])
    found = {}
    for host in scenario.hosts:
        cabled = [f"{host.name}/{nic.name}" for nic in host.nics if f"{host.name}/{nic.name}" in peer]

        def dead(nic: str) -> bool:
            if failure.kind is FailureKind.SWITCH:
                return split_endpoint(peer[nic])[0] == failure.target
            return nic in hit or peer[nic] in hit

        if cabled and all(dead(nic) for nic in cabled):
            where = f"on {failure.target}" if failure.kind is FailureKind.SWITCH else "the one that failed"
            what = "its only cabled NIC is" if len(cabled) == 1 else "all its cabled NICs are"
            found[host.name] = f"{what} {where}"
    return found


def _cabled_ports(scenario: Scenario) -> Iterable[str]:
    switches = {switch.name for switch in scenario.switches}
    seen: dict[str, None] = {}
    for cable in scenario.cables:
        for end in (cable.a, cable.b):
            if split_endpoint(end)[0] in switches:
                seen.setdefault(end)
    return list(seen)
