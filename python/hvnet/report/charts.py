"""Charts of results as plotly figures (plain dicts), each rendered to an HTML ``<div>``.

The divs load nothing: the page embeds plotly.js once (``plotly_bundle()``),
and each div's script draws its chart with it (`figure_div`). A figure is the
``{"data": traces, "layout": layout}`` that ``Plotly.newPlot`` takes, written
here as dicts rather than through plotly.py's validating objects, which took
seconds for a large cluster. Div ids are derived from the chart's position, so
the same results always give the same HTML.

Time series are drawn at the resolution of the chart (`resample.Grid`): each
point the exact mean of the series' change points over its bin. Every time
chart marks the run's failures and repairs (`marked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import pydantic_core
from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

from hvnet.report.resample import Grid, rounded, significant
from hvnet.results import AdapterSeries, MigrationResult, OperationResult, Results
from hvnet.series import Series
from hvnet.units import format_bitrate

__all__ = [
    "CONFIG",
    "Figure",
    "Mark",
    "adapter_chart",
    "adapter_chart_title",
    "adapter_figure",
    "cpu_figure",
    "cpu_heatmap",
    "failure_marks",
    "figure_div",
    "hosts_timeline_figure",
    "marked",
    "migration_figure",
    "migration_timeline",
    "plotly_bundle",
    "to_json",
]

#: ``{"data": [trace, ...], "layout": {...}}``, as ``Plotly.newPlot`` takes them.
Figure = dict[str, Any]

GBPS = 1e9
SEND, RECEIVE, LINK = "#c05a00", "#2f6fb0", "#7b8794"
GRID = "#e4e7eb"
#: plotly.py's sequential "Blues" (white to dark blue); plotly.js's own "Blues" runs the other way.
BLUES = [
    [i / 8, f"rgb({c})"]
    for i, c in enumerate(
        (
            "247,251,255",
            "222,235,247",
            "198,219,239",
            "158,202,225",
            "107,174,214",
            "66,146,198",
            "33,113,181",
            "8,81,156",
            "8,48,107",
        )
    )
]
FONT = {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 11, "color": "#1f2933"}
AXIS = {"gridcolor": GRID, "linecolor": "#9aa5b1", "zeroline": False, "ticks": "outside", "tickcolor": "#9aa5b1"}

#: Chart options: no plotly logo or toolbar; charts follow the width of their grid cell.
CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": True}


def plotly_bundle() -> str:
    """plotly.js itself, to be inlined once in a page's ``<script>``."""
    return str(get_plotlyjs())


def to_json(value: object) -> str:
    """Compact JSON that is safe inside a ``<script>`` element (no ``</``); written by pydantic-core's
    serializer (Rust), some five times as fast as `json` on a report's series."""
    return pydantic_core.to_json(value).decode("utf-8").replace("</", "<\\/")


def figure_div(div_id: str, figure: Figure) -> str:
    """A div of the figure's height and the script that draws the figure in it."""
    height = figure["layout"]["height"]
    return (
        f'<div id="{div_id}" class="plotly-graph-div" style="height:{height}px; width:100%;"></div>'
        f'<script>Plotly.newPlot("{div_id}", {to_json(figure["data"])}, {to_json(figure["layout"])}, '
        f"{to_json(CONFIG)})</script>"
    )


def _title(text: str) -> dict[str, Any]:
    return {"text": text, "x": 0.01, "xanchor": "left", "font": {"size": 13}}


def _axis(grid: Grid) -> tuple[float, float]:
    """The width of a bin and the end of the last (maybe partial) bin, in seconds. A chart
    places point k at k × width (``x0``/``dx``: no list of times) and ends its axis at the
    end, so that the last bin is drawn over what it holds only."""
    return significant(grid.width_s, 10), significant(grid.end_s, 10)


def _points(series: Series, grid: Grid, end_s: float, scale: float, digits: int = 4) -> list[float]:
    """`series`' exact mean over each bin of `grid`, scaled and rounded to `digits`
    significant digits for a chart."""
    return rounded(grid.means(series, end_s, scale), digits)


def adapter_chart_title(adapter: AdapterSeries) -> str:
    """``"hv1 / nic1 (10 Gbps)"``."""
    return f"{adapter.host} / {adapter.nic} ({format_bitrate(adapter.speed_bps)})"


def adapter_figure(adapter: AdapterSeries, grid: Grid, end_s: float) -> Figure:
    """Task Manager's Ethernet graph for one NIC: send and receive in Gbps over time in seconds,
    the link speed as a dashed line. `grid` is the common time axis, so that every NIC's chart
    shows the same span (a run ended at `end_s`); each point is the exact mean over its bin."""
    width, end = _axis(grid)
    receive = _points(adapter.receive_bps, grid, end_s, 1 / GBPS)
    send = _points(adapter.send_bps, grid, end_s, 1 / GBPS)
    speed = significant(adapter.speed_bps / GBPS)
    hover = "%{y:.2f} Gbps at %{x:g} s"
    line = {"width": 1.6, "shape": "hv"}
    data = [
        {
            "type": "scatter",
            "x0": 0,
            "dx": width,
            "y": receive + receive[-1:],
            "name": "Receive",
            "mode": "lines",
            "line": {"color": RECEIVE, **line},
            "fill": "tozeroy",
            "fillcolor": "rgba(47,111,176,0.12)",
            "hovertemplate": "Receive " + hover + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x0": 0,
            "dx": width,
            "y": send + send[-1:],
            "name": "Send",
            "mode": "lines",
            "line": {"color": SEND, **line},
            "hovertemplate": "Send " + hover + "<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [0, end],
            "y": [speed, speed],
            "name": "Link speed",
            "mode": "lines",
            "line": {"color": LINK, "width": 1.2, "dash": "dash"},
            "hoverinfo": "skip",
        },
    ]
    layout = {
        "title": _title(adapter_chart_title(adapter)),
        "height": 230,
        "margin": {"l": 52, "r": 14, "t": 40, "b": 40},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": FONT,
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.13, "font": {"size": 10}},
        "hovermode": "x unified",
        "xaxis": {"title": {"text": "time (s)", "standoff": 4}, "range": [0, end], **AXIS},
        "yaxis": {"title": {"text": "Gbps", "standoff": 4}, "range": [0, speed * 1.1], "rangemode": "tozero", **AXIS},
    }
    return {"data": data, "layout": layout}


def adapter_chart(adapter: AdapterSeries, grid: Grid, end_s: float, div_id: str) -> str:
    """`adapter_figure` as a div."""
    return figure_div(div_id, adapter_figure(adapter, grid, end_s))


def cpu_figure(title: str, rows: list[tuple[str, Series]], grid: Grid, end_s: float) -> Figure:
    """Processors over time (a host's cores, a VM's vCPUs): a row per (label, busy share), a
    column per bin of `grid` (the exact mean over it), colour = % busy (two significant
    digits: a colour shows no more)."""
    width, end = _axis(grid)
    z = [_points(busy, grid, end_s, 100, 2) if busy.nonzero() else [0] * grid.bins for _, busy in rows]
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x0": significant(width / 2, 10),
        "dx": width,
        "y": [label for label, _ in rows],
        "zmin": 0,
        "zmax": 100,
        "colorscale": BLUES,
        "colorbar": {"title": {"text": "% busy"}, "thickness": 10},
        "hovertemplate": "%{y}: %{z:.0f} % busy at %{x:g} s<extra></extra>",
    }
    layout = {
        "title": _title(title),
        "height": max(160, 26 + 14 * len(rows) + 70),
        "margin": {"l": 64, "r": 14, "t": 40, "b": 40},
        "font": FONT,
        "xaxis": {"title": {"text": "time (s)", "standoff": 4}, "range": [0, end]},
        "yaxis": {"autorange": "reversed"},
    }
    return {"data": [heatmap], "layout": layout}


def cpu_heatmap(title: str, rows: list[tuple[str, Series]], grid: Grid, end_s: float, div_id: str) -> str:
    """`cpu_figure` as a div."""
    return figure_div(div_id, cpu_figure(title, rows, grid, end_s))


QUEUED, PASS, PASS2, BLACKOUT, DOWN, MIGRATING = "#c7ced6", "#2f6fb0", "#6f9fd0", "#c0392b", "#8e6bb8", "#2f6fb0"


class _Bars:
    """Horizontal bars of one kind (one trace, one legend entry): a row, a start, an end each."""

    def __init__(
        self, name: str, color: str, hover: str = "%{y}: %{customdata}<extra></extra>", digits: int = 7
    ) -> None:
        self.name, self.color, self.hover, self.digits = name, color, hover, digits
        self.rows: list[str] = []
        self.starts: list[float] = []
        self.widths: list[float] = []
        self.texts: list[str] = []
        self.colors: list[str] = []

    def add(self, row: str, start: float, end: float, text: str = "", color: str | None = None) -> None:
        self.rows.append(row)
        self.starts.append(significant(start, self.digits))
        self.widths.append(significant(end - start, self.digits))
        self.texts.append(text)
        self.colors.append(color or self.color)

    def trace(self, opacity: float = 1.0) -> dict[str, Any]:
        trace: dict[str, Any] = {
            "type": "bar",
            "orientation": "h",
            "name": self.name,
            "y": self.rows,
            "x": self.widths,
            "base": self.starts,
            "hovertemplate": self.hover,
            "marker": {"color": self.colors if len(set(self.colors)) > 1 else self.color},
        }
        if "customdata" in self.hover:
            trace["customdata"] = self.texts
        if opacity < 1:
            trace["opacity"] = opacity
        return trace


def _timeline_layout(title: str, rows: list[str], row_px: int, left: int) -> dict[str, Any]:
    return {
        "barmode": "overlay",
        "title": {**_title(title)},
        "height": max(200, 110 + row_px * len(rows)),
        "margin": {"l": left, "r": 14, "t": 64, "b": 40},
        "font": FONT,
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        "xaxis": {"title": {"text": "time (s)", "standoff": 4}, "rangemode": "tozero", **AXIS},
        "yaxis": {"categoryorder": "array", "categoryarray": list(reversed(rows)), "automargin": True},
    }


def migration_figure(
    migrations: list[MigrationResult],
    operations: list[OperationResult] | None = None,
    title: str = "Live migrations",
    row_px: int = 34,
) -> Figure:
    """One bar per VM: waiting in the queue (grey), each pre-copy pass (blue,
    alternating shades) and the blackout (red), in seconds; above them, for a
    rolling update, one bar per node while it is down for its patch (purple)."""
    down, queued = _Bars("node down", DOWN), _Bars("queued", QUEUED)
    passes, blackout = _Bars("pre-copy pass", PASS), _Bars("blackout", BLACKOUT)
    rows = []
    for o in operations or []:
        for node in o.nodes:
            if node.down_s is None or node.back_s is None:
                continue
            row = f"{node.node} down for its patch"
            rows.append(row)
            down.add(row, node.down_s, node.back_s, f"down {node.down_s:.1f} s → back {node.back_s:.1f} s")
    for m in migrations:
        row = f"{m.vm} ({m.source} → {m.destination}, {m.option})"
        rows.append(row)
        if m.start_s is not None and m.start_s > m.queued_s:
            queued.add(row, m.queued_s, m.start_s, f"queued {m.start_s - m.queued_s:.1f} s")
        for k, p in enumerate(m.pass_details, start=1):
            text = f"pass {k}: {p.bytes / 2**30:.2f} GiB in {p.end_s - p.start_s:.1f} s"
            passes.add(row, p.start_s, p.end_s, text, PASS if k % 2 else PASS2)
        if m.end_s is not None and m.blackout_s is not None:
            blackout.add(row, m.end_s - m.blackout_s, m.end_s, f"blackout {1000 * m.blackout_s:.0f} ms")
    data = [bars.trace() for bars in (down, queued, passes, blackout) if bars.rows]
    return {"data": data, "layout": _timeline_layout(title, rows, row_px, 260)}


def migration_timeline(
    migrations: list[MigrationResult], div_id: str, operations: list[OperationResult] | None = None
) -> str:
    """`migration_figure` as a div."""
    return figure_div(div_id, migration_figure(migrations, operations))


def hosts_timeline_figure(
    groups: Sequence[tuple[str, list[MigrationResult]]], operations: list[OperationResult] | None = None
) -> Figure:
    """The timeline of a large scenario at a glance: a row per source host, a bar (blue, half
    transparent, so that simultaneous ones show darker) per migration from it, from its start to
    its end, and the host's time down for its patch (purple) on the same row."""
    rows = [host for host, _ in groups]
    down = _Bars("node down", DOWN, "%{y} down from %{base:.0f} s for %{x:.0f} s<extra></extra>")
    moving = _Bars(
        "migrating a VM away", MIGRATING, "%{y}: a migration from %{base:.0f} s for %{x:.0f} s<extra></extra>", 5
    )
    for o in operations or []:
        for node in o.nodes:
            if node.down_s is not None and node.back_s is not None and node.node in rows:
                down.add(node.node, node.down_s, node.back_s)
    for host, migrations in groups:
        for m in migrations:
            if m.start_s is not None:
                moving.add(host, m.start_s, m.end_s if m.end_s is not None else m.start_s)
    data = [bars.trace() for bars in (down,) if bars.rows] + [moving.trace(opacity=0.5)]
    layout = _timeline_layout("Live migrations by source host", rows, 14, 80)
    layout["yaxis"]["title"] = {"text": "source host"}
    return {"data": data, "layout": layout}


#: A failure's mark, and a repair's.
FAILED = "#c62828"
REPAIRED = "#2e7d32"


@dataclass(frozen=True)
class Mark:
    """A failure or a repair, on a time axis."""

    at_s: float
    label: str
    repair: bool


def failure_marks(results: Results) -> list[Mark]:
    """Each failure of the run and its repair, in time order."""
    marks = []
    for f in results.failures:
        marks.append(Mark(f.at_s, f"{f.action} {f.target}", repair=False))
        if f.repaired_s is not None:
            marks.append(Mark(f.repaired_s, f"{f.target} repaired", repair=True))
    return sorted(marks, key=lambda m: m.at_s)


def marked(figure: Figure, marks: Sequence[Mark]) -> Figure:
    """`figure` with a dotted vertical line at each mark (red: a failure, green: a repair) and a
    symbol above it that names it when hovered."""
    if not marks:
        return figure
    layout = dict(figure["layout"])
    line = {"width": 1.2, "dash": "dot"}
    layout["shapes"] = [*layout.get("shapes", [])] + [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": m.at_s,
            "x1": m.at_s,
            "y0": 0,
            "y1": 1,
            "line": {"color": REPAIRED if m.repair else FAILED, **line},
        }
        for m in marks
    ]
    layout["annotations"] = [*layout.get("annotations", [])] + [
        {
            "x": m.at_s,
            "xref": "x",
            "y": 1,
            "yref": "paper",
            "yanchor": "bottom",
            "showarrow": False,
            "text": "▲" if m.repair else "✕",
            "hovertext": escape(f"{m.label} at {m.at_s:g} s"),
            "font": {"size": 10, "color": REPAIRED if m.repair else FAILED},
        }
        for m in marks
    ]
    return {"data": figure["data"], "layout": layout}
