"""Power: the High Performance plan, and C-states off in the BIOS."""

from __future__ import annotations

from hvnet.advise.rules import Change, Check, Finding, Rule, Severity
from hvnet.advise.sources import PERFORMANCE_TUNING_NICS
from hvnet.model import CState, PowerPlan, Scenario

__all__ = ["CHECKS", "POWER_PLAN"]

POWER_PLAN = Rule(
    id="power-plan",
    severity=Severity.WARNING,
    title="Power plan not High Performance, or C-states on",
    sources=(PERFORMANCE_TUNING_NICS,),
    confirmed=True,
    basis="for latency-sensitive networking: BIOS at High Performance with C-states disabled, and the operating "
    "system's power profile at High Performance (S11). That this speeds up live migration is hvnet's model "
    '(docs/model.md, "Idle states"), not S11\'s claim.',
    cmdlet="powercfg /setactive SCHEME_MIN; disable C-states (and C1E) in the BIOS",
)


def check_power(scenario: Scenario) -> list[Finding]:
    changes: list[Change] = []
    shown = []
    for host in scenario.hosts:
        wrong = []
        if host.power_plan != PowerPlan.HIGH_PERFORMANCE:
            wrong.append(f"power plan {host.power_plan.value}")
            changes.append(Change(path=f"hosts[{host.name}].power_plan", value="high_performance"))
        if host.cpu.deepest_c_state != CState.C1:
            wrong.append(f"deepest C-state {host.cpu.deepest_c_state.value}")
            changes.append(Change(path=f"hosts[{host.name}].cpu.deepest_c_state", value="c1"))
        if wrong:
            shown.append(f"{host.name}: {', '.join(wrong)}")
    if not changes:
        return []
    return [
        POWER_PLAN.finding(
            "; ".join(shown),
            "set the High Performance power plan and turn C-states off (deepest_c_state: c1)",
            changes,
        )
    ]


CHECKS: tuple[tuple[Rule, Check], ...] = ((POWER_PLAN, check_power),)
