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

from rich.table import Table
from rich.text import Text

from hvnet._version import __version__
from hvnet.errors import Problem, ScenarioError
from hvnet.results import Results
from hvnet.units import format_bitrate
from hvnet.variants import METRICS, Metric, Metrics, Variant, Variants, best, load_variants, show_axis_value

__all__ = [
    "BEST_MARK",
    "Run",
    "comparison_document",
    "comparison_tables",
    "format_metric",
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


def run_comparison(
    files: Sequence[str | os.PathLike[str]], names: Sequence[str] | None = None
) -> list[Run]:
    """Simulates every variant of every file, in order; ScenarioError lists every problem of all of them.

    `names` are how the comparison calls the files (default: their paths as given)."""
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
            except ScenarioError as error:
                problems.extend(error.problems)
                continue
            parts = [design.filename] if len(files) > 1 or not design.axes else []
            label = ": ".join(parts + ([variant.name] if design.axes else []))
            values = {axis.name: value for axis, value in zip(design.axes, variant.values)}
            runs.append(Run(label, design.filename, variant, values, results, Metrics.of(results)))
    if problems:
        raise ScenarioError(dict.fromkeys(problems))
    return runs


def format_metric(metric: Metric, value: float | None) -> str:
    """A metric's value as the comparison shows it: ``10.53 s``, ``9.41 Gbps``, ``never``."""
    if metric.name == "stalled":
        return str(value)
    if metric.name == "peak_gbps":
        return format_bitrate(float(f"{(value or 0.0) * 1e9:.3g}"))
    if value is None:
        return "never" if metric.name in ("end_s", "blackout_s") else "forever"
    if metric.name in ("blackholed_s", "blackout_s") and value == 0:
        return "-"
    if metric.name == "blackout_s":
        return f"{value * 1e3:.0f} ms"
    if metric.name == "cpu_core_s":
        return f"{value:.2f} core-s"
    return f"{value:.2f} s"


#: Metrics of mishaps and events a comparison may not have: left out where every variant scores 0.
_OPTIONAL = ("stalled", "blackholed_s", "blackout_s")


def shown_metrics(runs: Sequence[Run]) -> list[Metric]:
    """The metrics a table shows: all but stalls, black holes and blackouts that no variant had."""
    return [m for m in METRICS if m.name not in _OPTIONAL or any(getattr(r.metrics, m.name) != 0 for r in runs)]


def legend(metrics: Sequence[Metric] = METRICS) -> str:
    """What the mark means, under a table of these metrics."""
    ranked = ", ".join(metric.best for metric in metrics)
    return (
        f"{BEST_MARK} marks the best: {ranked}, among the variants whose traffic all completed; "
        "nothing is marked where all variants agree"
    )


def comparison_tables(runs: Sequence[Run]) -> list[Table]:
    """One row per run, one column per metric, each metric's best marked; then each run's warnings.

    Variants whose files share their axes get a column per axis (and one of files, if
    there are several); otherwise a column of labels."""
    marked = best([run.metrics for run in runs])
    table = Table(
        title=f"comparison of {len(runs)} variant{'s' * (len(runs) != 1)}",
        title_justify="left",
        caption_justify="left",
    )
    shared = bool(runs) and bool(runs[0].values) and all(list(run.values) == list(runs[0].values) for run in runs)
    axes = list(runs[0].values) if shared else []
    several = len({run.file for run in runs}) > 1
    for name in (["file"] * several + axes) if axes else ["variant"]:
        table.add_column(name)
    metrics = shown_metrics(runs)
    table.caption = legend(metrics)
    for metric in metrics:
        table.add_column(metric.heading, justify="right")
    for i, run in enumerate(runs):
        names = [run.file] * several + [show_axis_value(run.values[name]) for name in axes] if axes else [run.label]
        cells: list[str | Text] = list(names)
        for metric in metrics:
            text = format_metric(metric, getattr(run.metrics, metric.name))
            if i in marked[metric.name]:
                cells.append(Text(f"{text} {BEST_MARK}", style="bold green"))
            else:
                cells.append(Text(f"{text}  "))
        table.add_row(*cells, style="red" if run.metrics.stalled else None)
    warnings = Table.grid()
    for run in runs:
        for warning in run.results.warnings:
            warnings.add_row(f"warning: {run.label}: {warning}", style="yellow")
    return [table, warnings] if warnings.row_count else [table]


def comparison_document(runs: Sequence[Run]) -> dict[str, object]:
    """The comparison as JSON (docs/sweeps.md)."""
    marked = best([run.metrics for run in runs])
    return {
        "hvnet": __version__,
        "better": {metric.name: metric.better for metric in METRICS},
        "variants": [
            {
                "label": run.label,
                "file": run.file,
                "scenario": run.results.scenario,
                "variant": run.variant.name,
                "values": run.values,
                "metrics": run.metrics.as_dict(),
                "best": [metric.name for metric in METRICS if i in marked[metric.name]],
                "warnings": run.results.warnings,
            }
            for i, run in enumerate(runs)
        ],
    }
