"""The report's live migrations: a timeline chart and, per source host, a group with its migrations' table
(opened on demand past a size, drawn from data packed in the page)."""

from __future__ import annotations

from html import escape

from hvnet.report.charts import (
    Figure,
    TimeAxis,
    failure_marks,
    figure_div,
    hosts_timeline_figure,
    marked,
    migration_figure,
)
from hvnet.report.embed import data_script
from hvnet.report.sections import Section, html_table
from hvnet.results import MigrationResult, OperationResult, Results
from hvnet.units import format_bytes, human_duration
from hvnet.words import counted

__all__ = ["GROUP_HOSTS", "GROUP_MIGRATIONS", "migrations_section"]

#: A timeline of more source hosts or more migrations than this is drawn per host, each host's
#: migrations in a group that opens on demand.
GROUP_HOSTS = 10
GROUP_MIGRATIONS = 50


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
