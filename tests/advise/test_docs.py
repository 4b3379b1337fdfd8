"""docs/advise.md names every rule, every rule not checked and every rule the loader enforces."""

from __future__ import annotations

from pathlib import Path

from hvnet.advise import ENFORCED_AT_LOAD, NOT_CHECKED, RULES

DOC = (Path(__file__).parents[2] / "docs" / "advise.md").read_text()


def test_every_rule_is_documented_with_its_confirmation() -> None:
    for rule in RULES.values():
        row = next(line for line in DOC.splitlines() if line.startswith(f"| `{rule.id}` |"))
        confirmed = row.split("|")[4].strip()
        assert confirmed == ("yes" if rule.confirmed else "**no**"), rule.id
        assert f"**`{rule.id}`** ({rule.severity.value})" in DOC


def test_every_rule_not_checked_and_enforced_is_listed() -> None:
    for rule in [*NOT_CHECKED, *ENFORCED_AT_LOAD]:
        assert f"| `{rule}` |" in DOC, rule
