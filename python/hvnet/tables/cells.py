"""What every terminal table shares: columns that never cut a number, and figures as people read them."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from hvnet.model import split_endpoint
from hvnet.tables.fit import FittedTable
from hvnet.units import format_bitrate, human_duration

__all__ = ["fitted_table", "nic", "rate", "seconds"]


def fitted_table(
    title: str,
    columns: Sequence[tuple[str, bool | str]],
    rows: Sequence[Sequence[str]],
    styles: Sequence[str | None] = (),
) -> Table:
    """A table whose number columns (`(header, True)`, right-aligned) are never cut: each
    keeps the width of its widest cell and never wraps; so does a column of single words
    (`(header, "word")`, left-aligned); the text columns fold to fit. A header's line break
    marks where it may wrap. At any width, the whole columns stay whole (`FittedTable`)."""
    table = FittedTable(title=title, title_justify="left")
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


def rate(bps: float) -> str:
    """A rate to three significant digits, as people read them: 7.32 Gbps."""
    return format_bitrate(float(f"{bps:.3g}"))


def seconds(value: float | None) -> str:
    return "never" if value is None else human_duration(value)


def nic(name: str | None) -> str:
    return "none" if name is None else split_endpoint(name)[1]
