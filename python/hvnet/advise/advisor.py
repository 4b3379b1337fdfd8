"""``advise(scenario)``: every rule's check, in one stable order, with each fix's simulated effect."""

from __future__ import annotations

from hvnet.advise import cores, migration, mtu, power, redundancy, teaming
from hvnet.advise.effects import Effects
from hvnet.advise.rules import Check, Finding, Rule
from hvnet.model import Scenario

__all__ = ["CHECKS", "RULES", "advise"]

#: Every rule with its check, by area, in the order findings of one severity are listed.
CHECKS: tuple[tuple[Rule, Check], ...] = (
    *teaming.CHECKS,
    *redundancy.CHECKS,
    *mtu.CHECKS,
    *cores.CHECKS,
    *migration.CHECKS,
    *power.CHECKS,
)
#: Every rule, by id.
RULES: dict[str, Rule] = {rule.id: rule for rule, _ in CHECKS}


def advise(scenario: Scenario, *, simulate_effects: bool = True) -> list[Finding]:
    """What the design should change: errors, then warnings, then info; within a severity, in rule order
    (CHECKS) and the order the check found them. With `simulate_effects`, each fix hvnet can simulate is
    applied and the scenario simulated again (once per distinct fix) to state its expected effect."""
    found: list[tuple[int, int, Finding]] = []
    for rank, (_rule, check) in enumerate(CHECKS):
        for finding in check(scenario):
            found.append((finding.severity.rank, rank, finding))
    found.sort(key=lambda item: (item[0], item[1]))
    findings = [finding for _, _, finding in found]
    if not simulate_effects:
        return findings
    effects = Effects(scenario)
    return [
        f.model_copy(update={"expected_effect": effects.of(f.fix.changes)}) if RULES[f.rule].simulated else f
        for f in findings
    ]
