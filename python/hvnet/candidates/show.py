"""The table `hvnet design` prints and the JSON it writes (docs/advise.md#do-i-need-10-gbe)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from hvnet._version import __version__
from hvnet.candidates.search import Search, Tried
from hvnet.check.show import figure_text
from hvnet.cost import format_money
from hvnet.tables.fit import FittedTable

__all__ = ["DOCUMENT_VERSION", "CandidateTable", "not_tried", "search_document", "search_table"]

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


@dataclass(frozen=True)
class CandidateTable:
    """The table, and beneath each failing candidate's row why it fails (`Tried.why`), on a line of its
    own as wide as the terminal: a column would leave it no room beside the figures. The table fits the
    terminal as `FittedTable` does (requirement columns left out from the right, and named, when the
    figures do not fit)."""

    table: FittedTable
    #: One per row, in order: the reason printed beneath it, or "" for none.
    reasons: tuple[str, ...]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fitted = self.table.fitted(console, options)
        caption = fitted.caption
        if caption is not None:  # it goes below the reasons
            fitted = copy.copy(fitted)
            fitted.caption = None
        lines = console.render_lines(fitted, options, pad=False)  # fitted already: it prints as it is
        # Each row is one line (every column is no_wrap); the rows end above the table's bottom edge.
        bottom = 1 if fitted.show_edge and fitted.box is not None else 0
        first_row = len(lines) - bottom - len(self.reasons)
        for n, line in enumerate(lines):
            yield from line
            yield Segment.line()
            row = n - first_row
            if 0 <= row < len(self.reasons) and self.reasons[row]:
                yield from _reason_lines(console, options, self.reasons[row])
        if caption is not None:
            style = Style.pick_first(fitted.caption_style, "table.caption")
            yield from console.render(console.render_str(str(caption), style=style, highlight=False), options)


def _reason_lines(console: Console, options: ConsoleOptions, reason: str) -> Iterator[Segment]:
    """The reason in dim text, indented under the candidate's name (wrapped lines too)."""
    yield from console.render(Padding(Text(reason, style="dim"), (0, 0, 0, 4), expand=False), options)


def search_table(result: Search) -> CandidateTable:
    """One row per candidate checked, ranked: its cost, each requirement's figure with ✓ (pass) or ✗ (fail)
    (survive: cases that hold of cases sampled), the candidate ✓ when all pass; beneath a failing one, why
    it fails in one clause. Skipped and refused ones are `not_tried`."""
    table = FittedTable(
        title=f"{escape(result.scenario)}: candidate designs, passing (✓) first, cheapest first",
        box=box.SIMPLE_HEAD,
        title_justify="left",
        padding=(0, 1),
    )
    table.add_column("candidate", no_wrap=True)
    table.add_column(f"cost ({result.currency})", justify="right", no_wrap=True)
    for requirement in result.requirements:
        table.add_column(requirement.replace("max_utilisation.", "util "), justify="right", no_wrap=True)
    reasons: list[str] = []
    for t in result.tried:
        if t.status in ("skipped", "refused"):
            continue
        reasons.append(t.why())
        cost = "" if t.cost is None else format_money(t.cost)
        row = [
            f"{_mark(t.status == 'pass')} {escape(t.candidate.name)}",
            cost,
            *(_cell(t, r) for r in result.requirements),
        ]
        table.add_row(*row, style="bold" if t is result.best else None)
    return CandidateTable(table, tuple(reasons))


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
                "reason": t.why() or None,
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
