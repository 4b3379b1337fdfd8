"""The tables of live migrations (each, or by source host), operations and the nodes of rolling updates."""

from __future__ import annotations

from rich.table import Table

from hvnet.results import MigrationResult, Results
from hvnet.tables.cells import fitted_table, rate, seconds
from hvnet.units import format_bytes
from hvnet.words import counted

__all__ = ["MIGRATION_ROWS", "migrations_by_host_table", "migrations_table", "nodes_table", "operations_table"]

#: Past this many live migrations the terminal shows one row per source host
#: (each VM's row is in the JSON and the report).
MIGRATION_ROWS = 50


#: The columns of a live migration's row: (header, a number column), and which part
#: of the terminal's two tables each is in ("time": when, and at what rate; "cost": how, and how
#: much), so that each fits 80 columns with host names of a few characters.
_MIGRATION_COLUMNS: tuple[tuple[str, bool | str, str], ...] = (
    ("VM", "word", "both"),
    ("from → to", False, "time"),
    ("option", "word", "cost"),
    ("start", True, "time"),
    ("waited", True, "cost"),
    ("duration", True, "time"),
    ("passes", True, "cost"),
    ("moved", True, "cost"),
    ("black-\nout", True, "time"),
    ("memory\npeak", True, "time"),  # memory's rate, before compression
    ("wire\npeak", True, "time"),  # what the NICs carried
    ("CPU core·s\nsource / dest.", True, "cost"),
)


def _migration_row(m: MigrationResult) -> list[str]:
    waited = None if m.start_s is None else m.start_s - m.queued_s
    return [
        m.vm,
        f"{m.source} → {m.destination}",
        m.option,
        seconds(m.start_s),
        "-" if not waited else seconds(waited),
        seconds(m.duration_s),
        str(m.passes),
        format_bytes(int(float(f"{m.bytes_sent:.3g}"))),
        "-" if m.blackout_s is None else seconds(m.blackout_s),
        rate(m.peak_bps),
        rate(m.peak_wire_bps),
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
        "cost": "live migrations: how (option, queue, passes, memory moved, CPU)",
    }[part]
    return fitted_table(title, columns, rows, ["red" if m.end_s is None else None for m in results.migrations])


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
                seconds(min(started)) if started else "never",
                seconds(max(ended)) if ended and not never else "never",
                format_bytes(int(float(f"{sum(m.bytes_sent for m in moves):.3g}"))),
                seconds(max(blackouts)) if blackouts else "-",
                rate(max(m.peak_bps for m in moves)),
                rate(max(m.peak_wire_bps for m in moves)),
                f"{sum(m.cpu_core_s_source for m in moves):.0f} / {sum(m.cpu_core_s_destination for m in moves):.0f}",
            ]
        )
        styles.append("red" if never else None)
    columns: list[tuple[str, bool | str]] = [
        ("source", "word"),
        ("migrations", False),
        ("first\nstart", True),
        ("last\nend", True),
        ("moved", True),
    ]
    columns += [("longest\nblackout", True), ("memory\npeak", True), ("wire\npeak", True)]
    columns += [("CPU core·s\nsource / dest.", True)]
    return fitted_table(title, columns, rows, styles)


def _span(start: float | None, end: float | None) -> str:
    return "-" if start is None or end is None else seconds(end - start)


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
                f"{o.title()}: {counted(count, 'migration')}, {moved}",
                seconds(o.start_s),
                seconds(o.end_s),
                _span(o.start_s, o.end_s),
                "-" if o.longest_blackout_s is None else seconds(o.longest_blackout_s),
            ]
        )
        styles.append("red" if o.end_s is None else None)
        for node in o.nodes:
            rows.append(
                [
                    f"  {node.node} ({counted(node.vms, 'VM')})",
                    seconds(node.drain_start_s),
                    seconds(node.end_s),
                    _span(node.drain_start_s, node.end_s),
                    "",
                ]
            )
            styles.append("red" if node.end_s is None else None)
    columns = [("operation", False), ("start", True), ("end", True), ("window", True), ("longest\nblackout", True)]
    return fitted_table("operations: maintenance windows", columns, rows, styles)


def nodes_table(results: Results) -> Table:
    """One row per node of each rolling update: when it went down for its patch and when it was back."""
    rows: list[list[str]] = []
    styles: list[str | None] = []
    for o in results.operations:
        for node in o.nodes:
            down = "never" if node.down_s is None else f"{seconds(node.down_s)} → {seconds(node.back_s)}"
            rows.append([node.node, down])
            styles.append("red" if node.down_s is None else None)
    return fitted_table(
        "rolling update: each node down for its patch", [("node", "word"), ("down → back", True)], rows, styles
    )
