"""The charts of `hvnet explain --report`, as plotly figures (plain dicts, drawn by `report.charts.figure_div`).

Per test:

- **throughput over time**: the measurement (its intervals when the tool reports
  them, as iperf3 does; otherwise its mean over the run, drawn flat and named so)
  beside the prediction (the receiving NICs' line rate from the recorded run,
  scaled to payload: `bottleneck.Chain.payload_bps`);
- **the bottleneck's use**: each resource of the stages that hold the test, and the
  fullest of the others, in per cent of its capacity over time;
- **per thread**: each thread's measured rate beside the predicted one.

Series are drawn on a `report.resample.Grid` (the exact mean over each bin) of
bins of about 0.1 s that end exactly at the test's end (at most 800).
"""

from __future__ import annotations

from typing import Any

from hvnet.explain.bottleneck import Chain, Use
from hvnet.explain.explain import TestExplanation
from hvnet.report.charts import AXIS, FONT, LINK, RECEIVE, SEND, Figure
from hvnet.report.resample import MAX_POINTS, Grid, rounded

__all__ = ["BOTTLENECK_TRACES", "bottleneck_figure", "thread_figure", "throughput_figure"]

#: The most resources the bottleneck's chart draws: those that hold the test first.
BOTTLENECK_TRACES = 8
#: The finest step of a chart's time axis.
STEP_S = 0.1
_COLOURS = ("#c0392b", "#8e44ad", "#d35400", "#16a085", "#2f6fb0", "#7f8c8d", "#27ae60", "#b7950b")


def _grid(seconds: float) -> Grid:
    """Bins of about STEP_S that end at the test's end, at most MAX_POINTS."""
    bins = min(MAX_POINTS, max(1, round(seconds / STEP_S)))
    return Grid(seconds / bins, 1, seconds, bins)


def _layout(title: str, y_title: str, height: int = 260, **more: Any) -> dict[str, Any]:
    return {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 13}},
        "height": height,
        "margin": {"l": 56, "r": 14, "t": 40, "b": 40},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": FONT,
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.16, "font": {"size": 10}},
        "yaxis": {"title": {"text": y_title, "standoff": 4}, "rangemode": "tozero", **AXIS},
        **more,
    }


def _time_axis(grid: Grid) -> dict[str, Any]:
    return {"xaxis": {"title": {"text": "time (s)", "standoff": 4}, "range": [0, grid.end_s], **AXIS}}


def throughput_figure(result: TestExplanation) -> tuple[Figure, str]:
    """Measured beside predicted throughput (Gbps) over the test; and a caption saying what was drawn."""
    seconds = result.test.seconds
    grid = _grid(seconds)
    measured: dict[str, Any]
    if result.measured_intervals:
        xs = [x for start, end, _ in result.measured_intervals for x in (start, end)]
        ys = [bps / 1e9 for *_, bps in result.measured_intervals for _ in range(2)]
        measured = {"x": xs, "y": rounded(ys), "name": "measured (per interval)"}
        caption = "Measured: the tool's own intervals."
    else:
        measured = {"x": [0, seconds], "y": rounded([result.throughput.measured / 1e9] * 2), "name": "measured (mean)"}
        caption = "Measured: the file gives totals only, so its mean over the run is drawn flat."
    chain = result.chain
    if chain is not None and chain.payload_bps:
        sums = [sum(bins) for bins in zip(*(grid.means(s, seconds, 1e-9) for s in chain.payload_bps))]
        predicted = {"x0": grid.width_s / 2, "dx": grid.width_s, "y": rounded(sums)}
        caption += " Predicted: the receiving NICs' line rate in the simulated test, scaled to payload."
    else:
        predicted = {"x": [0, seconds], "y": rounded([result.throughput.predicted / 1e9] * 2)}
        caption += " Predicted: the prediction's mean (the test never reaches a NIC)."
    data = [
        {"type": "scatter", "mode": "lines", "line": {"color": SEND, "width": 2}, **measured},
        {
            "type": "scatter",
            "mode": "lines",
            "name": "predicted",
            "line": {"color": RECEIVE, "width": 2, "dash": "dot"},
            **predicted,
        },
    ]
    layout = _layout("throughput over time: measured beside predicted", "Gbps", **_time_axis(grid))
    return {"data": data, "layout": layout}, caption


def _drawn(chain: Chain) -> list[Use]:
    """The resources that hold the test, then the fullest of the others, at most BOTTLENECK_TRACES."""
    holding = [u for u in chain.uses if u.stage in chain.holding and u.full_s > 0]
    others = sorted((u for u in chain.uses if u not in holding), key=lambda u: -u.mean_share)
    return (holding + others)[:BOTTLENECK_TRACES]


def bottleneck_figure(chain: Chain) -> Figure:
    """Each drawn resource's use in per cent of its capacity over the test; those that hold it solid."""
    grid = _grid(chain.seconds)
    data = []
    for k, use in enumerate(_drawn(chain)):
        holds = use.stage in chain.holding and use.full_s > 0
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{use.resource} ({use.stage})",
                "x0": grid.width_s / 2,
                "dx": grid.width_s,
                "y": rounded(grid.means(use.share, chain.seconds, 100.0), 3),
                "line": {"color": _COLOURS[k % len(_COLOURS)], "width": 2.4 if holds else 1.4}
                | ({} if holds else {"dash": "dot"}),
            }
        )
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "full",
            "x": [0, grid.end_s],
            "y": [100, 100],
            "line": {"color": LINK, "width": 1, "dash": "dash"},
            "hoverinfo": "skip",
        }
    )
    layout = _layout(
        "the bottleneck's use: the resources that hold the test (solid) and the fullest others",
        "% of capacity",
        height=300,
        **_time_axis(grid),
    )
    layout["yaxis"]["range"] = [0, 105]
    layout["legend"] = {"orientation": "v", "x": 1.01, "xanchor": "left", "y": 1, "font": {"size": 10}}
    layout["margin"] = {"l": 56, "r": 220, "t": 40, "b": 40}
    return {"data": data, "layout": layout}


def thread_figure(result: TestExplanation) -> Figure | None:
    """Each thread's measured rate beside the predicted one (Gbps); None when the file has no threads."""
    measured = result.measured_thread_bps
    if len(measured) < 2 or result.chain is None:
        return None
    predicted = [0.0] * result.test.threads
    for group in result.chain.groups:
        for thread, bps in zip(group.threads, group.rate_bps):
            predicted[thread] = bps
    names = [f"thread {k}" for k in range(max(len(measured), len(predicted)))]
    data = [
        {
            "type": "bar",
            "name": "measured",
            "x": names,
            "y": rounded([b / 1e9 for b in measured]),
            "marker": {"color": SEND},
        },
        {
            "type": "bar",
            "name": "predicted",
            "x": names,
            "y": rounded([b / 1e9 for b in predicted]),
            "marker": {"color": RECEIVE},
        },
    ]
    return {"data": data, "layout": _layout("per thread: measured beside predicted", "Gbps", barmode="group")}
