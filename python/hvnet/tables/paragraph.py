"""Prose for the terminal: wrapped at its width, never between a number and its unit."""

from __future__ import annotations

import re
import textwrap

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["Paragraph"]


class Paragraph:
    """Text wrapped to the console's (or a table cell's) width at spaces, never between a number and
    what it is next to: ``48.00 s``, ``USD 1,200.00``, ``2 min 10 s`` and ``hv1 nic2`` stay on one
    line, nor at a no-break space the text holds. Each of its lines is wrapped on its own."""

    def __init__(self, text: str, style: str | None = None) -> None:
        self.text, self.style = text, style

    def lines(self, width: int) -> list[str]:
        """The paragraph's lines at `width` columns (a group longer than that overflows whole)."""
        out: list[str] = []
        for line in self.text.split("\n"):
            glued = _GLUE.sub("\u00a0", line)
            wrapped = textwrap.wrap(glued, width=max(width, 1), break_long_words=False, break_on_hyphens=False)
            out += [part.replace("\u00a0", " ") for part in wrapped] or [""]
        return out

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """At least its longest unbreakable group, at most its longest line."""
        lines = self.text.split("\n")
        groups = [group for line in lines for group in _GLUE.sub("\u00a0", line).split(" ")]
        return Measurement(max(map(len, groups), default=0), max(map(len, lines), default=0))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield Text(line, style=self.style or "", no_wrap=True, overflow="ignore")


#: The spaces a paragraph does not break at: next to a digit.
_GLUE = re.compile(r"(?<=\d) | (?=\d)")
