"""The rows `hvnet check` prints and the JSON it writes (docs/check.md)."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table

from hvnet._version import __version__
from hvnet.check.evaluate import CheckResult, Outcome, SurviveResult
from hvnet.check.evaluate import room as _room
from hvnet.tables.fit import FittedTable
from hvnet.units import human_duration
from hvnet.words import counted

__all__ = ["NOTHING_TO_CHECK", "SHOWN_FAILURES", "check_document", "check_table", "figure_text", "margin_text"]

NOTHING_TO_CHECK = (
    "nothing to check: the scenario states no requirements; add a requirements: block, e.g. "
    "requirements: {max_drain: 10min, max_blackout: 500ms, survive: [nic, switch]} (docs/check.md)"
)

#: Failing cases printed per kind of failure; the JSON lists them all.
SHOWN_FAILURES = 20


def figure_text(value: float | None, unit: str) -> str:
    """`1 min 40 s`, `171 ms`, `43.2%`; `never` when there is no figure."""
    if value is None:
        return "never"
    return f"{value * 100:.1f}%" if unit == "share" else human_duration(value)


def margin_text(outcome: Outcome) -> str:
    """`+8 min 20 s`, `-1.3 points`; `—` when there is no figure."""
    margin = outcome.margin
    if margin is None:
        return "—"
    sign = "+" if margin >= 0 else "-"
    if outcome.unit == "share":
        return f"{sign}{abs(margin) * 100:.1f} points"
    return f"{sign}{human_duration(abs(margin))}"


def _label(outcome: Outcome) -> str:
    return outcome.requirement.replace(".", " ")


def _case(outcome: Outcome) -> str:
    return outcome.worst if outcome.failure is None else f"{outcome.worst}, with {outcome.failure.label}"


def _verdict(passed: bool) -> str:
    return "[green]pass[/green]" if passed else "[bold red]FAIL[/bold red]"


def check_table(result: CheckResult) -> Table:
    """One row per requirement, the case its figure comes from beneath its name; per kind of
    failure survived, a row, then one per failing case (its worst requirement)."""
    table = FittedTable(title=f"{result.scenario}: requirements", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("requirement (worst case)", ratio=1, overflow="fold")
    for column in ("figure", "limit", "margin"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("result", no_wrap=True)
    for outcome in result.outcomes:
        _add(table, outcome, _label(outcome))
    for survived in result.survive:
        _add_survive(table, survived)
    return table


def _cell(label: str, case: str) -> str:
    return f"[bold]{escape(label)}[/bold]\n[dim]{escape(case)}[/dim]"


def _add(table: Table, outcome: Outcome, label: str, note: str = "") -> None:
    table.add_row(
        _cell(label, label[: len(label) - len(label.lstrip())] + _case(outcome) + note),
        figure_text(outcome.figure, outcome.unit),
        figure_text(outcome.limit, outcome.unit),
        margin_text(outcome),
        _verdict(outcome.passed),
    )


def _add_survive(table: Table, survived: SurviveResult) -> None:
    cases, failed = len(survived.cases), len(survived.failed_cases)
    tightest = survived.tightest()
    sampled = f" (sampled: {cases} of {survived.total} cases)" if cases < survived.total else ""
    if not cases:
        note = f"no {survived.kind.value} to fail"
    elif tightest is None:
        note = "nothing to re-evaluate"
    else:
        where = f" with {tightest.failure.label}" if tightest.failure is not None else ""
        note = f"tightest: {_label(tightest)} {figure_text(tightest.figure, tightest.unit)}{where}{sampled}"
    table.add_row(
        _cell(f"survive {survived.kind.value}", note),
        f"{failed} of {cases} fail",
        "0 fail",
        "—",
        _verdict(survived.passed),
    )
    failing = _by_case(survived)
    for outcomes in failing[:SHOWN_FAILURES]:
        worst = min(outcomes, key=_room)
        more = len(outcomes) - 1
        _add(table, worst, f"  {_label(worst)}", f" (and {counted(more, 'other requirement')})" if more else "")
    if len(failing) > SHOWN_FAILURES:
        table.add_row(f"  … {len(failing) - SHOWN_FAILURES} more cases (--json lists them all)", "", "", "", "")


def _by_case(survived: SurviveResult) -> list[list[Outcome]]:
    """The failing outcomes of each failing case, case by case."""
    cases: dict[str, list[Outcome]] = {}
    for outcome in survived.failed:
        cases.setdefault(outcome.failure.label if outcome.failure else "", []).append(outcome)
    return list(cases.values())


def check_document(result: CheckResult) -> dict[str, object]:
    """The JSON `hvnet check --json` writes (docs/check.md)."""
    return {
        "hvnet": __version__,
        "scenario": result.scenario,
        "checked": result.checked,
        "passed": result.passed,
        "simulations": result.simulations,
        "wall_s": result.wall_s,
        "assumptions": result.settings.document(),
        "requirements": [outcome.document() for outcome in result.outcomes],
        "survive": [
            {
                "kind": survived.kind.value,
                "cases": len(survived.cases),
                "total_cases": survived.total,
                "failed_cases": len(survived.failed_cases),
                "passed": survived.passed,
                "tightest": None if (t := survived.tightest()) is None else t.document(),
                "failures": [outcome.document() for outcome in survived.failed],
            }
            for survived in result.survive
        ],
    }
