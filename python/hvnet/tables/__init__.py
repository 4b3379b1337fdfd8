"""Terminal tables of results, in the words and units an administrator uses.

`results_tables` is what `hvnet simulate` prints; the report draws the same tables as HTML.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from hvnet.failure_text import failure_blocks
from hvnet.results import Results
from hvnet.tables.cells import seconds
from hvnet.tables.fit import FittedTable
from hvnet.tables.migrations import (
    MIGRATION_ROWS,
    migrations_by_host_table,
    migrations_table,
    nodes_table,
    operations_table,
)
from hvnet.tables.network import (
    UTILISATION_ROWS,
    adapters_table,
    cores_utilisation_table,
    traffic_table,
    utilisation_table,
)

__all__ = [
    "MIGRATION_ROWS",
    "UTILISATION_ROWS",
    "adapters_table",
    "cores_utilisation_table",
    "failures_table",
    "migrations_by_host_table",
    "migrations_table",
    "nodes_table",
    "operations_table",
    "results_tables",
    "traffic_table",
    "uncertainty_table",
    "utilisation_table",
]


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
        f"end {seconds(results.end_s)}",
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
    """Each headline figure's band (`hvnet.uncertainty`): predicted, low, high (the wider of the parameters'
    runs and the validation's leave-one-out residuals), the parameters' runs alone, and what moved it most."""
    first = next((b for b in results.uncertainty if b.residual_figures), None)
    parameters = "every unconfirmed parameter at either end of its range, one at a time (parameters)"
    if first is None or first.residual_low_pct is None or first.residual_high_pct is None:
        caption = f"low to high: {parameters}; the leave-one-out residuals widen durations only, none here"
    else:
        caption = (
            f"low to high: the wider of {parameters} and, for durations, where nine in ten of hvnet validate's "
            f"{first.residual_figures} figures in seconds lie by their leave-one-out errors "
            f"({first.residual_low_pct:+g} % to {first.residual_high_pct:+g} %)"
        )
    table = FittedTable(
        title="uncertainty: each figure's band, and the parameter that moves it most",
        title_justify="left",
        caption=caption,
        caption_justify="left",
    )
    for header, right in (
        ("figure (what moved it most)", False),
        ("predicted", True),
        ("low", True),
        ("high", True),
        ("parameters", True),
    ):
        table.add_column(header, justify="right" if right else "left", no_wrap=right)
    for band in results.uncertainty:
        figure = Text(band.figure)
        figure.append(f"\n{band.moved_most_by or 'nothing'}", style="dim")
        parameters = f"{seconds(band.parameters_low)}–{seconds(band.parameters_high)}"
        table.add_row(figure, seconds(band.predicted), seconds(band.low), seconds(band.high), parameters)
    return table
