"""`hvnet explain --report`: measured beside predicted, what holds the prediction, and the charts that show it.

One self-contained HTML page, built with the report's own page and chart
helpers. Per test: its figures, the bottleneck chain (a table and the
sentence), the differences, the changes that move the prediction (and pairs),
the verdict, and three charts (`charts`): throughput over time measured
beside predicted, the bottleneck's use over time, each thread measured
beside predicted. Per counter log row, when a counter log is given: one
chart of the measured series beside the simulated one. The page's banner says
only what applies to what was given (how counter logs are aligned, when one is).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from hvnet.explain.charts import bottleneck_figure, thread_figure, throughput_figure
from hvnet.explain.explain import Explanation, TestExplanation
from hvnet.explain.sentences import rate
from hvnet.explain.show import in_unit, not_applicable_lines, not_the_cause_line, share_pct, signed_pct
from hvnet.report.charts import figure_div
from hvnet.report.page import page
from hvnet.report.sections import Section
from hvnet.units import human_duration

__all__ = ["COUNTER_NOTE", "render_explain_report", "write_explain_report"]

#: The banner of a page with a counter log.
COUNTER_NOTE = "Counter logs are aligned on their first sample; the prediction's series start at the test's start."


def _row(*cells: str, head: bool = False) -> str:
    tag = "th" if head else "td"
    return "<tr>" + "".join(f"<{tag}>{escape(c)}</{tag}>" for c in cells) + "</tr>"


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    return '<table class="traffic">' + _row(*head, head=True) + "".join(_row(*r) for r in rows) + "</table>"


def _figures(r: TestExplanation) -> str:
    rows = [
        (
            f.name,
            in_unit(f.measured, f.unit, f.predicted),
            in_unit(f.predicted, f.unit, f.predicted),
            signed_pct(f.gap_pct),
            "yes" if f.within else "no",
        )
        for f in r.figures
    ]
    return _table(("figure", "measured", "predicted", "gap", "within"), rows)


def _chain(r: TestExplanation) -> str:
    if r.chain is None or not r.chain.uses:
        return ""
    rows = [
        (
            u.stage,
            u.resource,
            "" if u.connections is None else str(u.connections),
            share_pct(u.mean_share),
            human_duration(u.full_s),
            "the limit" if u.stage in r.chain.holding and u.full_s > 0 else "",
        )
        for u in r.chain.uses
    ]
    return (
        "<h4>What holds the prediction</h4>"
        + _table(("stage", "resource", "connections", "mean use", "full for", "holds"), rows)
        + f"<p>{escape(r.limit)}</p>"
    )


def _changes(r: TestExplanation) -> str:
    parts = []
    if r.evidence:
        items = "".join(f"<li>{escape(line)}</li>" for line in r.evidence)
        parts.append(f"<h4>Measured beside predicted, the largest difference first</h4><ul>{items}</ul>")
    moving = [c for c in r.counterfactuals if c.moves]
    for title, ranked in (("Changes that move the prediction", moving), ("Two changes at once", r.pairs)):
        if ranked:
            rows = [
                (
                    c.name,
                    c.description,
                    rate(c.predicted_bps or 0.0),
                    "" if c.closes_pct is None else f"{c.closes_pct:.0f} %",
                    "yes" if c.explains else "no",
                )
                for c in ranked
            ]
            parts.append(
                f"<h4>{title}, most of the gap closed first</h4>"
                + _table(("change", "what", "predicted", "closes", "explains"), rows)
            )
    same = not_the_cause_line(r)
    if same:
        parts.append(f"<p>{escape(same)}</p>")
    skipped = "".join(f"<li>{escape(line)}</li>" for line in not_applicable_lines(r))
    if skipped:
        parts.append(f'<p class="caption">not applicable here:</p><ul class="caption">{skipped}</ul>')
    return "".join(parts)


def _charts(r: TestExplanation, k: int) -> str:
    throughput, caption = throughput_figure(r)
    parts = [figure_div(f"explain-{k}-throughput", throughput), f'<p class="caption">{escape(caption)}</p>']
    if r.chain is not None and r.chain.uses:
        parts.append(figure_div(f"explain-{k}-bottleneck", bottleneck_figure(r.chain)))
    threads = thread_figure(r)
    if threads is not None:
        parts.append(figure_div(f"explain-{k}-threads", threads))
    return "".join(parts)


def _tests(explanation: Explanation) -> Section:
    parts: list[str] = []
    for k, r in enumerate(explanation.tests):
        parts.append(
            f"<h3>{escape(r.file)}</h3>"
            + _figures(r)
            + f"<p><strong>{escape(r.verdict)}</strong></p>"
            + _chain(r)
            + _changes(r)
            + _charts(r, k)
            + f'<p class="caption">model\'s band: {escape(r.band.rule)}</p>'
        )
    return Section("tests", "Tests: measured beside predicted", "\n".join(parts) or "<p>No test file was given.</p>")


def _counter_charts(explanation: Explanation) -> Section:
    parts: list[str] = []
    k = 0
    for c in explanation.counters:
        parts.append(f"<h3>{escape(c.file)}</h3><p>Simulated: {escape(c.simulated)}.</p>")
        for row in c.rows:
            scale = 1e-9 if row.unit == "bits/s" else 1.0
            unit = "Gbps" if row.unit == "bits/s" else "%"
            measured = [None if v is None else v * scale for v in row.measured_series]
            simulated = [v * scale for v in row.simulated_series]
            figure = {
                "data": [
                    {"type": "scatter", "x": row.t_s, "y": measured, "name": "measured", "mode": "lines"},
                    {
                        "type": "scatter",
                        "x0": 0,
                        "dx": c.step_s,
                        "y": simulated,
                        "name": "predicted",
                        "mode": "lines",
                        "line": {"dash": "dot"},
                    },
                ],
                "layout": {
                    "title": {"text": f"{row.host} / {row.what} ({row.instance})"},
                    "height": 230,
                    "xaxis": {"title": {"text": "time (s)"}},
                    "yaxis": {"title": {"text": unit}, "rangemode": "tozero"},
                },
            }
            parts.append(figure_div(f"explain-counter-{k}", figure))
            k += 1
        for u in c.unmapped:
            parts.append(
                f'<p class="note">{escape(u.counter)} ({escape(u.instance)}): not compared: {escape(u.reason)}</p>'
            )
    return Section("nics", "Per NIC and core: the counter log beside the simulation", "\n".join(parts))


def render_explain_report(explanation: Explanation) -> str:
    """The page: the tests, then the counter logs' charts when a counter log was given; its banner only then."""
    sections = [_tests(explanation)]
    note = ""
    if explanation.counters:
        sections.append(_counter_charts(explanation))
        note = COUNTER_NOTE
    html = page(f"hvnet explain: {explanation.scenario}", "", sections, note)
    # The page always has a banner paragraph; with nothing to say, it goes.
    return html if note else html.replace('<p class="note"></p>\n', "", 1)


def write_explain_report(explanation: Explanation, path: str | Path) -> None:
    Path(path).write_text(render_explain_report(explanation), encoding="utf-8")
