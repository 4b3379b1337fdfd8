"""Charts of results as plotly figures (plain dicts), each rendered to an HTML ``<div>``.

The divs load nothing: the page embeds plotly.js once (`library`), and each
div's script draws its chart with it once the page has unpacked it
(`figure_div`). A figure is the
``{"data": traces, "layout": layout}`` that ``Plotly.newPlot`` takes, written
here as dicts rather than through plotly.py's validating objects, which took
seconds for a large cluster. Div ids are derived from the chart's position, so
the same results always give the same HTML.

Time series are drawn at the resolution of the chart (`resample.Grid`): each
point the exact mean of the series' change points over its bin, and, where a
point is more than one resolution, the peak over buckets of a few bins
(`Grid.peaks`) as a lighter area behind it, so that a short burst in a long run
stands at its height. Every time chart marks the run's failures and repairs
(`marked`).

A time axis reads in the unit of the run's length (`TimeAxis`): seconds up to
2 minutes, minutes up to 2 hours, hours past that ("50k s" would not read).
Every time a chart's hover shows is in `human_duration`'s words ("1 h 05 min"):
bars carry their text; a point of a series reads its bin's start, through the
axis's ``labelalias``: one map per grid (`time_labels`), once in the page, which
the page's runtime hands to each chart that names it in ``layout.meta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import pydantic_core

from hvnet.report.resample import Grid, rounded, significant
from hvnet.results import AdapterSeries, Results
from hvnet.series import Series
from hvnet.units import format_bitrate, human_duration

__all__ = [
    "CONFIG",
    "Figure",
    "Mark",
    "TimeAxis",
    "adapter_chart",
    "adapter_chart_title",
    "adapter_figure",
    "chart_title",
    "cpu_figure",
    "cpu_heatmap",
    "failure_marks",
    "figure_div",
    "marked",
    "time_labels",
    "time_labels_id",
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


def to_json(value: object) -> str:
    """Compact JSON that is safe inside a ``<script>`` element (no ``</``); written by pydantic-core's
    serializer (Rust), some five times as fast as `json` on a report's series."""
    return pydantic_core.to_json(value).decode("utf-8").replace("</", "<\\/")


def figure_div(div_id: str, figure: Figure) -> str:
    """A div of the figure's height and the script that draws the figure in it, once the page has
    unpacked plotly.js (``hvnet.plotly``, `embed.RUNTIME`)."""
    height = figure["layout"]["height"]
    return (
        f'<div id="{div_id}" class="plotly-graph-div" style="height:{height}px; width:100%;"></div>'
        f'<script>hvnet.plotly.then(() => Plotly.newPlot("{div_id}", {to_json(figure["data"])}, '
        f"{to_json(figure['layout'])}, {to_json(CONFIG)}))</script>"
    )


def chart_title(text: str) -> dict[str, Any]:
    return {"text": text, "x": 0.01, "xanchor": "left", "font": {"size": 13}}


@dataclass(frozen=True)
class TimeAxis:
    """A chart's time axis in the unit a person reads a run of its length in: seconds up to
    `MINUTES_FROM` (2 min), minutes up to `HOURS_FROM` (2 h), hours past that."""

    unit: str
    seconds: float

    MINUTES_FROM = 120.0
    HOURS_FROM = 7200.0

    @classmethod
    def of(cls, end_s: float) -> TimeAxis:
        """The axis of a run, or of an axis, that ends at `end_s`."""
        if end_s > cls.HOURS_FROM:
            return cls("h", 3600.0)
        if end_s > cls.MINUTES_FROM:
            return cls("min", 60.0)
        return cls("s", 1.0)

    def x(self, seconds: float) -> float:
        """A time on this axis."""
        return significant(seconds / self.seconds, 10)

    def layout(self) -> dict[str, Any]:
        """The axis's title, and its hover format (the keys of `aliases`)."""
        return {"title": {"text": f"time ({self.unit})", "standoff": 4}, "hoverformat": _HOVER_FORMAT}

    def aliases(self, x0: float, dx: float, labels: Sequence[str]) -> dict[str, str]:
        """``labelalias`` for points at `x0` + k × `dx` on this axis (as plotly places them: the
        same sum, so the same number): their hover label as the axis writes it, to `labels`[k]."""
        return {_hover_key(x0 + k * dx): label for k, label in enumerate(labels)}


#: How a time axis writes a time in a hover label (d3-format), before ``labelalias`` turns it into
#: words; `_hover_key` writes it alike. Six decimals: apart for points a pixel apart, and never
#: a tick's label ("5", "2.5"), which must stay a number of the axis's unit.
_HOVER_FORMAT = ".6f"


def _hover_key(value: float) -> str:
    """`value` as plotly's ``.6f`` writes it."""
    return f"{value:.6f}"


def time_labels_id(grid: Grid) -> str:
    """The id of the page's element that holds `time_labels(grid)`."""
    return f"time-labels-{grid.bins}x{grid.factor}x{significant(grid.resolution_s, 10)}"


def time_labels(grid: Grid) -> dict[str, str]:
    """``labelalias`` of every chart on `grid`: a NIC chart's points and buckets of peaks read
    their start, a heatmap's columns (centred on their bins) their bin's start."""
    axis, width, _ = _grid_axis(grid)
    starts = [human_duration(k * grid.width_s) for k in range(grid.bins + 1)]
    labels = axis.aliases(0, width, starts)
    if grid.shows_peaks:
        buckets = -(-grid.bins // grid.peak_bins) + 1
        peaks = [human_duration(k * grid.width_s * grid.peak_bins) for k in range(buckets)]
        labels |= axis.aliases(0, axis.x(grid.width_s * grid.peak_bins), peaks)
    return labels | axis.aliases(axis.x(grid.width_s / 2), width, starts[:-1])


def _grid_layout(grid: Grid) -> dict[str, Any]:
    """What a chart on `grid` adds to its layout: the name of its hover labels (`time_labels`)."""
    return {"meta": {"time_labels": time_labels_id(grid)}}


def _grid_axis(grid: Grid) -> tuple[TimeAxis, float, float]:
    """The axis of `grid`, the width of a bin and the end of the last (maybe partial) bin on it. A
    chart places point k at k × width (``x0``/``dx``: no list of times) and ends its axis at the
    end, so that the last bin is drawn over what it holds only."""
    axis = TimeAxis.of(grid.end_s)
    return axis, axis.x(grid.width_s), axis.x(grid.end_s)


def _points(series: Series, grid: Grid, end_s: float, scale: float, digits: int = 4) -> list[float]:
    """`series`' exact mean over each bin of `grid`, scaled and rounded to `digits`
    significant digits for a chart."""
    return rounded(grid.means(series, end_s, scale), digits)


def adapter_chart_title(adapter: AdapterSeries) -> str:
    """``"hv1 / nic1 (10 Gbps)"``."""
    return f"{adapter.host} / {adapter.nic} ({format_bitrate(adapter.speed_bps)})"


def _peak_traces(adapter: AdapterSeries, grid: Grid, end_s: float, axis: TimeAxis) -> list[dict[str, Any]]:
    """Where a point is a mean over more than one resolution: the peak of receive and of send over
    each bucket of bins (`Grid.peaks`), as lighter areas in the legend entries of their means."""
    if not grid.shows_peaks:
        return []
    width = axis.x(grid.width_s * grid.peak_bins)
    traces = []
    for name, series, colour in (
        ("Receive", adapter.receive_bps, "47,111,176"),
        ("Send", adapter.send_bps, "192,90,0"),
    ):
        peaks = rounded(grid.peaks(series, end_s, 1 / GBPS))
        traces.append(
            {
                "type": "scatter",
                "x0": 0,
                "dx": width,
                "y": peaks + peaks[-1:],
                "name": f"{name}, peak",
                "legendgroup": name,
                "showlegend": False,
                "mode": "lines",
                "line": {"width": 0, "shape": "hv", "color": f"rgb({colour})"},
                "fill": "tozeroy",
                "fillcolor": f"rgba({colour},0.22)",
                "hovertemplate": f"{name} peak %{{y:.2f}} Gbps<extra></extra>",
            }
        )
    return traces


def adapter_figure(adapter: AdapterSeries, grid: Grid, end_s: float) -> Figure:
    """Task Manager's Ethernet graph for one NIC: send and receive in Gbps over time, the link
    speed as a dashed line. `grid` is the common time axis, so that every NIC's chart shows the
    same span (a run ended at `end_s`); each point is the exact mean over its bin, and in a long
    run a lighter area behind reaches the peak over a few bins (`_peak_traces`)."""
    axis, width, end = _grid_axis(grid)
    receive = _points(adapter.receive_bps, grid, end_s, 1 / GBPS)
    send = _points(adapter.send_bps, grid, end_s, 1 / GBPS)
    speed = significant(adapter.speed_bps / GBPS)
    hover = "%{y:.2f} Gbps"
    line = {"width": 1.6, "shape": "hv"}
    data = [
        *_peak_traces(adapter, grid, end_s, axis),
        {
            "type": "scatter",
            "x0": 0,
            "dx": width,
            "y": receive + receive[-1:],
            "name": "Receive",
            "legendgroup": "Receive",
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
            "legendgroup": "Send",
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
        "title": chart_title(adapter_chart_title(adapter)),
        "height": 230,
        "margin": {"l": 52, "r": 14, "t": 40, "b": 40},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": FONT,
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.13, "font": {"size": 10}},
        "hovermode": "x unified",
        "xaxis": {**axis.layout(), "range": [0, end], **AXIS},
        "yaxis": {"title": {"text": "Gbps", "standoff": 4}, "range": [0, speed * 1.1], "rangemode": "tozero", **AXIS},
        **_grid_layout(grid),
    }
    return {"data": data, "layout": layout}


def adapter_chart(adapter: AdapterSeries, grid: Grid, end_s: float, div_id: str) -> str:
    """`adapter_figure` as a div."""
    return figure_div(div_id, adapter_figure(adapter, grid, end_s))


def cpu_figure(title: str, rows: list[tuple[str, Series]], grid: Grid, end_s: float) -> Figure:
    """Processors over time (a host's cores, a VM's vCPUs): a row per (label, busy share), a
    column per bin of `grid` (the exact mean over it), colour = % busy (two significant
    digits: a colour shows no more)."""
    axis, width, end = _grid_axis(grid)
    z = [_points(busy, grid, end_s, 100, 2) if busy.nonzero() else [0] * grid.bins for _, busy in rows]
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x0": axis.x(grid.width_s / 2),  # a column centred on its bin; it reads its bin's start
        "dx": width,
        "y": [label for label, _ in rows],
        "zmin": 0,
        "zmax": 100,
        "colorscale": BLUES,
        "colorbar": {"title": {"text": "% busy"}, "thickness": 10},
        "hovertemplate": "%{y}: %{z:.0f} % busy at %{x}<extra></extra>",
    }
    layout = {
        "title": chart_title(title),
        "height": max(160, 26 + 14 * len(rows) + 70),
        "margin": {"l": 64, "r": 14, "t": 40, "b": 40},
        "font": FONT,
        "xaxis": {**axis.layout(), "range": [0, end]},
        "yaxis": {"autorange": "reversed"},
        **_grid_layout(grid),
    }
    return {"data": [heatmap], "layout": layout}


def cpu_heatmap(title: str, rows: list[tuple[str, Series]], grid: Grid, end_s: float, div_id: str) -> str:
    """`cpu_figure` as a div."""
    return figure_div(div_id, cpu_figure(title, rows, grid, end_s))


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


def marked(figure: Figure, marks: Sequence[Mark], axis: TimeAxis) -> Figure:
    """`figure` (on `axis`) with a dotted vertical line at each mark (red: a failure, green: a
    repair) and a symbol above it that names it when hovered."""
    if not marks:
        return figure
    layout = dict(figure["layout"])
    line = {"width": 1.2, "dash": "dot"}
    layout["shapes"] = [*layout.get("shapes", [])] + [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": axis.x(m.at_s),
            "x1": axis.x(m.at_s),
            "y0": 0,
            "y1": 1,
            "line": {"color": REPAIRED if m.repair else FAILED, **line},
        }
        for m in marks
    ]
    layout["annotations"] = [*layout.get("annotations", [])] + [
        {
            "x": axis.x(m.at_s),
            "xref": "x",
            "y": 1,
            "yref": "paper",
            "yanchor": "bottom",
            "showarrow": False,
            "text": "▲" if m.repair else "✕",
            "hovertext": escape(f"{m.label} at {human_duration(m.at_s)}"),
            "font": {"size": 10, "color": REPAIRED if m.repair else FAILED},
        }
        for m in marks
    ]
    return {"data": figure["data"], "layout": layout}
