"""`hvnet validate`'s tables: hvnet beside the public measurements, one table per role."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from hvnet.tables.fit import FittedTable
from hvnet.validate.check import Check

__all__ = ["validation_table"]

_ROLES = {
    "calibration": "hvnet beside public measurements: calibration (a parameter was fitted on each)",
    "check": "hvnet beside public measurements: checks (predicted, not fitted)",
}


def validation_table(checks: Sequence[Check], role: str) -> Table:
    """The figures of one role, one row each: its id and words, which wrap in the width the
    numbers leave (the id, one word, stays whole), then the numbers, each whole; a miss its
    tolerance does not explain is red and marked."""
    table = FittedTable(title=_ROLES[role], title_justify="left", caption_justify="left")
    table.add_column("figure", overflow="fold")
    for column in ("reported", "predicted"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_column("error", justify="right", no_wrap=True)
    unexplained = False
    for c in (c for c in checks if c.role == role):
        error = "" if c.error_pct is None else f"{c.error_pct:+.1f} %"
        if not c.explained:
            error, unexplained = f"[red]{error} ✗[/]", True
        table.add_row(f"[bold]{escape(c.id)}[/] {escape(c.figure)}", str(c.reported), str(c.predicted), error)
    if unexplained:
        table.caption = "✗: outside its tolerance, and no mechanism in the model explains it"
    return table
