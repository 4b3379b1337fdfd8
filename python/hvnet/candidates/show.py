"""The table `hvnet design` prints and the JSON it writes (docs/advise.md#do-i-need-10-gbe)."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table

from hvnet._version import __version__
from hvnet.candidates.search import Search, Tried
from hvnet.check.show import figure_text
from hvnet.cost import format_money

__all__ = ["DOCUMENT_VERSION", "not_tried", "search_document", "search_table"]

DOCUMENT_VERSION = 1


def _cell(t: Tried, requirement: str) -> str:
    if requirement.startswith("survive "):
        kind = requirement.removeprefix("survive ")
        s = next((s for s in t.survive if s.kind.value == kind), None)
        if s is None:
            return ""
        failed = len(s.failed_cases)
        return f"{len(s.cases) - failed}/{len(s.cases)} {_mark(failed == 0)}"
    o = next((o for o in t.outcomes if o.requirement == requirement), None)
    if o is None:
        return ""
    return f"{figure_text(o.figure, o.unit)} {_mark(o.passed)}"


def _mark(passed: bool) -> str:
    """`✓` pass, `✗` fail."""
    return "✓" if passed else "✗"


def search_table(result: Search) -> Table:
    """One row per candidate checked, ranked: its cost, each requirement's figure with ✓ (pass) or ✗ (fail)
    (survive: cases that hold of cases sampled), the candidate ✓ when all pass; skipped and refused ones are
    `not_tried`."""
    table = Table(
        title=f"{escape(result.scenario)}: candidate designs, passing (✓) first, cheapest first",
        box=box.SIMPLE_HEAD,
        title_justify="left",
        padding=(0, 1),
    )
    table.add_column("candidate", no_wrap=True)
    table.add_column(f"cost ({result.currency})", justify="right", no_wrap=True)
    for requirement in result.requirements:
        table.add_column(requirement.replace("max_utilisation.", "util "), justify="right", no_wrap=True)
    for t in result.tried:
        if t.status in ("skipped", "refused"):
            continue
        cost = "" if t.cost is None else format_money(t.cost)
        row = [
            f"{_mark(t.status == 'pass')} {escape(t.candidate.name)}",
            cost,
            *(_cell(t, r) for r in result.requirements),
        ]
        table.add_row(*row, style="bold" if t is result.best else None)
    return table


def not_tried(result: Search) -> list[str]:
    """One line per candidate skipped or refused, with why: `skipped 2 × 1 GbE SET, SMB Direct: ...`."""
    return [f"{t.status} {t.candidate.name}: {t.reason}" for t in result.tried if t.status in ("skipped", "refused")]


def search_document(result: Search) -> dict[str, object]:
    best = result.best
    return {
        "hvnet": __version__,
        "document_version": DOCUMENT_VERSION,
        "scenario": result.scenario,
        "currency": result.currency,
        "survive_sample": result.sample,
        "best": None if best is None else best.candidate.name,
        "reasoning": result.reasoning(),
        "simulations": result.simulations,
        "candidates": [
            {
                **t.candidate.document(),
                "rank": n,
                "status": t.status,
                "reason": t.reason or None,
                "cost": t.cost,
                "outcomes": [o.document() for o in t.outcomes],
                "survive": [
                    {
                        "kind": s.kind.value,
                        "cases": len(s.cases),
                        "total": s.total,
                        "failed_cases": [f.label for f in s.failed_cases],
                        "passed": s.passed,
                    }
                    for s in t.survive
                ],
            }
            for n, t in enumerate(result.tried, 1)
        ],
    }
