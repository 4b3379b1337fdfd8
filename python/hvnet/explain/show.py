"""`hvnet explain` on a terminal and as JSON (docs/import.md, "Explain")."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from hvnet.explain.bottleneck import Chain
from hvnet.explain.counters import QUANTILES, CounterComparison
from hvnet.explain.explain import Explanation, Figure, Ranked, TestExplanation
from hvnet.explain.ranking import not_the_cause
from hvnet.explain.sentences import listed, rate, value
from hvnet.tables.fit import FittedTable
from hvnet.tables.paragraph import Paragraph
from hvnet.units import human_duration

__all__ = [
    "DOCUMENT_VERSION",
    "PAIRS_SHOWN",
    "chain_table",
    "counter_table",
    "explanation_document",
    "figure_table",
    "in_unit",
    "not_applicable_lines",
    "not_the_cause_line",
    "pairs_table",
    "print_explanation",
    "ranking_table",
    "share_pct",
    "signed_pct",
]

#: Version of the `--json` document; bumped when a field changes meaning or is removed.
DOCUMENT_VERSION = 1
#: The pairs the terminal shows (the JSON has them all).
PAIRS_SHOWN = 5


def in_unit(number: float, unit: str, scale: float) -> str:
    """A value in the unit its row reads in: a rate in Gbps when the row's prediction is 1 Gbps or more."""
    if unit == "bits/s":
        return f"{number / 1e9:,.2f} Gbps" if abs(scale) >= 1e9 else f"{number / 1e6:,.1f} Mbps"
    return value(number, unit)


def _bare(text: str) -> str:
    """A band's low end without its unit (the high end carries it)."""
    for unit in (" Gbps", " Mbps", " %", " B"):
        text = text.removesuffix(unit)
    return text


def signed_pct(number: float | None) -> str:
    return "" if number is None else f"{number:+.1f} %"


def share_pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def figure_table(result: TestExplanation) -> Table:
    t = result.test
    title = (
        f"{result.file}: {result.format}, {result.role or 'role unknown'}; re-created as {t.tool} "
        f"{t.sender} -> {t.receiver}, {t.threads} threads, {t.seconds:g} s"
    )
    table = FittedTable(title=title, title_justify="left")
    for column in ("figure", "measured", "predicted", "gap", "gap %", "model's band", "within"):
        table.add_column(
            column, justify="left" if column in ("figure", "within") else "right", no_wrap=column != "figure"
        )
    for f in result.figures:
        high = in_unit(f.high, f.unit, f.predicted)
        band = high if f.low == f.high else f"{_bare(in_unit(f.low, f.unit, f.predicted))}-{high}"
        table.add_row(
            f.name,
            in_unit(f.measured, f.unit, f.predicted),
            in_unit(f.predicted, f.unit, f.predicted),
            in_unit(f.gap, f.unit, f.predicted),
            signed_pct(f.gap_pct),
            band,
            "yes" if f.within else "[red]no[/]",
        )
    return table


def chain_table(chain: Chain) -> Table:
    """The test's path, stage by stage: each resource's mean and peak use and the time it was full."""
    table = FittedTable(
        title=f"what holds the prediction (mean use over the {chain.seconds:g} s test; full: over 99 %)",
        title_justify="left",
    )
    for column in ("stage", "resource", "connections", "mean", "peak", "full for", "holds"):
        right = column in ("connections", "mean", "peak", "full for")
        table.add_column(column, justify="right" if right else "left", no_wrap=right)
    for u in chain.uses:
        holds = u.stage in chain.holding and u.full_s > 0
        table.add_row(
            u.stage,
            u.resource,
            "" if u.connections is None else str(u.connections),
            share_pct(u.mean_share),
            share_pct(u.peak_share),
            human_duration(u.full_s),
            "the limit" if holds else "",
            style="bold" if holds else None,
        )
    return table


def ranking_table(result: TestExplanation) -> Table:
    """The changes that move the prediction, most of the gap closed first."""
    gap = result.throughput.gap
    table = FittedTable(
        title=f"changes that move the prediction, most of the gap ({rate(gap)}) closed first",
        title_justify="left",
    )
    for column in ("change", "predicted", "closes", "remaining gap", "explains"):
        right = column in ("predicted", "closes", "remaining gap")
        table.add_column(column, justify="right" if right else "left", no_wrap=right or column == "explains")
    for r in result.counterfactuals:
        if r.moves and r.predicted_bps is not None:
            table.add_row(
                r.name,
                rate(r.predicted_bps),
                _closes(r),
                signed_pct(r.remaining_gap_pct),
                "yes" if r.explains else "no",
            )
    return table


def _closes(r: Ranked) -> str:
    return "" if r.closes_pct is None else f"{r.closes_pct:.0f} %"


def pairs_table(result: TestExplanation) -> Table:
    shown = result.pairs[:PAIRS_SHOWN]
    more = len(result.pairs) - len(shown)
    table = FittedTable(
        title="two changes at once (where each matters), most of the gap closed first"
        + (f"; {more} more in --json" if more > 0 else ""),
        title_justify="left",
    )
    for column in ("changes", "predicted", "closes", "remaining gap", "explains"):
        right = column in ("predicted", "closes", "remaining gap")
        table.add_column(column, justify="right" if right else "left", no_wrap=right or column == "explains")
    for r in shown:
        table.add_row(
            r.name,
            rate(r.predicted_bps or 0.0),
            _closes(r),
            signed_pct(r.remaining_gap_pct),
            "yes" if r.explains else "no",
        )
    return table


def not_the_cause_line(result: TestExplanation) -> str:
    """The changes that give the same prediction, said once; "" when there are none."""
    same = [r.name for r in not_the_cause(result.counterfactuals)]
    if not same:
        return ""
    verb = "gives" if len(same) == 1 else "each give"
    return f"not the cause: {listed(same)} {verb} the same {rate(result.throughput.predicted)}"


def not_applicable_lines(result: TestExplanation) -> list[str]:
    """Each change that does not apply to the scenario, with the reason."""
    return [f"{r.name}: {r.skipped}" for r in result.counterfactuals if r.predicted_bps is None]


def counter_table(comparison: CounterComparison) -> Table:
    title = (
        f"{comparison.file}: {comparison.window_s:g} s at {comparison.step_s:g} s steps, beside a simulation of "
        f"{comparison.simulated}"
    )
    table = FittedTable(title=title, title_justify="left")
    for column in ("host", "series", "instance", "measured p50/p90/p99/max", "simulated p50/p90/p99/max", "gap at p90"):
        table.add_column(column, no_wrap=column in ("host", "gap at p90"))
    for row in comparison.rows:
        table.add_row(
            row.host,
            row.what,
            row.instance,
            " / ".join(value(row.measured[k], row.unit) for k, _ in QUANTILES),
            " / ".join(value(row.simulated[k], row.unit) for k, _ in QUANTILES),
            signed_pct(row.gap_pct("p90")),
        )
    for u in comparison.unmapped:
        table.add_row("", u.counter, u.instance, f"not compared: {u.reason}", "", "", style="dim")
    return table


def _print_test(out: Console, result: TestExplanation) -> None:
    def say(text: str, style: str | None = None) -> None:
        if text:
            out.print(Paragraph(text, style))

    out.print(figure_table(result))
    if result.format.startswith("ntttcp-windows"):
        measured, predicted = (f / 8 / 2**20 for f in (result.throughput.measured, result.throughput.predicted))
        say(f"in NTttcp's MB/s (2^20 bytes/s): measured {measured:.3f}, predicted {predicted:.3f}")
    say(f"model's band: {result.band.rule}")
    if result.chain is not None and result.chain.uses:
        out.print(chain_table(result.chain))
    say(result.limit)
    if result.evidence:
        say("measured beside predicted, the largest difference first:")
        for line in result.evidence:
            say(f"  - {line}")
    if any(r.moves for r in result.counterfactuals):
        out.print(ranking_table(result))
    say(not_the_cause_line(result))
    skipped = not_applicable_lines(result)
    if skipped:
        say("not applicable here:", "dim")
        for line in skipped:
            say(f"  - {line}", "dim")
    if result.pairs:
        out.print(pairs_table(result))
    say(result.verdict)


def print_explanation(out: Console, explanation: Explanation) -> None:
    """The terminal's answer: per test its figures, what holds the prediction, the differences, the
    changes and the verdict; per counter log its table."""
    for result in explanation.tests:
        _print_test(out, result)
    for comparison in explanation.counters:
        out.print(counter_table(comparison))


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


def _ranked(c: Ranked) -> dict[str, object]:
    return {
        "name": c.name,
        "description": c.description,
        "predicted_bps": c.predicted_bps,
        "remaining_gap_bps": c.remaining_gap_bps,
        "remaining_gap_pct": c.remaining_gap_pct,
        "closes_pct": c.closes_pct,
        "moves": c.moves,
        "explains": c.explains,
        "skipped": c.skipped or None,
    }


def _bottleneck(chain: Chain | None) -> dict[str, object] | None:
    if chain is None:
        return None
    return {
        "seconds": chain.seconds,
        "holding": list(chain.holding),
        "uses": [
            {
                "stage": u.stage,
                "resource": u.resource,
                "connections": u.connections,
                "mean_share": u.mean_share,
                "peak_share": u.peak_share,
                "full_s": u.full_s,
                "speed_bps": u.speed_bps,
                "team": u.team,
            }
            for u in chain.uses
        ],
        "groups": [
            {"threads": list(g.threads), "rate_bps": list(g.rate_bps), "nics": list(g.nics), "held_by": list(g.held_by)}
            for g in chain.groups
        ],
    }


def _test(r: TestExplanation) -> dict[str, object]:
    return {
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
        "bottleneck": _bottleneck(r.chain),
        "limit": r.limit,
        "evidence": list(r.evidence),
        "main_difference": r.main_difference,
        "counterfactuals": [_ranked(c) for c in r.counterfactuals],
        "not_the_cause": [c.name for c in not_the_cause(r.counterfactuals)],
        "pairs": [_ranked(c) for c in r.pairs],
        "explained_by": [c.name for c in r.counterfactuals if c.explains],
        "verdict": r.verdict,
    }


def explanation_document(explanation: Explanation) -> dict[str, object]:
    """The `--json` document (docs/import.md, "Explain")."""
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
    return {
        "version": DOCUMENT_VERSION,
        "scenario": explanation.scenario,
        "tests": [_test(r) for r in explanation.tests],
        "counters": counters,
    }
