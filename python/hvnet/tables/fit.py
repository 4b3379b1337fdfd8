"""Tables that fit the terminal they are printed on, whatever its width, without cutting a name.

Rich shrinks a table that is too wide by wrapping its wrappable columns, and when that is not
enough (it also stops when the two widest wrappable columns tie), it narrows every column
evenly, names and numbers too: piped into `less` or a CI log (80 columns) a host column came
out zero characters wide and two names cut alike (``no-t…``) read the same.

`FittedTable` decides the widths itself, when it is printed and for the width it is printed at:

1. a column that must stay whole (``no_wrap``: a name, a number) keeps the width of its widest
   cell, always;
2. the columns that may wrap (text) share what is left, each at least 12
   characters wide (less if it holds less), and, when that is too much, at least as wide as
   its longest word, so that words stay whole; what is left over goes max-min fairly (`_share`):
   a short text gets its whole width before a long one gets more;
3. if even that does not fit, columns are left out from the right (never the first, which names
   the row), and the caption says which ("--json has them all").

A table that fits as it is prints exactly as a plain rich `Table` (each column at its widest).
"""

from __future__ import annotations

import copy
import dataclasses

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Column, Table

__all__ = ["FittedTable"]

#: The narrowest a wrapping column gets while it has a longer word: wrapping a sentence into
#: a column of 12 still reads, narrower does not.
_NARROWEST_FOLD = 12


class FittedTable(Table):
    """A `rich.table.Table` that fits any width without cutting a ``no_wrap`` column (module doc)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fitted = self.fitted(console, options)
        yield from Table.__rich_console__(fitted, console, options)

    def fitted(self, console: Console, options: ConsoleOptions) -> Table:
        """This table as it prints at `options.max_width`: a copy with every column's width set
        (as rich would set them when the table fits) and, if need be, columns left out. Each
        column is measured once, here; rich, given the widths, measures nothing again."""
        width = options.max_width
        content = []  # each column's narrowest and widest content, without its padding
        for k, column in enumerate(self.columns):
            measure = self._measure_column(console, options, column)
            pad = self._get_padding_width(k)
            content.append((measure.minimum - pad, measure.maximum - pad))
        kept = list(range(len(self.columns)))
        widths = self._widths(content, kept, width, _NARROWEST_FOLD)
        if widths is None:  # text folds down to its longest word before a column goes
            widths = self._widths(content, kept, width, 0)
        while widths is None and len(kept) > 1:
            kept.pop()  # leave out the rightmost column; the first names the row
            widths = self._widths(content, kept, width, 0)
        table = copy.copy(self)
        table.columns = []
        for k, index in enumerate(kept):
            column = dataclasses.replace(self.columns[index], _index=k)
            if widths is not None:
                column.width = widths[k]
            table.columns.append(column)
        left_out = [_header(column) for column in self.columns[len(kept) :]]
        if left_out:
            note = f"left out at {width} columns: {', '.join(left_out)} (a wider terminal or --json has them)"
            table.caption = note if not self.caption else f"{self.caption}\n{note}"
            table.caption_justify = "left"
        return table

    def _widths(self, content: list[tuple[int, int]], kept: list[int], width: int, narrowest: int) -> list[int] | None:
        """The content width of each kept column, or None when they cannot fit without cutting
        a whole column, or a word."""
        padding = [self._get_padding_width(k) for k in range(len(kept))]
        edges = _borders(self, len(kept))
        widest = [content[i][1] for i in kept]
        if sum(widest) + sum(padding) + edges <= width:
            return widest  # fits as it is: every column at its widest, as rich lays it out
        least = [
            content[i][1] if _whole(self.columns[i]) else min(content[i][1], max(content[i][0], narrowest))
            for i in kept
        ]
        spare = width - edges - sum(padding) - sum(least)
        if spare < 0:
            return None
        wants = [high - low for high, low in zip(widest, least, strict=True)]
        return [low + extra for low, extra in zip(least, _share(spare, wants), strict=True)]


def _share(spare: int, wants: list[int]) -> list[int]:
    """`spare` characters shared max-min fairly among columns that each want up to `wants[i]` more:
    the narrow ones get all they want (a short text stays on one line), the rest split what is left."""
    given = [0] * len(wants)
    waiting = sorted((w, i) for i, w in enumerate(wants) if w > 0)
    while waiting and spare > 0:
        fair = spare // len(waiting)
        want, i = waiting[0]
        if want <= fair or fair == 0:
            take = min(want, max(fair, 1))  # below one character each, the narrowest first
            given[i] += take
            spare -= take
            waiting.pop(0)
            continue
        for _, i in waiting:
            given[i] += fair
        spare -= fair * len(waiting)
        waiting = [(w - fair, i) for w, i in waiting if w > fair]
    return given


def _whole(column: Column) -> bool:
    return column.no_wrap


def _borders(table: Table, count: int) -> int:
    """Characters of the table's vertical lines: one between columns, and its edges."""
    if table.box is None:
        return 0
    return count - 1 + (2 if table.show_edge else 0)


def _header(column: Column) -> str:
    return " ".join(str(column.header).replace("-\n", "-").split())
