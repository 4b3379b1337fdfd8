"""The report's live migrations: a timeline chart and, per source host, a group with its migrations' table
(opened on demand past a size, drawn from data packed in the page)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from hvnet.report.charts import AXIS, FONT, Figure, TimeAxis, chart_title, failure_marks, figure_div, marked
from hvnet.report.embed import data_script
from hvnet.report.resample import significant
from hvnet.report.sections import Section, html_table
from hvnet.results import MigrationResult, OperationResult, Results
from hvnet.units import format_bytes, human_duration
from hvnet.words import counted

__all__ = ["GROUP_HOSTS", "GROUP_MIGRATIONS", "migrations_section"]

#: A timeline of more source hosts or more migrations than this is drawn per host, each host's
#: migrations in a group that opens on demand.
GROUP_HOSTS = 10
GROUP_MIGRATIONS = 50

QUEUED, PASS, PASS2, BLACKOUT, DOWN, MIGRATING = "#c7ced6", "#2f6fb0", "#6f9fd0", "#c0392b", "#8e6bb8", "#2f6fb0"


class _Bars:
    """Horizontal bars of one kind (one trace, one legend entry): a row, a start, an end each, on
    a time axis; hovered, a bar reads its text."""

    def __init__(self, name: str, color: str, axis: TimeAxis, digits: int = 7) -> None:
        self.name, self.color, self.axis, self.digits = name, color, axis, digits
        self.rows: list[str] = []
        self.starts: list[float] = []
        self.widths: list[float] = []
        self.texts: list[str] = []
        self.colors: list[str] = []

    def add(self, row: str, start: float, end: float, text: str, color: str | None = None) -> None:
        self.rows.append(row)
        self.starts.append(significant(start / self.axis.seconds, self.digits))
        self.widths.append(significant((end - start) / self.axis.seconds, self.digits))
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
            "customdata": self.texts,
            "hovertemplate": "%{y}: %{customdata}<extra></extra>",
            "marker": {"color": self.colors if len(set(self.colors)) > 1 else self.color},
        }
        if opacity < 1:
            trace["opacity"] = opacity
        return trace


def _timeline_layout(title: str, rows: list[str], row_px: int, left: int, axis: TimeAxis) -> dict[str, Any]:
    return {
        "barmode": "overlay",
        "title": {**chart_title(title)},
        "height": max(200, 110 + row_px * len(rows)),
        "margin": {"l": left, "r": 14, "t": 64, "b": 40},
        "font": FONT,
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        "xaxis": {**axis.layout(), "rangemode": "tozero", **AXIS},
        "yaxis": {"categoryorder": "array", "categoryarray": list(reversed(rows)), "automargin": True},
    }


def _last(migrations: list[MigrationResult], operations: list[OperationResult] | None) -> float:
    """When the last thing a timeline draws ends: its axis's length."""
    ends = [m.end_s or m.start_s or m.queued_s for m in migrations]
    ends += [node.back_s or 0.0 for o in operations or [] for node in o.nodes]
    return max(ends, default=0.0)


def migration_figure(
    migrations: list[MigrationResult],
    operations: list[OperationResult] | None = None,
    title: str = "Live migrations",
    row_px: int = 34,
    axis: TimeAxis | None = None,
) -> Figure:
    """One bar per VM: waiting in the queue (grey), each pre-copy pass (blue,
    alternating shades) and the blackout (red); above them, for a rolling
    update, one bar per node while it is down for its patch (purple). On `axis`
    (default: in the unit of the timeline's length)."""
    axis = axis or TimeAxis.of(_last(migrations, operations))
    down, queued = _Bars("node down", DOWN, axis), _Bars("queued", QUEUED, axis)
    passes, blackout = _Bars("pre-copy pass", PASS, axis), _Bars("blackout", BLACKOUT, axis)
    rows = []
    for o in operations or []:
        for node in o.nodes:
            if node.down_s is None or node.back_s is None:
                continue
            row = f"{node.node} down for its patch"
            rows.append(row)
            text = f"down at {human_duration(node.down_s)}, back at {human_duration(node.back_s)}"
            down.add(row, node.down_s, node.back_s, text)
    for m in migrations:
        row = f"{m.vm} ({m.source} → {m.destination}, {m.option})"
        rows.append(row)
        if m.start_s is not None and m.start_s > m.queued_s:
            queued.add(row, m.queued_s, m.start_s, f"queued for {human_duration(m.start_s - m.queued_s)}")
        for k, p in enumerate(m.pass_details, start=1):
            text = f"pass {k}: {p.bytes / 2**30:.2f} GiB in {human_duration(p.end_s - p.start_s)}"
            passes.add(row, p.start_s, p.end_s, text, PASS if k % 2 else PASS2)
        if m.end_s is not None and m.blackout_s is not None:
            blackout.add(row, m.end_s - m.blackout_s, m.end_s, f"blackout {human_duration(m.blackout_s)}")
    data = [bars.trace() for bars in (down, queued, passes, blackout) if bars.rows]
    return {"data": data, "layout": _timeline_layout(title, rows, row_px, 260, axis)}


def hosts_timeline_figure(
    groups: Sequence[tuple[str, list[MigrationResult]]],
    operations: list[OperationResult] | None = None,
    axis: TimeAxis | None = None,
) -> Figure:
    """The timeline of a large scenario at a glance: a row per source host, a bar (blue, half
    transparent, so that simultaneous ones show darker) per migration from it, from its start to
    its end, and the host's time down for its patch (purple) on the same row."""
    rows = [host for host, _ in groups]
    axis = axis or TimeAxis.of(_last([m for _, ms in groups for m in ms], operations))
    down = _Bars("node down", DOWN, axis)
    moving = _Bars("migrating a VM away", MIGRATING, axis, 5)
    for o in operations or []:
        for node in o.nodes:
            if node.down_s is not None and node.back_s is not None and node.node in rows:
                text = f"down at {human_duration(node.down_s)} for {human_duration(node.back_s - node.down_s)}"
                down.add(node.node, node.down_s, node.back_s, text)
    for host, migrations in groups:
        for m in migrations:
            if m.start_s is not None:
                end = m.end_s if m.end_s is not None else m.start_s
                text = f"{m.vm} from {human_duration(m.start_s)} for {human_duration(end - m.start_s)}"
                moving.add(host, m.start_s, end, text)
    data = [bars.trace() for bars in (down,) if bars.rows] + [moving.trace(opacity=0.5)]
    layout = _timeline_layout("Live migrations by source host", rows, 14, 80, axis)
    layout["yaxis"]["title"] = {"text": "source host"}
    return {"data": data, "layout": layout}


def _summary_cells(migrations: list[MigrationResult]) -> list[str]:
    """A source host's migrations in a few numbers: how many, first start, last end, longest blackout, bytes."""
    starts = [m.start_s for m in migrations if m.start_s is not None]
    ends = [m.end_s for m in migrations if m.end_s is not None]
    blackouts = [m.blackout_s for m in migrations if m.blackout_s is not None]
    never = len(migrations) - len(ends)
    count = counted(len(migrations), "migration")
    if never:
        count += f' <span class="stalled">({never} never ended)</span>'
    moved = sum(m.bytes_sent for m in migrations)
    return [
        count,
        human_duration(min(starts)) if starts else "never",
        human_duration(max(ends)) if ends else "never",
        human_duration(max(blackouts)) if blackouts else "-",
        format_bytes(int(float(f"{moved:.3g}"))),
    ]


_GROUP_HEAD = ("source host", "migrations", "first start", "last end", "longest blackout", "moved")


def _host_operations(operations: list[OperationResult], host: str) -> list[OperationResult]:
    """The operations with only `host`'s node in them (for its own down-for-patch bar)."""
    return [o.model_copy(update={"nodes": [n for n in o.nodes if n.node == host]}) for o in operations]


def migrations_section(
    results: Results,
    prefix: str = "",
    title: str = "Live migrations",
    group_hosts: int = GROUP_HOSTS,
    group_migrations: int = GROUP_MIGRATIONS,
    axis: TimeAxis | None = None,
) -> Section | None:
    """The migration timeline and its table, a group per source host; None when the scenario
    migrates nothing.

    Up to `group_hosts` source hosts and `group_migrations` migrations, one chart has a bar
    per VM and every group is open. Past that, the chart has a row per host, and each host's
    group (closed) draws its VMs' bars and table when opened. `prefix` keeps ids apart when a
    page has several (a comparison); every chart is on `axis` (default: in the unit of the run's
    length, as its other charts)."""
    if not results.migrations:
        return None
    from hvnet.tables import migrations_table, nodes_table, operations_table

    groups: dict[str, list[MigrationResult]] = {}
    for m in results.migrations:
        groups.setdefault(m.source, []).append(m)
    large = len(groups) > group_hosts or len(results.migrations) > group_migrations
    chart_id = f"{prefix}migration-chart-0"
    marks = failure_marks(results)
    axis = axis or TimeAxis.of(results.end_s)
    if large:
        timeline = hosts_timeline_figure(list(groups.items()), results.operations, axis)
        chart = figure_div(chart_id, marked(timeline, marks, axis))
        caption = (
            '<p class="caption">A row per source host: a bar per VM migrated from it, from its start to its '
            "end (half transparent: simultaneous ones show darker), and, in a rolling update, the node while "
            "it is down for its patch (purple). Open a host below for one bar per VM (queue, pre-copy passes, "
            "blackout) and the table of its migrations.</p>"
        )
    else:
        timeline = migration_figure(results.migrations, results.operations, axis=axis)
        chart = figure_div(chart_id, marked(timeline, marks, axis))
        caption = (
            '<p class="caption">One bar per VM: waiting in its host\'s queue (grey), each pre-copy pass (blue) '
            "and the blackout (red); in a rolling update, each node while it is down for its patch "
            "(purple). Below, the migrations grouped by source host.</p>"
        )
    figures: dict[str, Figure] = {}  # a large scenario's groups, drawn when opened
    tables: dict[str, str] = {}
    rows = []
    for index, (host, migrations) in enumerate(groups.items()):
        subset = results.model_copy(update={"migrations": migrations})
        table = html_table(migrations_table(subset), [m.end_s is None for m in migrations])
        cells = "".join(f"<span>{cell}</span>" for cell in _summary_cells(migrations))
        summary = f"<summary><span>{escape(host)}</span>{cells}</summary>"
        if large:
            key = str(index)
            own = _host_operations(results.operations, host)
            figure = migration_figure(migrations, own, f"{host}: live migrations from it", 18, axis)
            figure = marked(figure, marks, axis)
            figures[key], tables[key] = figure, table
            rows.append(
                f'<details class="group" data-pack="{prefix}migration-groups" data-key="{key}">{summary}'
                '<div class="group-body"><div class="chart group-chart"></div><div class="group-table"></div></div>'
                "</details>"
            )
        else:
            rows.append(f'<details class="group" open>{summary}<div class="group-body">{table}</div></details>')
    head = "".join(f"<span>{escape(h)}</span>" for h in _GROUP_HEAD)
    groups_html = f'<div class="groups"><div class="group-head">{head}</div>{"".join(rows)}</div>'
    if figures:  # figures and tables apart: each kind packs smaller with its own kind
        groups_html += data_script(f"{prefix}migration-groups", {"figures": figures, "tables": tables})
    body = caption + f'<div class="chart">{chart}</div>' + groups_html
    operations = [o for o in results.operations if o.kind != "migrate"]
    if operations:
        never = [flag for o in operations for flag in [o.end_s is None] + [n.end_s is None for n in o.nodes]]
        body += (
            '<p class="caption">Maintenance windows: each drain and rolling update as a whole, and each '
            "node's part of a rolling update (drained, down for its patch, back, its VMs failed back).</p>"
            + html_table(operations_table(results), never)
        )
        nodes = nodes_table(results)
        if nodes.row_count:
            body += html_table(nodes, [n.down_s is None for o in operations for n in o.nodes])
    return Section(f"{prefix}migrations", title, body)
