"""`hvnet compare`: every variant of every file, simulated and ranked side by side.

    runs = run_comparison(["cluster.yaml", "cluster-set.yaml"])
    for table in comparison_tables(runs):
        console.print(table)

A file without ``variants:`` is one variant. Every variant of every file is
checked and simulated before anything is shown, and all their problems are
reported at once. Each metric's best value is marked (``hvnet.variants.best``).
The terminal table, the JSON document (``comparison_document``) and the HTML
report (``hvnet.report.render_comparison``) show the same numbers.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from hvnet._version import __version__
from hvnet.cost import PricedBill, PriceList, design_cost, format_money, load_prices
from hvnet.errors import Problem, ScenarioError
from hvnet.model import Scenario
from hvnet.results import Results
from hvnet.tables.fit import FittedTable
from hvnet.tables.paragraph import Paragraph
from hvnet.units import format_bitrate, human_duration
from hvnet.variants import METRICS, Metric, Metrics, Variant, Variants, best, load_variants, show_axis_value
from hvnet.variants.metrics import END_BEST, end_heading, what_ended
from hvnet.words import counted

__all__ = [
    "BEST_MARK",
    "Run",
    "comparison_document",
    "comparison_tables",
    "cost_cell",
    "cost_heading",
    "format_metric",
    "heading",
    "legend",
    "run_comparison",
    "shown_metrics",
]

#: What marks the best value of a metric, in the terminal and in the report.
BEST_MARK = "★"


@dataclass(frozen=True)
class Run:
    """One simulated variant of one file."""

    #: How the comparison names it: ``jumbo=9000``; with several files ``a.yaml: jumbo=9000``, or ``a.yaml``.
    label: str
    file: str
    variant: Variant
    #: The variant's value on each axis of its file.
    values: dict[str, object]
    results: Results
    metrics: Metrics
    #: The variant's scenario (its requirements, its bill of materials); None when built without one.
    scenario: Scenario | None = None
    #: Its bill of materials, priced (``hvnet.cost.design_cost``); None when built without one.
    cost: PricedBill | None = None


def run_comparison(
    files: Sequence[str | os.PathLike[str]],
    names: Sequence[str] | None = None,
    prices: PriceList | str | os.PathLike[str] | None = None,
) -> list[Run]:
    """Simulates every variant of every file, in order; ScenarioError lists every problem of all of them.

    `names` are how the comparison calls the files (default: their paths as given). Each variant is
    priced from `prices` (``hvnet.cost.design_cost``: a list, a file merged over the default list, or
    None for the default example prices)."""
    price_list = prices if isinstance(prices, PriceList) else load_prices(prices)
    problems: list[Problem] = []
    designs: list[Variants] = []
    for file, name in zip(files, names or [os.fspath(f) for f in files], strict=True):
        try:
            designs.append(dataclasses.replace(load_variants(file), filename=name))
        except ScenarioError as error:
            problems.extend(error.problems)
    runs: list[Run] = []
    for design in designs:
        for variant in design:
            try:
                results = design.simulate(variant)
                scenario = design.scenario(variant)
            except ScenarioError as error:
                problems.extend(error.problems)
                continue
            cost = design_cost(scenario, price_list)
            parts = [design.filename] if len(files) > 1 or not design.axes else []
            label = ": ".join(parts + ([variant.name] if design.axes else []))
            values = {axis.name: value for axis, value in zip(design.axes, variant.values)}
            runs.append(Run(label, design.filename, variant, values, results, Metrics.of(results), scenario, cost))
    if problems:
        raise ScenarioError(dict.fromkeys(problems))
    return runs


def format_metric(metric: Metric, value: float | None) -> str:
    """A metric's value as the comparison shows it: ``10.5 s``, ``2 h 22 min``, ``9.41 Gbps``, ``never``."""
    if metric.name == "stalled":
        return str(value)
    if metric.name == "peak_send_bps":
        return format_bitrate(float(f"{value or 0.0:.3g}"))
    if value is None:
        return "never" if metric.name in ("end_s", "blackout_s") else "forever"
    if metric.name in ("blackholed_s", "blackout_s") and value == 0:
        return "-"
    if metric.name == "cpu_core_s":
        return f"{value:.2f} core-s"
    return human_duration(value)


#: Metrics of mishaps and events a comparison may not have: left out where every variant scores 0.
_OPTIONAL = ("stalled", "blackholed_s", "blackout_s")


def shown_metrics(runs: Sequence[Run]) -> list[Metric]:
    """The metrics a table shows: all but stalls, black holes and blackouts that no variant had."""
    return [m for m in METRICS if m.name not in _OPTIONAL or any(getattr(r.metrics, m.name) != 0 for r in runs)]


def legend(metrics: Sequence[Metric] = METRICS, end: str = "drain time") -> str:
    """What the mark means, under a table of these metrics; `end` is the heading of ``end_s`` (``heading``)."""
    ranked = ", ".join(END_BEST[end] if metric.name == "end_s" else metric.best for metric in metrics)
    return (
        f"{BEST_MARK} marks the best: {ranked}, among the variants whose traffic all completed; "
        "nothing is marked where more than half of them share the best, or none has a value"
    )


def heading(metric: Metric, runs: Sequence[Run]) -> str:
    """A metric's column heading: ``end_s`` is named by what ended (``drain time``, ``rolling update``,
    ``migrations``, ``last transfer``; ``end`` when the runs differ)."""
    if metric.name == "end_s" and runs:
        return end_heading([run.results for run in runs])
    return metric.heading


def cost_heading(runs: Sequence[Run]) -> str | None:
    """``cost (USD)``; None when a run is not priced."""
    currencies = {run.cost.currency for run in runs if run.cost is not None}
    if not runs or any(run.cost is None for run in runs):
        return None
    return f"cost ({currencies.pop()})" if len(currencies) == 1 else "cost"


def cost_cell(run: Run, runs: Sequence[Run]) -> str:
    """A run's total as the cost column shows it: ``11,060`` (whole units when every total of `runs`
    is whole, else cents), after its currency when the heading does not name one."""
    if run.cost is None:
        return "-"
    whole = all(run.cost is not None and run.cost.total == int(run.cost.total) for run in runs)
    text = f"{run.cost.total:,.0f}" if whole else format_money(run.cost.total)
    return text if "(" in (cost_heading(runs) or "") else f"{run.cost.currency} {text}"


def comparison_tables(runs: Sequence[Run]) -> list[RenderableType]:
    """The verdict paragraph (``hvnet.verdict``); then one row per run, one column per metric, each
    metric's best marked, and the cost; then each run's warnings.

    Variants whose files share their axes get a column per axis (and one of files, if
    there are several); otherwise a column of labels."""
    from hvnet.verdict import verdict

    marked = best([run.metrics for run in runs])
    table = FittedTable(
        title=f"comparison of {counted(len(runs), 'variant')}",
        title_justify="left",
        caption_justify="left",
    )
    shared = bool(runs) and bool(runs[0].values) and all(list(run.values) == list(runs[0].values) for run in runs)
    axes = list(runs[0].values) if shared else []
    several = len({run.file for run in runs}) > 1
    for name in (["file"] * several + axes) if axes else ["variant"]:
        table.add_column(name, no_wrap=True)  # two variants must never read alike
    metrics = shown_metrics(runs)
    table.caption = legend(metrics, heading(METRICS[0], runs))
    # A figure every variant shares is said once, under the table, not repeated in a column.
    same = [
        m for m in metrics if len(runs) > 1 and len({format_metric(m, getattr(r.metrics, m.name)) for r in runs}) == 1
    ]
    if same:
        shared_text = ", ".join(
            f"{heading(m, runs)} {format_metric(m, getattr(runs[0].metrics, m.name))}" for m in same
        )
        table.caption += f"\nthe same in every variant: {shared_text}"
        metrics = [m for m in metrics if m not in same]
    for metric in metrics:
        table.add_column(heading(metric, runs), justify="right", no_wrap=True)
    money = cost_heading(runs)
    if money is not None:
        table.add_column(money.replace(" (", "\n("), justify="right", no_wrap=True)
    for i, run in enumerate(runs):
        names = [run.file] * several + [show_axis_value(run.values[name]) for name in axes] if axes else [run.label]
        cells: list[str | Text] = list(names)
        for metric in metrics:
            text = format_metric(metric, getattr(run.metrics, metric.name))
            if i in marked[metric.name]:
                cells.append(Text(f"{text} {BEST_MARK}", style="bold green"))
            else:  # aligned with the marked cells' numbers, where the column has any
                cells.append(Text(f"{text}  " if marked[metric.name] else text))
        if money is not None:
            cells.append(cost_cell(run, runs))
        table.add_row(*cells, style="red" if run.metrics.stalled else None)
    warnings = Table.grid()
    for run in runs:
        for warning in run.results.warnings:
            warnings.add_row(f"warning: {run.label}: {warning}", style="yellow")
    out: list[RenderableType] = [Paragraph(verdict(runs).text), Text(""), table] if runs else [table]
    return [*out, warnings] if warnings.row_count else out


def comparison_document(runs: Sequence[Run]) -> dict[str, object]:
    """The comparison as JSON (docs/sweeps.md)."""
    from hvnet.verdict import verdict

    marked = best([run.metrics for run in runs])
    judged = verdict(runs)
    return {
        "hvnet": __version__,
        "better": {metric.name: metric.better for metric in METRICS},
        "verdict": {
            "text": judged.text,
            "winner": None if judged.winner is None else runs[judged.winner].label,
            "ranking": [runs[i].label for i in judged.ranking],
            "requirements_stated": any(d.meets is not None for d in judged.designs),
        },
        "variants": [
            {
                "label": run.label,
                "file": run.file,
                "scenario": run.results.scenario,
                "variant": run.variant.name,
                "values": run.values,
                "ended": what_ended(run.results),
                "metrics": run.metrics.as_dict(),
                "best": [metric.name for metric in METRICS if i in marked[metric.name]],
                "main": {"name": design.main.name, "seconds": design.main.seconds},
                "cost": None if run.cost is None else {"total": run.cost.total, "currency": run.cost.currency},
                "requirements": None
                if design.meets is None
                else {
                    "met": design.meets,
                    "evaluated": [
                        {"name": r.name, "limit": r.limit, "figure": r.figure, "met": r.met}
                        for r in design.requirements
                    ],
                    "not_evaluated": list(design.not_evaluated),
                },
                "bottleneck": {
                    "resource": design.bottleneck.resource,
                    "kind": design.bottleneck.kind,
                    "saturated_s": design.bottleneck.saturated_s,
                    "window_share": design.bottleneck.window_share,
                    "max_share": design.bottleneck.max_share,
                    "text": design.bottleneck.text,
                },
                "warnings": run.results.warnings,
            }
            for i, (run, design) in enumerate(zip(runs, judged.designs, strict=True))
        ],
    }
