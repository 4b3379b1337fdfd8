"""`hvnet explain --report`: measured beside predicted, one chart per NIC (and core) of a counter log.

One self-contained HTML page, built with the report's own page and chart
helpers: per test, its figures and the ranked changes as tables; per counter
log row, one chart of the measured series beside the simulated one.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from hvnet.explain.explain import Explanation
from hvnet.explain.show import _pct, _value
from hvnet.report.charts import figure_div
from hvnet.report.page import page
from hvnet.report.sections import Section

__all__ = ["render_explain_report", "write_explain_report"]


def _tests(explanation: Explanation) -> Section:
    parts: list[str] = []
    for r in explanation.tests:
        rows = "".join(
            f"<tr><td>{escape(f.name)}</td><td>{_value(f.measured, f.unit)}</td><td>{_value(f.predicted, f.unit)}</td>"
            f"<td>{_pct(f.gap_pct)}</td><td>{'yes' if f.within else 'no'}</td></tr>"
            for f in r.figures
        )
        ranked = "".join(
            f"<tr><td>{escape(c.name)}</td><td>{escape(c.description)}</td>"
            f"<td>{'' if c.predicted_bps is None else _value(c.predicted_bps, 'bits/s')}</td>"
            f"<td>{_pct(c.remaining_gap_pct)}</td><td>{'yes' if c.explains else escape(c.skipped) or 'no'}</td></tr>"
            for c in r.counterfactuals
        )
        parts.append(
            f"<h3>{escape(r.file)}</h3><table><tr><th>figure</th><th>measured</th><th>predicted</th><th>gap</th>"
            f"<th>within</th></tr>{rows}</table>"
            + (
                "<table><tr><th>change</th><th>what</th><th>predicted</th><th>remaining "
                f"gap</th><th>explains</th></tr>{ranked}</table>"
                if ranked
                else ""
            )
            + f'<p>{escape(r.verdict)}</p><p class="note">{escape(r.band.rule)}</p>'
        )
    return Section("tests", "Tests: measured beside predicted", "\n".join(parts) or "<p>No test file was given.</p>")


def _charts(explanation: Explanation) -> Section:
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
            parts.append(figure_div(f"explain-{k}", figure))
            k += 1
        for u in c.unmapped:
            parts.append(
                f'<p class="note">{escape(u.counter)} ({escape(u.instance)}): not compared: {escape(u.reason)}</p>'
            )
    body = "\n".join(parts) or "<p>No counter log was given: a test file has totals, not per-NIC series.</p>"
    return Section("nics", "Per NIC: measured beside predicted", body)


def render_explain_report(explanation: Explanation) -> str:
    return page(
        f"hvnet explain: {explanation.scenario}",
        "",
        [_tests(explanation), _charts(explanation)],
        "Counter logs are aligned on their first sample; the prediction's series start at the test's start.",
    )


def write_explain_report(explanation: Explanation, path: str | Path) -> None:
    Path(path).write_text(render_explain_report(explanation), encoding="utf-8")
