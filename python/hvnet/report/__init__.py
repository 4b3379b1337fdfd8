"""The self-contained HTML report of a simulation (`hvnet simulate FILE --report OUT.html`).

    from hvnet.report import write_report
    write_report(results, scenario, "report.html")

One HTML file that loads nothing (docs/report.md): the summary, the design
drawn (`diagram`), one Task-Manager-style chart per NIC (`charts`) and the
traffic table, each a section of `sections`, laid out by `page`. A comparison
of variants (`hvnet compare ... --report`) has its own page (`comparison`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hvnet.report.embed import time_labels_script
from hvnet.report.failures import failures_section
from hvnet.report.migrations import migrations_section
from hvnet.report.page import page
from hvnet.report.resample import Grid
from hvnet.report.sections import (
    NOT_SIMULATED,
    adapters_section,
    cpu_section,
    design_section,
    summary_section,
    traffic_section,
    uncertainty_section,
    utilisation_section,
)
from hvnet.results import Results

if TYPE_CHECKING:
    from hvnet.model import Scenario
    from hvnet.report.comparison import render_comparison, write_comparison

__all__ = ["render_comparison", "render_report", "write_comparison", "write_report"]


def __getattr__(name: str) -> Any:
    """The comparison's page (`comparison`), loaded when asked for: it runs variants, which a
    single run's report does not need."""
    if name in ("render_comparison", "write_comparison"):
        from hvnet.report import comparison

        return getattr(comparison, name)
    raise AttributeError(f"module 'hvnet.report' has no attribute {name!r}")


def render_report(results: Results, scenario: Scenario, resolution_s: float | None = None) -> str:
    """The report as one HTML document; its charts' bins are a round multiple of
    `resolution_s` (default 1 s) that fits a chart's width (`resample.Grid`)."""
    grid = Grid.fit(results.end_s, resolution_s)
    optional = [migrations_section(results), utilisation_section(results), cpu_section(results, grid=grid)]
    sections = [
        summary_section(results, scenario, grid),
        design_section(scenario),
        *[section for section in optional[:1] if section],
        adapters_section(results, grid=grid),
        *[section for section in optional[1:] if section],
        traffic_section(results),
        *[section for section in [failures_section(results)] if section],
        *[section for section in [uncertainty_section(results)] if section],
    ]
    return page(results.scenario, scenario.description, sections, NOT_SIMULATED, time_labels_script(grid))


def write_report(results: Results, scenario: Scenario, path: str | Path, resolution_s: float | None = None) -> None:
    """Writes the report to `path` (UTF-8), replacing the file if there is one."""
    Path(path).write_text(render_report(results, scenario, resolution_s), encoding="utf-8")
