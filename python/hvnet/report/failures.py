"""The report's failures section: each failure told in the terminal's words (`hvnet.failure_text`):
what failed and was repaired, how routing handled it, what it hit and what it cost. The charts mark
each failure and repair (`charts.marked`)."""

from __future__ import annotations

from html import escape

from hvnet.failure_text import failure_blocks
from hvnet.report.sections import Section
from hvnet.results import Results

__all__ = ["failures_section"]


def failures_section(results: Results) -> Section | None:
    """The failures, one block each; None when the run had none."""
    if not results.failures:
        return None
    caption = (
        "<p class=\"caption\">Each failure of the scenario's events: when it was repaired, how the fabric's "
        'routing saw it and routed around it (docs/model.md, "Routing around failures"), the traffic and '
        "migrations it black-holed or moved, and what it cost: when each ends against the same run without "
        "this failure. On every chart, ✕ marks a failure and ▲ a repair.</p>"
    )
    blocks = []
    for lines in failure_blocks(results):
        head, rest = lines[0], lines[1:]
        items = "".join(f"<li>{escape(line.strip())}</li>" for line in rest)
        blocks.append(f'<h3 class="failure">{escape(head)}</h3><ul class="hits">{items}</ul>')
    return Section("failures", "Failures", caption + "".join(blocks))
