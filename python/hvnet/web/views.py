"""The terminal's answer as a page: the tables the CLI prints (rich renderables), exported as HTML.

`check`, `advise`, `cost`, `design` and `import measurement` have no HTML report; the web app shows
their answer as the terminal shows it — the same tables, the same ✓/✗ and colours (a failing
requirement red) — so nothing is laid out twice. Rich writes the HTML (`Console.export_html`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from html import escape

from rich.console import Console, RenderableType

__all__ = ["WIDTH", "terminal_page"]

#: Columns of the terminal the tables are laid out for: every table has every column at 96 (the CLI's
#: tables fit 80), and 96 columns of 12 px text fit the app's answer pane.
WIDTH = 96

#: The page around rich's output; rich fills {code} (and the colours) with `str.format`, so braces
#: of the style sheet are doubled; the title goes where @TITLE@ is.
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
body {{ margin: 0; padding: 16px 20px; background: #ffffff; color: #1f2933;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }}
h1 {{ font-size: 17px; font-weight: 600; margin: 0 0 10px; }}
pre.terminal {{ margin: 0; font: 12px/1.35 ui-monospace, "Cascadia Mono", Menlo, Consolas, monospace;
  white-space: pre; overflow-x: auto; }}
</style>
</head>
<body>
<h1>@TITLE@</h1>
<pre class="terminal"><code>{code}</code></pre>
</body>
</html>
"""


def terminal_page(title: str, renderables: Iterable[RenderableType | str]) -> str:
    """One HTML page holding `renderables` as the terminal prints them at `WIDTH` columns, in colour."""
    console = Console(
        record=True,
        width=WIDTH,
        file=io.StringIO(),
        emoji=False,
        force_terminal=True,
        color_system="truecolor",
        highlight=False,
    )
    for renderable in renderables:
        console.print(renderable, markup=False) if isinstance(renderable, str) else console.print(renderable)
    template = _PAGE.replace("@TITLE@", escape(title).replace("{", "{{").replace("}", "}}"))
    return console.export_html(inline_styles=True, code_format=template)
