"""Terminal tables of results, in the words and units an administrator uses."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from hvnet.failure_text import failure_blocks
from hvnet.model import split_endpoint
from hvnet.results import CoreUtilisation, MigrationResult, NicUtilisation, OperationResult, Results, TrafficResult
from hvnet.units import format_bitrate, format_bytes, human_duration
from hvnet.utilisation import BUSY_SHARE, COLD_SHARE, HOT_SHARE

__all__ = [
    "MIGRATION_ROWS",
    "UTILISATION_ROWS",
    "adapters_table",
    "cores_utilisation_table",
    "migrations_by_host_table",
    "migrations_table",
    "nodes_table",
    "operations_table",
    "results_tables",
    "traffic_table",
    "uncertainty_table",
    "utilisation_table",
]

#: Past this many live migrations the terminal shows one row per source host
#: (each VM's row is in the JSON and the report).
MIGRATION_ROWS = 50


#: The utilisation tables show this many rows, the busiest (all are in --json and --report).
UTILISATION_ROWS = 20


def _table(
    title: str,
    columns: Sequence[tuple[str, bool | str]],
    rows: Sequence[Sequence[str]],
    styles: Sequence[str | None] = (),
) -> Table:
    """A table whose number columns (`(header, True)`, right-aligned) are never cut: each
    keeps the width of its widest cell and never wraps; so does a column of single words
    (`(header, "word")`, left-aligned); the text columns fold to fit. A header's line break
    marks where it may wrap."""
    table = Table(title=title, title_justify="left")
    for k, (header, kind) in enumerate(columns):
        if kind:
            widest = max((len(row[k]) for row in rows), default=0)
            widest = max(widest, *(len(line) for line in header.split("\n")))
            table.add_column(header, justify="right" if kind is True else "left", no_wrap=True, min_width=widest)
        else:
            table.add_column(header, justify="left", overflow="fold")
    for i, row in enumerate(rows):
        table.add_row(*row, style=styles[i] if i < len(styles) else None)
    return table


def _rate(bps: float) -> str:
    """A rate to three significant digits, as people read them: 7.32 Gbps."""
    return format_bitrate(float(f"{bps:.3g}"))


def _seconds(value: float | None) -> str:
    return "never" if value is None else human_duration(value)


def _nic(name: str | None) -> str:
    return "none" if name is None else split_endpoint(name)[1]


def _via(t: TrafficResult) -> str:
    """The NICs its connections left by → arrived on, and how often they moved."""
    starts = sorted({f"{_nic(c.nics[0].out_nic)} → {_nic(c.nics[0].in_nic)}" for c in t.connection_results if c.nics})
    moves = sum(len(c.nics) - 1 for c in t.connection_results)
    text = ", ".join(starts) if len(starts) <= 2 else f"{len(starts)} NIC pairs"
    if t.connections > 1:
        text = f"{t.connections}× {text}"
    return text + (f" ({moves} move{'s' * (moves != 1)})" if moves else "")


def _blackholed(t: TrafficResult) -> str:
    stalled = [c.stalled_since_s for c in t.connection_results if c.stalled_since_s is not None]
    if stalled:
        return f"since {min(stalled):.2f} s"
    return _seconds(t.blackholed_s) if t.blackholed_s else "-"


def traffic_table(results: Results) -> Table:
    """One row per traffic entry: where it went, over which NICs, how fast; red if it never completed."""
    rows = [
        [
            t.name or "",
            f"{t.source} → {t.destination}",
            _via(t),
            format_bytes(t.size_bytes),
            _seconds(t.start_s),
            _seconds(t.end_s),
            "-" if t.mean_bps is None else _rate(t.mean_bps),
            _blackholed(t),
        ]
        for t in results.traffic
    ]
    columns = [("traffic", False), ("from → to", False), ("via NICs", False), ("size", True), ("start", True)]
    columns += [("end", True), ("mean\nrate", True), ("black-\nholed", True)]
    styles = ["red" if t.end_s is None else None for t in results.traffic]
    return _table(f"{results.scenario}: traffic", columns, rows, styles)


#: The adapters table's title: what its peaks are (each member alone, each direction, the whole run).
ADAPTERS_TITLE = "adapters: each NIC (team member) alone; peak = highest instantaneous line rate over the whole run"


def adapters_table(results: Results) -> Table:
    """One row per NIC (each team member on its own): its speed and its exact peak send
    and receive, the highest instantaneous line rate (frame overhead included) out of
    and into that NIC over the whole run, from the change points (not a mean over a step)."""
    rows = [
        [a.host, a.nic, format_bitrate(a.speed_bps), _rate(a.send_bps.peak()), _rate(a.receive_bps.peak())]
        for a in results.adapters
    ]
    columns = [
        ("host", False),
        ("NIC", False),
        ("speed", True),
        ("peak send\n(out)", True),
        ("peak receive\n(in)", True),
    ]
    return _table(ADAPTERS_TITLE, columns, rows)


def _share(value: float) -> str:
    """A share as a percentage: whole percent, one decimal under 10 % (0.6%), 0% for none."""
    percent = 100 * value
    return f"{percent:.1f}%" if 0 < percent < 9.95 else f"{percent:.0f}%"


def _busiest(figures: Sequence[NicUtilisation] | Sequence[CoreUtilisation]) -> list[int]:
    """Indices of `figures`, busiest first: highest p99, then max, then busy time."""
    return sorted(
        range(len(figures)), key=lambda i: (-figures[i].p99_share, -figures[i].max_share, -figures[i].busy_s, i)
    )


def _more(shown: int, total: int, what: str) -> str | None:
    return None if total <= shown else f"and {total - shown} more {what}, less busy (all in --json and --report)"


def utilisation_table(results: Results, rows: int | None = UTILISATION_ROWS) -> Table:
    """One row per NIC (each team member) and direction, busiest first (p99, then max): its
    time-weighted p50, p90, p99 and max utilisation (rate / speed) over the whole run, the
    time it was busy, its headroom (1 − p99) and its share of its team's bytes in that
    direction; `(hot)` after the member that makes its team a hot spot (hvnet.utilisation); at most `rows` rows
    (None: all), then a line saying how many more."""
    nics = results.utilisation
    order = _busiest(nics)
    shown = order if rows is None else order[:rows]
    hot = {(t.host, t.team, t.direction) for t in results.teams_utilisation if t.hot_spot}
    cells = []
    for i in shown:
        u = nics[i]
        name = f"{u.host}/{u.nic}"
        if (u.host, u.team, u.direction) in hot and u.team_share is not None and u.team_share > HOT_SHARE:
            name += " (hot)"  # a name may wrap; the numbers keep their width
        cells.append(
            [
                name,
                u.direction,
                _share(u.p50_share),
                _share(u.p90_share),
                _share(u.p99_share),
                _share(u.max_share),
                _seconds(u.busy_s),
                _share(u.headroom_share),
                "-" if u.team_share is None else _share(u.team_share),
            ]
        )
    title = (
        f"utilisation: rate / speed per NIC (team member) and direction over the whole run, busiest first; "
        f"busy = above {BUSY_SHARE:.0%}; headroom = 1 − p99; hot = a member carried over {HOT_SHARE:.0%} "
        f"of its team's bytes, another under {COLD_SHARE:.0%}"
    )
    columns: list[tuple[str, bool | str]] = [
        ("NIC", False),
        ("direction", "word"),
        ("p50", True),
        ("p90", True),
        ("p99", True),
        ("max", True),
    ]
    columns += [("busy", True), ("head-\nroom", True), ("of team", True)]
    table = _table(title, columns, cells)
    table.caption = _more(len(shown), len(nics), "NIC directions")
    table.caption_justify = "left"
    return table


def cores_utilisation_table(results: Results, rows: int | None = UTILISATION_ROWS) -> Table:
    """One row per physical core that did network work, busiest first: its time-weighted p50,
    p90, p99 and max busy share over the whole run, busy time and headroom (1 − p99); at
    most `rows` rows (None: all), then a line saying how many more."""
    cores = [c for c in results.cores_utilisation if c.max_share > 0]
    order = _busiest(cores)
    shown = order if rows is None else order[:rows]
    cells = [
        [
            cores[i].host,
            str(cores[i].core),
            _share(cores[i].p50_share),
            _share(cores[i].p90_share),
            _share(cores[i].p99_share),
            _share(cores[i].max_share),
            _seconds(cores[i].busy_s),
            _share(cores[i].headroom_share),
        ]
        for i in shown
    ]
    title = "cores: busy share of each core that did network work over the whole run, busiest first"
    columns: list[tuple[str, bool | str]] = [
        ("host", False),
        ("core", True),
        ("p50", True),
        ("p90", True),
        ("p99", True),
        ("max", True),
    ]
    columns += [("busy", True), ("head-\nroom", True)]
    table = _table(title, columns, cells)
    table.caption = _more(len(shown), len(cores), "cores")
    table.caption_justify = "left"
    return table


def results_tables(results: Results) -> list[Table]:
    """The traffic and adapters tables, the migrations and operations when
    there are any, a summary line, then one yellow line per warning."""
    traffic, adapters = traffic_table(results), adapters_table(results)
    # A scenario that only migrates has no traffic table to show.
    tables = [traffic, adapters] if results.traffic or not results.migrations else [adapters]
    tables.append(utilisation_table(results))
    if any(c.max_share > 0 for c in results.cores_utilisation):
        tables.append(cores_utilisation_table(results))
    if len(results.migrations) > MIGRATION_ROWS:
        tables.append(migrations_by_host_table(results))
    elif results.migrations:  # in two tables, so that each fits 80 columns without cutting a number
        tables += [migrations_table(results, "time"), migrations_table(results, "cost")]
    if any(o.kind != "migrate" for o in results.operations):
        tables.append(operations_table(results))
    if any(o.nodes for o in results.operations):
        tables.append(nodes_table(results))
    if results.uncertainty:
        tables.append(uncertainty_table(results))
    if results.failures:
        tables.append(failures_table(results))
    stalled = len(results.stalled)
    summary = Table.grid(padding=(0, 2))
    done = []  # a scenario that only migrates has no traffic to count
    if results.traffic or not results.migrations:
        done.append(f"{len(results.traffic) - stalled} of {len(results.traffic)} traffic entries completed")
    if results.migrations:
        ended = sum(m.end_s is not None for m in results.migrations)
        done.append(f"{ended} of {len(results.migrations)} live migrations ended")
    summary.add_row(
        f"end {_seconds(results.end_s)}",
        *done,
        f"engine {results.events} events in {results.wall_s * 1000:.1f} ms",
    )
    if not results.warnings:
        return [*tables, summary]
    warnings = Table.grid()
    for warning in results.warnings:
        warnings.add_row(f"warning: {warning}", style="yellow")
    return [*tables, summary, warnings]


def failures_table(results: Results) -> Table:
    """The failures, one block each (`failure_text`): what failed and was repaired, how routing
    handled it, what it black-holed, moved or delayed, and what that cost."""
    table = Table.grid()
    table.add_row("failures: what failed and was repaired, and what it cost", style="bold")
    for block in failure_blocks(results):
        for line in block:
            table.add_row(line)
    return table


def uncertainty_table(results: Results) -> Table:
    """Each headline figure's band (`hvnet.uncertainty`): predicted, low, high, and what moved it most."""
    residual = results.uncertainty[0].validation_residual_pct if results.uncertainty else 0.0
    table = Table(
        title="uncertainty: each figure with every unconfirmed parameter at either end of its range, one at a time",
        title_justify="left",
        caption=f"beyond its calibration, hvnet validate's checks miss by {residual:g} % (root mean square)",
        caption_justify="left",
    )
    for header, right in (
        ("figure", False),
        ("predicted", True),
        ("low", True),
        ("high", True),
        ("moved most by", False),
    ):
        table.add_column(header, justify="right" if right else "left", overflow="fold")
    for band in results.uncertainty:
        ends = "never" if band.high is None else _seconds(band.high)
        table.add_row(band.figure, _seconds(band.predicted), _seconds(band.low), ends, band.moved_most_by or "nothing")
    return table


#: The columns of a live migration's row: (header, a number column), and which part
#: of the terminal's two tables each is in ("time": when and how much; "cost": how).
_MIGRATION_COLUMNS: tuple[tuple[str, bool, str], ...] = (
    ("VM", False, "both"),
    ("from → to", False, "time"),
    ("option", False, "cost"),
    ("start", True, "time"),
    ("waited", True, "cost"),
    ("duration", True, "time"),
    ("passes", True, "cost"),
    ("moved", True, "time"),
    ("black-\nout", True, "time"),
    ("peak", True, "time"),
    ("CPU core·s\nsource / dest.", True, "cost"),
)


def _migration_row(m: MigrationResult) -> list[str]:
    waited = None if m.start_s is None else m.start_s - m.queued_s
    return [
        m.vm,
        f"{m.source} → {m.destination}",
        m.option,
        _seconds(m.start_s),
        "-" if not waited else _seconds(waited),
        _seconds(m.duration_s),
        str(m.passes),
        format_bytes(int(float(f"{m.bytes_sent:.3g}"))),
        "-" if m.blackout_s is None else f"{1000 * m.blackout_s:.0f} ms",
        _rate(m.peak_bps),
        f"{m.cpu_core_s_source:.1f} / {m.cpu_core_s_destination:.1f}",
    ]


def migrations_table(results: Results, part: str = "all") -> Table:
    """One row per live migration: when it started, how long it waited and
    took, how much it moved, the blackout, its peak rate and the CPU it cost.
    `part` "time" keeps when and how much (the terminal's first table), "cost"
    how: its option, wait, passes and CPU (the second); "all" every column (the report)."""
    keep = [k for k, (_, _, where) in enumerate(_MIGRATION_COLUMNS) if part == "all" or where in ("both", part)]
    rows = [[row[k] for k in keep] for row in map(_migration_row, results.migrations)]
    columns = [_MIGRATION_COLUMNS[k][:2] for k in keep]
    title = {
        "all": "live migrations",
        "time": "live migrations",
        "cost": "live migrations: how (option, queue, passes, CPU)",
    }[part]
    return _table(title, columns, rows, ["red" if m.end_s is None else None for m in results.migrations])


def migrations_by_host_table(results: Results) -> Table:
    """One row per source host of its live migrations together: how many, the first
    start and last end, what they moved, the longest blackout, the highest peak and
    the CPU they cost (a cluster's thousands of migrations fit a screen)."""
    title = f"live migrations: {len(results.migrations)}, by source host (each VM's in --json and --report)"
    by_host: dict[str, list[MigrationResult]] = {}
    for m in results.migrations:
        by_host.setdefault(m.source, []).append(m)
    rows, styles = [], []
    for host, moves in by_host.items():
        ended = [m.end_s for m in moves if m.end_s is not None]
        started = [m.start_s for m in moves if m.start_s is not None]
        blackouts = [m.blackout_s for m in moves if m.blackout_s is not None]
        never = len(moves) - len(ended)
        rows.append(
            [
                host,
                str(len(moves)) + (f" ({never} never ended)" if never else ""),
                _seconds(min(started)) if started else "never",
                _seconds(max(ended)) if ended and not never else "never",
                format_bytes(int(float(f"{sum(m.bytes_sent for m in moves):.3g}"))),
                f"{1000 * max(blackouts):.0f} ms" if blackouts else "-",
                _rate(max(m.peak_bps for m in moves)),
                f"{sum(m.cpu_core_s_source for m in moves):.0f} / {sum(m.cpu_core_s_destination for m in moves):.0f}",
            ]
        )
        styles.append("red" if never else None)
    columns = [("source", False), ("migrations", False), ("first\nstart", True), ("last\nend", True), ("moved", True)]
    columns += [("longest\nblackout", True), ("peak", True), ("CPU core·s\nsource / dest.", True)]
    return _table(title, columns, rows, styles)


def _span(start: float | None, end: float | None) -> str:
    return "-" if start is None or end is None else _seconds(end - start)


def _operation_name(o: OperationResult) -> str:
    if o.kind == "drain":
        return f"drain {o.host}"
    if o.kind == "rolling_update":
        return f"rolling update of {len(o.nodes)} node{'s' * (len(o.nodes) != 1)}"
    return f"migrate from {o.host}"


def operations_table(results: Results) -> Table:
    """One row per operation (drain, rolling update), named with its migrations and what
    they moved, and one per node of a rolling update (with the VMs drained from it): when
    it began and ended, its window and its longest blackout. When each node was down for
    its patch is in `nodes_table`."""
    rows: list[list[str]] = []
    styles: list[str | None] = []
    for o in results.operations:
        if o.kind == "migrate":
            continue
        moved = format_bytes(int(float(f"{o.bytes_sent:.3g}")))
        count = len(o.migrations)
        rows.append(
            [
                f"{_operation_name(o)}: {count} migration{'s' * (count != 1)}, {moved}",
                _seconds(o.start_s),
                _seconds(o.end_s),
                _span(o.start_s, o.end_s),
                "-" if o.longest_blackout_s is None else f"{1000 * o.longest_blackout_s:.0f} ms",
            ]
        )
        styles.append("red" if o.end_s is None else None)
        for node in o.nodes:
            rows.append(
                [
                    f"  {node.node} ({node.vms} VM{'s' * (node.vms != 1)})",
                    _seconds(node.drain_start_s),
                    _seconds(node.end_s),
                    _span(node.drain_start_s, node.end_s),
                    "",
                ]
            )
            styles.append("red" if node.end_s is None else None)
    columns = [("operation", False), ("start", True), ("end", True), ("window", True), ("longest\nblackout", True)]
    return _table("operations: maintenance windows", columns, rows, styles)


def nodes_table(results: Results) -> Table:
    """One row per node of each rolling update: when it went down for its patch and when it was back."""
    rows: list[list[str]] = []
    styles: list[str | None] = []
    for o in results.operations:
        for node in o.nodes:
            down = "never" if node.down_s is None else f"{_seconds(node.down_s)} → {_seconds(node.back_s)}"
            rows.append([node.node, down])
            styles.append("red" if node.down_s is None else None)
    return _table(
        "rolling update: each node down for its patch", [("node", False), ("down → back", True)], rows, styles
    )
