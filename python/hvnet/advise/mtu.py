"""MTU: one MTU per network, end to end, and no switch that drops the frames its hosts send."""

from __future__ import annotations

from hvnet.advise._design import and_list, networks, nic_path
from hvnet.advise.rules import Change, Check, Finding, Rule, Severity
from hvnet.advise.sources import AZURE_LOCAL_HOST_NETWORK, WORKING_HARD_IN_IT_JUMBO
from hvnet.model import Scenario

__all__ = ["CHECKS", "JUMBO_FRAMES", "MTU_END_TO_END", "MTU_SWITCH_DROPS"]

_JUMBO_CMDLET = "Set-NetAdapterAdvancedProperty -Name {nics} -RegistryKeyword '*JumboPacket' -RegistryValue {frame}"

MTU_SWITCH_DROPS = Rule(
    id="mtu-switch-drops",
    severity=Severity.ERROR,
    title="A switch forwards smaller frames than its hosts send",
    sources=(WORKING_HARD_IN_IT_JUMBO,),
    confirmed=False,
    basis="the practitioner write-up (S12) ties jumbo-frame mismatches to slow or failing live migrations; no "
    "Microsoft page checked here states it. hvnet's frame model black-holes such a path (docs/model.md, "
    '"A mismatch that breaks traffic").',
    cmdlet=None,
)
MTU_END_TO_END = Rule(
    id="mtu-end-to-end",
    severity=Severity.WARNING,
    title="NICs of one network differ in MTU",
    sources=(WORKING_HARD_IN_IT_JUMBO,),
    confirmed=False,
    basis="S12 (practitioners) says to set one MTU end to end; no Microsoft page checked here states it. In hvnet "
    "a connection between two MTUs runs at the smaller one.",
    cmdlet=_JUMBO_CMDLET,
)
JUMBO_FRAMES = Rule(
    id="jumbo-frames",
    severity=Severity.INFO,
    title="A 10 Gbps or faster network runs at MTU 1500",
    sources=(AZURE_LOCAL_HOST_NETWORK, WORKING_HARD_IN_IT_JUMBO),
    confirmed=False,
    basis='jumbo frames cut per-packet CPU and wire overhead (BEHAVIOUR.md, "Frames and CPU"), but no source '
    "checked here recommends them; Azure Local leaves the jumbo packet size to the deployment.",
    cmdlet=_JUMBO_CMDLET,
)


def check_switch_drops(scenario: Scenario) -> list[Finding]:
    findings = []
    for nics, switch_names in networks(scenario):
        for name in switch_names:
            switch = scenario.switch(name)
            big = [(h, n) for h, n in nics if scenario.host(h).nic(n).mtu > switch.mtu]
            if len({h for h, _ in big}) < 2:
                continue
            largest = max(scenario.host(h).nic(n).mtu for h, n in big)
            shown = ", ".join(f"{h}/{n} {scenario.host(h).nic(n).mtu}" for h, n in big)
            findings.append(
                MTU_SWITCH_DROPS.finding(
                    f"switch {name} forwards IP packets up to {switch.mtu} bytes; NICs on it send larger ({shown}): "
                    "it drops their full-size frames",
                    f"raise {name}'s MTU to {max(largest, 9216)} (or lower the NICs to {switch.mtu})",
                    [Change(path=f"switches[{name}].mtu", value=max(largest, 9216))],
                )
            )
    return findings


def _set_mtu(scenario: Scenario, nics: list[tuple[str, str]], mtu: int) -> list[Change]:
    return [Change(path=nic_path(h, n, "mtu"), value=mtu) for h, n in nics if scenario.host(h).nic(n).mtu != mtu]


def check_end_to_end(scenario: Scenario) -> list[Finding]:
    findings = []
    for nics, _ in networks(scenario):
        mtus = {(h, n): scenario.host(h).nic(n).mtu for h, n in nics}
        if len(set(mtus.values())) < 2:
            continue
        target = max(mtus.values())
        by_mtu: dict[int, list[str]] = {}
        for (h, n), mtu in mtus.items():
            by_mtu.setdefault(mtu, []).append(f"{h}/{n}")
        shown = "; ".join(f"MTU {mtu}: {and_list(names)}" for mtu, names in sorted(by_mtu.items()))
        low = [name for mtu, names in by_mtu.items() if mtu != target for name in names]
        findings.append(
            MTU_END_TO_END.finding(
                f"one network, several MTUs ({shown})",
                f"set MTU {target} on {and_list(low)}",
                _set_mtu(scenario, nics, target),
                nics=",".join(name.split("/", 1)[1] for name in low),
                frame=str(target + 14),
            )
        )
    return findings


def check_jumbo(scenario: Scenario) -> list[Finding]:
    findings = []
    for nics, switch_names in networks(scenario):
        mtus = {scenario.host(h).nic(n).mtu for h, n in nics}
        if mtus != {1500} or min(scenario.host(h).nic(n).speed for h, n in nics) < 10e9 or len(nics) < 2:
            continue
        changes = _set_mtu(scenario, nics, 9000)
        changes += [
            Change(path=f"switches[{s}].mtu", value=9216) for s in switch_names if scenario.switch(s).mtu < 9000
        ]
        findings.append(
            JUMBO_FRAMES.finding(
                f"{and_list(f'{h}/{n}' for h, n in nics)} run at MTU 1500",
                "set MTU 9000 on every NIC of the network (Jumbo Packet 9014) and 9216 on its switches",
                changes,
                nics="*",
                frame="9014",
            )
        )
    return findings


CHECKS: tuple[tuple[Rule, Check], ...] = (
    (MTU_SWITCH_DROPS, check_switch_drops),
    (MTU_END_TO_END, check_end_to_end),
    (JUMBO_FRAMES, check_jumbo),
)
