"""Charts of results as plotly figures, each rendered to an HTML ``<div>``.

The divs load nothing: the page embeds plotly.js once (``plotly_bundle()``),
and each div's script draws its chart with it. Div ids are derived from the
chart's position, so the same results always give the same HTML.
"""

from __future__ import annotations

import plotly.graph_objects as go  # type: ignore[import-untyped]
from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

from hvnet.results import AdapterSeries, MigrationResult, OperationResult
from hvnet.units import format_bitrate

__all__ = ["adapter_chart", "adapter_chart_title", "cpu_heatmap", "migration_timeline", "plotly_bundle"]

GBPS = 1e9
SEND, RECEIVE, LINK = "#c05a00", "#2f6fb0", "#7b8794"
GRID = "#e4e7eb"

#: Chart options: no plotly logo or toolbar; charts follow the width of their grid cell.
CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": True}


def plotly_bundle() -> str:
    """plotly.js itself, to be inlined once in a page's ``<script>``."""
    return str(get_plotlyjs())


def adapter_chart_title(adapter: AdapterSeries) -> str:
    """``"hv1 / nic1 (10 Gbps)"``."""
    return f"{adapter.host} / {adapter.nic} ({format_bitrate(adapter.speed_bps)})"


def _steps(values: list[float], step_s: float, bins: int) -> tuple[list[float], list[float]]:
    """A step line through per-bin means: bin k holds from k*step to (k+1)*step."""
    padded = [v / GBPS for v in values] + [0.0] * (bins - len(values))
    return [k * step_s for k in range(bins + 1)], padded + padded[-1:]


def adapter_chart(adapter: AdapterSeries, step_s: float, bins: int, div_id: str) -> str:
    """Task Manager's Ethernet graph for one NIC: send and receive in Gbps over time in seconds,
    the link speed as a dashed line. `bins` is the common length of the time axis (in steps),
    so that every NIC's chart shows the same span."""
    bins = max(bins, 1)
    times, receive = _steps(adapter.receive_bps, step_s, bins)
    _, send = _steps(adapter.send_bps, step_s, bins)
    speed = adapter.speed_bps / GBPS
    hover = "%{y:.2f} Gbps at %{x:g} s"
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=times, y=receive, name="Receive", mode="lines", line={"color": RECEIVE, "width": 1.6, "shape": "hv"},
            fill="tozeroy", fillcolor="rgba(47,111,176,0.12)", hovertemplate="Receive " + hover + "<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=times, y=send, name="Send", mode="lines", line={"color": SEND, "width": 1.6, "shape": "hv"},
            hovertemplate="Send " + hover + "<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=[0, times[-1]], y=[speed, speed], name="Link speed", mode="lines",
            line={"color": LINK, "width": 1.2, "dash": "dash"}, hoverinfo="skip",
        )
    )
    figure.update_layout(
        template="none",
        title={"text": adapter_chart_title(adapter), "x": 0.01, "xanchor": "left", "font": {"size": 13}},
        height=230,
        margin={"l": 52, "r": 14, "t": 40, "b": 40},
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        font={"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 11, "color": "#1f2933"},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.13, "font": {"size": 10}},
        hovermode="x unified",
    )
    axis = {"gridcolor": GRID, "linecolor": "#9aa5b1", "zeroline": False, "ticks": "outside", "tickcolor": "#9aa5b1"}
    figure.update_xaxes(title={"text": "time (s)", "standoff": 4}, range=[0, times[-1]], **axis)
    figure.update_yaxes(title={"text": "Gbps", "standoff": 4}, range=[0, speed * 1.1], rangemode="tozero", **axis)
    if not adapter.send_bps and not adapter.receive_bps:
        figure.add_annotation(
            text="no traffic (not cabled, or nothing happened)", showarrow=False,
            xref="paper", yref="paper", x=0.5, y=0.5, font={"color": "#7b8794"},
        )
    return str(figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=CONFIG))



def cpu_heatmap(title: str, rows: list[tuple[str, list[float]]], step_s: float, div_id: str) -> str:
    """Processors over time (a host's cores, a VM's vCPUs): a row per (label, busy share per
    step), a column per step, colour = % busy."""
    bins = max((len(busy) for _, busy in rows), default=0)
    z = [[100 * b for b in busy] + [0.0] * (bins - len(busy)) for _, busy in rows]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=[(k + 0.5) * step_s for k in range(bins)],
            y=[label for label, _ in rows],
            zmin=0,
            zmax=100,
            colorscale="Blues",
            colorbar={"title": {"text": "% busy"}, "thickness": 10},
            hovertemplate="%{y}: %{z:.0f} % busy at %{x:g} s<extra></extra>",
        )
    )
    figure.update_layout(
        template="none",
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 13}},
        height=max(160, 26 + 14 * len(rows) + 70),
        margin={"l": 64, "r": 14, "t": 40, "b": 40},
        font={"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 11, "color": "#1f2933"},
    )
    figure.update_xaxes(title={"text": "time (s)", "standoff": 4})
    figure.update_yaxes(autorange="reversed")
    return str(figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=CONFIG))


QUEUED, PASS, BLACKOUT, DOWN = "#c7ced6", "#2f6fb0", "#c0392b", "#8e6bb8"


def migration_timeline(
    migrations: list[MigrationResult], div_id: str, operations: list[OperationResult] | None = None
) -> str:
    """One bar per VM: waiting in the queue (grey), each pre-copy pass (blue,
    alternating shades) and the blackout (red), in seconds; above them, for a
    rolling update, one bar per node while it is down for its patch (purple)."""
    figure = go.Figure()
    shown: set[str] = set()

    def bar(row: str, start: float, end: float, name: str, color: str, text: str) -> None:
        figure.add_trace(
            go.Bar(
                y=[row], x=[end - start], base=[start], orientation="h", name=name, marker={"color": color},
                showlegend=name not in shown, legendgroup=name, hovertemplate=f"{row}: {text}<extra></extra>",
            )
        )
        shown.add(name)

    rows = []
    for o in operations or []:
        for node in o.nodes:
            if node.down_s is None or node.back_s is None:
                continue
            row = f"{node.node} down for its patch"
            rows.append(row)
            bar(row, node.down_s, node.back_s, "node down", DOWN, f"down {node.down_s:.1f} s → back {node.back_s:.1f} s")
    for m in migrations:
        row = f"{m.vm} ({m.source} → {m.destination}, {m.option})"
        rows.append(row)
        if m.start_s is not None and m.start_s > m.queued_s:
            bar(row, m.queued_s, m.start_s, "queued", QUEUED, f"queued {m.start_s - m.queued_s:.1f} s")
        for k, p in enumerate(m.pass_details, start=1):
            shade = PASS if k % 2 else "#6f9fd0"
            bar(row, p.start_s, p.end_s, "pre-copy pass", shade, f"pass {k}: {p.bytes / 2**30:.2f} GiB in {p.end_s - p.start_s:.1f} s")
        if m.end_s is not None and m.blackout_ms is not None:
            start = m.end_s - m.blackout_ms / 1000
            bar(row, start, m.end_s, "blackout", BLACKOUT, f"blackout {m.blackout_ms:.0f} ms")
    figure.update_layout(
        template="none",
        barmode="overlay",
        title={"text": "Live migrations", "x": 0.01, "xanchor": "left", "font": {"size": 13}},
        height=max(200, 110 + 34 * len(rows)),
        margin={"l": 260, "r": 14, "t": 64, "b": 40},
        font={"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 11, "color": "#1f2933"},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    )
    figure.update_xaxes(title={"text": "time (s)", "standoff": 4}, rangemode="tozero")
    figure.update_yaxes(categoryorder="array", categoryarray=list(reversed(rows)))
    return str(figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=CONFIG))
