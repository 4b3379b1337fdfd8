"""`hvnet explain` on a terminal and as JSON (docs/import.md, "Explain")."""

from __future__ import annotations

from rich.table import Table

from hvnet.explain.counters import QUANTILES, CounterComparison
from hvnet.explain.explain import Explanation, Figure, TestExplanation

__all__ = ["DOCUMENT_VERSION", "counter_table", "explanation_document", "figure_table", "ranking_table"]

#: Version of the `--json` document; bumped when a field changes meaning or is removed.
DOCUMENT_VERSION = 1


def _value(value: float, unit: str) -> str:
    if unit == "bits/s":
        return f"{value / 1e6:,.1f} Mbps"
    if unit == "percent":
        return f"{value:.2f} %"
    if unit == "bytes":
        return f"{value:,.0f} B"
    return f"{value:.3f}"


def _short(value: float, unit: str) -> str:
    """A band's low end without its unit (the high end carries it)."""
    return _value(value, unit).replace(" Mbps", "").replace(" %", "").replace(" B", "")


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f} %"


def figure_table(result: TestExplanation) -> Table:
    t = result.test
    title = (
        f"{result.file}: {result.format}, {result.role or 'role unknown'}; re-created as {t.tool} "
        f"{t.sender} -> {t.receiver}, {t.threads} threads, {t.seconds:g} s"
    )
    table = Table(title=title, title_justify="left")
    for column in ("figure", "measured", "predicted", "gap", "gap %", "model's band", "within"):
        table.add_column(
            column, justify="left" if column in ("figure", "within") else "right", no_wrap=column != "figure"
        )
    for f in result.figures:
        band = f"{_short(f.low, f.unit)}-{_value(f.high, f.unit)}"
        table.add_row(
            f.name,
            _value(f.measured, f.unit),
            _value(f.predicted, f.unit),
            _value(f.gap, f.unit),
            _pct(f.gap_pct),
            band,
            "yes" if f.within else "[red]no[/]",
        )
    return table


def ranking_table(result: TestExplanation) -> Table:
    table = Table(
        title="one change at a time, closest to the measurement first (gap: measured less that prediction)",
        title_justify="left",
    )
    for column in ("change", "what", "predicted", "remaining gap", "explains"):
        table.add_column(column, justify="right" if column in ("predicted", "remaining gap") else "left")
    for r in result.counterfactuals:
        if r.predicted_bps is None:
            table.add_row(r.name, r.description, "", "", f"not applicable: {r.skipped}", style="dim")
        else:
            table.add_row(
                r.name,
                r.description,
                _value(r.predicted_bps, "bits/s"),
                _pct(r.remaining_gap_pct),
                "yes" if r.explains else "no",
            )
    return table


def counter_table(comparison: CounterComparison) -> Table:
    title = (
        f"{comparison.file}: {comparison.window_s:g} s at {comparison.step_s:g} s steps, beside a simulation of "
        f"{comparison.simulated}"
    )
    table = Table(title=title, title_justify="left")
    for column in ("host", "series", "instance", "measured p50/p90/p99/max", "simulated p50/p90/p99/max", "gap at p90"):
        table.add_column(column)
    for row in comparison.rows:
        table.add_row(
            row.host,
            row.what,
            row.instance,
            " / ".join(_value(row.measured[k], row.unit) for k, _ in QUANTILES),
            " / ".join(_value(row.simulated[k], row.unit) for k, _ in QUANTILES),
            _pct(row.gap_pct("p90")),
        )
    for u in comparison.unmapped:
        table.add_row("", u.counter, u.instance, f"not compared: {u.reason}", "", "", style="dim")
    return table


def _figure(f: Figure) -> dict[str, object]:
    return {
        "name": f.name,
        "unit": f.unit,
        "measured": f.measured,
        "predicted": f.predicted,
        "gap": f.gap,
        "gap_pct": f.gap_pct,
        "low": f.low,
        "high": f.high,
        "within": f.within,
    }


def explanation_document(explanation: Explanation) -> dict[str, object]:
    """The `--json` document (docs/import.md, "Explain")."""
    tests = []
    for r in explanation.tests:
        tests.append(
            {
                "file": r.file,
                "format": r.format,
                "role": r.role,
                "test": {
                    "tool": r.test.tool,
                    "sender": r.test.sender,
                    "receiver": r.test.receiver,
                    "threads": r.test.threads,
                    "seconds": r.test.seconds,
                    "buffer_bytes": r.test.buffer_bytes,
                    "origin": list(r.test.origin),
                },
                "band_rule": r.band.rule,
                "figures": [_figure(f) for f in r.figures],
                "within": r.throughput.within,
                "counterfactuals": [
                    {
                        "name": c.name,
                        "description": c.description,
                        "predicted_bps": c.predicted_bps,
                        "remaining_gap_bps": c.remaining_gap_bps,
                        "remaining_gap_pct": c.remaining_gap_pct,
                        "explains": c.explains,
                        "skipped": c.skipped or None,
                    }
                    for c in r.counterfactuals
                ],
                "explained_by": [c.name for c in r.counterfactuals if c.explains],
                "verdict": r.verdict,
            }
        )
    counters = []
    for c in explanation.counters:
        counters.append(
            {
                "file": c.file,
                "window_s": c.window_s,
                "step_s": c.step_s,
                "simulated": c.simulated,
                "rows": [
                    {
                        "host": row.host,
                        "series": row.what,
                        "instance": row.instance,
                        "unit": row.unit,
                        "measured": row.measured,
                        "simulated": row.simulated,
                        "gap_pct": {k: row.gap_pct(k) for k, _ in QUANTILES},
                    }
                    for row in c.rows
                ],
                "unmapped": [{"instance": u.instance, "counter": u.counter, "reason": u.reason} for u in c.unmapped],
            }
        )
    return {"version": DOCUMENT_VERSION, "scenario": explanation.scenario, "tests": tests, "counters": counters}
