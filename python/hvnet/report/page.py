"""The HTML page around the sections: one file that loads nothing.

Everything the page needs is inside it: the style sheet below, plotly.js
(once, in ``<head>``, packed: `library`), the charts' data and the design's SVG. It opens from
a file, a mail attachment or a change request without a network.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from hvnet._version import __version__
from hvnet.report.embed import RUNTIME
from hvnet.report.library import plotly_element
from hvnet.report.sections import Section

__all__ = ["page"]

_CSS = """
:root { --ink: #1f2933; --muted: #52606d; --line: #d9e2ec; --accent: #2f6fb0; }
* { box-sizing: border-box; }
body { margin: 0; background: #f0f3f7; color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { background: #243b53; color: #fff; padding: 20px 32px 16px; }
header h1 { margin: 0; font-size: 22px; font-weight: 600; }
header p { margin: 4px 0 0; color: #bcccdc; max-width: 960px; }
nav { margin-top: 12px; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 13px; }
nav a { color: #d9e2ec; text-decoration: none; border-bottom: 1px solid transparent; }
nav a:hover { border-bottom-color: #d9e2ec; }
main { max-width: 1320px; margin: 0 auto; padding: 16px 24px 32px; }
.note { margin: 8px 0 0; padding: 8px 12px; border-left: 3px solid #c99a06;
  background: #fffbea; color: #513c06; font-size: 13px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px;
  margin-top: 16px; padding: 14px 18px 18px; }
section h2 { margin: 0 0 10px; font-size: 16px; font-weight: 600; }
.caption { margin: 6px 0 10px; color: var(--muted); font-size: 12.5px; }
.caption .b2b { color: #c05a00; font-weight: 600; }
.diagram { overflow-x: auto; border: 1px solid #eef1f4; border-radius: 4px; background: #fff; }
.diagram svg { display: block; margin: 0 auto; }
.diagram.fit svg { width: 100%; height: auto; }
.fit-button { float: right; margin: -34px 0 0; font: inherit; font-size: 12.5px; padding: 3px 10px;
  border: 1px solid var(--line); border-radius: 4px; background: #f5f7fa; color: var(--ink); cursor: pointer; }
.fit-button:hover { background: #e4e7eb; }
.charts { display: grid; grid-template-columns: repeat(var(--columns), minmax(0, 1fr)); gap: 12px; }
.chart { border: 1px solid var(--line); border-radius: 4px; padding: 2px; min-width: 0; }
@media (max-width: 820px) { .charts { grid-template-columns: 1fr; } }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 12px; text-align: left; border-bottom: 1px solid #eef1f4; }
table.traffic { width: 100%; }
table.traffic th { background: #f5f7fa; font-weight: 600; border-bottom: 1px solid var(--line); }
table.traffic .right { text-align: right; }
table.traffic .center { text-align: center; }
table.summary th { color: var(--muted); font-weight: 500; width: 220px; }
.stalled, tr.stalled td { color: #c62828; }
ul.warnings { margin: 0; padding-left: 18px; color: #c05a00; }
h3.failure { font-size: 14px; margin: 16px 0 4px; }
ul.hits { margin: 0 0 8px; padding-left: 18px; font-size: 13px; }
td.best { color: #1b7f3b; font-weight: 600; }
.chooser { margin: 14px 0 6px; font-size: 13px; color: var(--muted); }
.chooser select { font: inherit; color: var(--ink); margin-left: 4px; max-width: 100%; }
p.idle { margin-top: 10px; }
.groups { margin-top: 14px; border: 1px solid var(--line); border-radius: 4px; font-size: 13px; }
.group-head, .groups summary { display: grid; gap: 0 12px; align-items: baseline; padding: 5px 12px 5px 28px;
  grid-template-columns: minmax(90px, 1.2fr) minmax(110px, 1.2fr) repeat(3, minmax(80px, 1fr)) minmax(70px, 1fr); }
.group-head { color: var(--muted); background: #f5f7fa; border-bottom: 1px solid var(--line); font-weight: 600; }
.group-head span:not(:first-child), .groups summary span:not(:first-child) { text-align: right; }
.groups details + details, .group-head + details { border-top: 1px solid #eef1f4; }
.groups summary { cursor: pointer; list-style: none; position: relative; font-variant-numeric: tabular-nums; }
.groups summary::-webkit-details-marker { display: none; }
.groups summary::before { content: "\\25B8"; position: absolute; left: 11px; color: var(--muted); }
.groups details[open] > summary::before { content: "\\25BE"; }
.groups summary:hover { background: #f5f7fa; }
.groups summary > span:first-child { font-weight: 600; }
.group-body { padding: 4px 12px 12px; }
.group-body .chart { margin-bottom: 8px; }
.group-body .chart:empty { display: none; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 0 0 24px; }
"""


def page(title: str, description: str, sections: Sequence[Section], note: str, data: str = "") -> str:
    """The whole document: a header with `title` and links to the sections, `note` (what the
    report cannot show yet), then the sections in order. `data` (script elements of packed data
    that any chart may need, `embed.time_labels_script`) goes in ``<head>``."""
    links = "".join(f'<a href="#{s.anchor}">{escape(s.title)}</a>' for s in sections)
    body = "\n".join(f'<section id="{s.anchor}">\n<h2>{escape(s.title)}</h2>\n{s.body}\n</section>' for s in sections)
    about = f"<p>{escape(description)}</p>" if description.strip() else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="hvnet {__version__}">
<title>{escape(title)} · hvnet report</title>
<link rel="icon" href="data:,">
<style>{_CSS}</style>
{plotly_element()}
<script>{RUNTIME}</script>
{data}
</head>
<body>
<header>
<h1>{escape(title)}</h1>
{about}
<nav>{links}</nav>
</header>
<main>
<p class="note">{escape(note)}</p>
{body}
</main>
<footer>hvnet {__version__} · this file is self-contained: it opens offline, in any current browser.</footer>
</body>
</html>
"""
