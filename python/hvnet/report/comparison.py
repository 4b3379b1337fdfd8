"""The HTML report of a comparison (`hvnet compare FILE... --report OUT.html`).

    from hvnet.report import write_comparison
    write_comparison(runs, "compare.html")

One self-contained page, as for one simulation (`page`): the verdict
paragraph (`hvnet.verdict`), the comparison table with each variant's cost,
each distinct design drawn small (`designs_section`), each metric's best marked as in the terminal, then per variant the
report's NIC charts (`adapters_section`), all on the same time axis so that
the variants read side by side, and its live-migration timeline
(`migrations_section`) if it migrates.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from hvnet.compare import BEST_MARK, Run, cost_cell, cost_heading, format_metric, heading, legend, shown_metrics
from hvnet.report.charts import TimeAxis
from hvnet.report.diagram import design_svg
from hvnet.report.embed import time_labels_script
from hvnet.report.migrations import migrations_section
from hvnet.report.page import page
from hvnet.report.resample import Grid
from hvnet.report.sections import NOT_SIMULATED, Section, adapters_section
from hvnet.variants import METRICS, best
from hvnet.words import counted

__all__ = ["comparison_section", "designs_section", "render_comparison", "verdict_section", "write_comparison"]

#: What a comparison cannot rank yet: one line at the top of the page.
NOT_COMPARED = NOT_SIMULATED


def _anchor(index: int) -> str:
    return f"v{index + 1}-"


def verdict_section(runs: Sequence[Run]) -> Section:
    """The verdict paragraph of ``hvnet compare`` (``hvnet.verdict``): the page opens with it."""
    from hvnet.verdict import verdict

    return Section("verdict", "Verdict", f'<p class="verdict">{escape(verdict(runs).text)}</p>')


def designs_section(runs: Sequence[Run]) -> Section | None:
    """Each distinct design drawn once (``design_svg``), small, under the names of the variants
    drawn alike (variants that differ only in what the drawing does not show share one)."""
    drawings: dict[str, list[str]] = {}
    for run in runs:
        if run.scenario is not None:
            drawings.setdefault(design_svg(run.scenario), []).append(run.label)
    if not drawings:
        return None
    parts = []
    for svg, labels in drawings.items():
        names = ", ".join(escape(label) for label in labels)
        parts.append(f'<p class="caption">{names}</p><div class="diagram fit small-design">{svg}</div>')
    style = "<style>.small-design { max-width: 640px; margin-bottom: 1em; }</style>"
    return Section("designs", "Designs", style + "".join(parts))


def comparison_section(runs: Sequence[Run]) -> Section:
    """The terminal's comparison table: a variant per row, a metric per column, the best marked."""
    marked, metrics = best([run.metrics for run in runs]), shown_metrics(runs)
    money = cost_heading(runs)
    head = '<th class="left">variant</th>' + "".join(
        f'<th class="right">{escape(heading(m, runs))}</th>' for m in metrics
    )
    if money is not None:
        head += f'<th class="right">{escape(money)}</th>'

    rows = []
    for i, run in enumerate(runs):
        cells = [f'<td class="left"><a href="#{_anchor(i)}network">{escape(run.label)}</a></td>']
        for metric in metrics:
            text = escape(format_metric(metric, getattr(run.metrics, metric.name)))
            if i in marked[metric.name]:
                cells.append(f'<td class="right best">{text} {BEST_MARK}</td>')
            else:
                cells.append(f'<td class="right">{text}</td>')
        if money is not None and run.cost is not None:
            cells.append(f'<td class="right">{escape(cost_cell(run, runs))}</td>')
        row = "".join(cells)
        rows.append(f'<tr class="stalled">{row}</tr>' if run.metrics.stalled else f"<tr>{row}</tr>")
    caption = (
        f'<p class="caption">{escape(legend(metrics, heading(METRICS[0], runs)))}. A variant in red has traffic that '
        "never completed; "
        "click a variant for its NICs.</p>"
    )
    table = f'<table class="traffic"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return Section("comparison", "Comparison", table + caption)


def render_comparison(runs: Sequence[Run], resolution_s: float | None = None) -> str:
    """The comparison as one HTML document: every variant's charts on one time axis, to the
    end of the longest run, its bins a round multiple of `resolution_s` (default 1 s)."""
    grid = Grid.fit(max((run.results.end_s for run in runs), default=0.0), resolution_s)
    sections = [verdict_section(runs), comparison_section(runs)] if runs else [comparison_section(runs)]
    designs = designs_section(runs)
    if designs is not None:
        sections.append(designs)
    for i, run in enumerate(runs):
        sections.append(adapters_section(run.results, _anchor(i), run.label, grid))
        migrations = migrations_section(
            run.results, _anchor(i), f"{run.label}: live migrations", axis=TimeAxis.of(grid.end_s)
        )
        if migrations is not None:
            sections.append(migrations)
    scenarios = ", ".join(dict.fromkeys(run.results.scenario for run in runs))
    title = f"Comparison of {counted(len(runs), 'variant')}"
    return page(title, scenarios, sections, NOT_COMPARED, time_labels_script(grid))


def write_comparison(runs: Sequence[Run], path: str | Path, resolution_s: float | None = None) -> None:
    """Writes the comparison's report to `path` (UTF-8), replacing the file if there is one."""
    Path(path).write_text(render_comparison(runs, resolution_s), encoding="utf-8")
