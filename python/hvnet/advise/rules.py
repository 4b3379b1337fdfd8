"""What a rule is, and what it finds: the data every check shares.

A ``Rule`` is data: its id, severity, title, sources, whether its sources
confirm it, and the cmdlet that applies its fix. A check is a small function
``check(scenario) -> list[Finding]`` next to its rule (one module per area:
teaming, redundancy, mtu, cores, smb, migration, power); ``Rule.finding``
builds a finding with the rule's data filled in. docs/advise.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from hvnet.model import Scenario

__all__ = ["Change", "Check", "Finding", "Fix", "Rule", "Severity", "Source"]


class Severity(str, Enum):
    """How bad: error (will not work or is unsupported), warning (works worse than it could), info."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Frozen):
    """A document a rule rests on: its title and address."""

    title: str
    url: str


class Change(_Frozen):
    """One scenario field to set: a path as `variants:` writes it (docs/scenario.md) and its value as a file writes
    it."""

    path: str
    value: Any


class Fix(_Frozen):
    """The change that resolves a finding: in words, as scenario fields, and as the cmdlet an administrator runs."""

    text: str
    changes: tuple[Change, ...] = ()
    #: None where no single cmdlet does it (recabling, buying a switch).
    cmdlet: str | None = None


class Finding(_Frozen):
    """One thing the advisor found in a design."""

    rule: str
    severity: Severity
    title: str
    #: What was found where: host, NIC, team, setting and value, in words.
    evidence: str
    fix: Fix
    sources: tuple[Source, ...]
    #: Whether the sources state the rule; when not, `note` says what is not confirmed.
    confirmed: bool
    note: str | None = None
    #: The fix's effect on the scenario's longest operation or last transfer, by simulating it
    #: ("drain of hv1: 2 min 10 s → 48 s"); None where hvnet cannot simulate it or there is nothing to measure.
    expected_effect: str | None = None


@dataclass(frozen=True)
class Rule:
    """A rule as data: everything about it except the check itself."""

    id: str
    severity: Severity
    title: str
    sources: tuple[Source, ...]
    confirmed: bool
    #: What the sources say (and, when not confirmed, what they do not).
    basis: str
    #: The fix's cmdlet, with {placeholders} filled in per finding; None where there is none.
    cmdlet: str | None = None
    #: Whether hvnet can simulate the fix (then `advise` states its effect).
    simulated: bool = True

    def finding(self, evidence: str, fix: str, changes: Sequence[Change] = (), **cmdlet_fields: str) -> Finding:
        """A finding of this rule: the evidence in words, the fix in words and as scenario changes."""
        cmdlet = None if self.cmdlet is None else self.cmdlet.format(**cmdlet_fields)
        return Finding(
            rule=self.id,
            severity=self.severity,
            title=self.title,
            evidence=evidence,
            fix=Fix(text=fix, changes=tuple(changes), cmdlet=cmdlet),
            sources=self.sources,
            confirmed=self.confirmed,
            note=None if self.confirmed else f"Not confirmed: {self.basis}",
        )


Check = Callable[[Scenario], list[Finding]]
"""A rule's check: the findings in a scenario (none when the rule holds)."""
