"""Findings for people (a rich table) and for programs (a JSON document, docs/advise.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from hvnet._version import __version__
from hvnet.advise.rules import Finding, Severity
from hvnet.words import counted

__all__ = ["DOCUMENT_VERSION", "findings_document", "findings_table"]

#: The version of the document's layout; it changes when a field changes meaning or goes away.
DOCUMENT_VERSION = 1

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _value(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def findings_table(findings: Sequence[Finding]) -> Table:
    """One row per finding: severity, rule, evidence, fix (fields and cmdlet), effect, source.

    Columns wrap at spaces, never inside a word, so numbers and names stay whole."""
    table = Table(title=f"advice: {counted(len(findings), 'finding')}", title_justify="left", show_lines=True)
    table.add_column("severity", no_wrap=True)
    widest = max((len(f.rule) for f in findings), default=12)
    table.add_column("rule", overflow="fold", min_width=widest)  # a rule id is never split
    table.add_column("evidence", overflow="fold", ratio=3)
    table.add_column("fix", overflow="fold", ratio=3)
    table.add_column("expected effect", overflow="fold", ratio=2)
    table.add_column("source", overflow="fold", ratio=2)
    for f in findings:
        fix = Text(f.fix.text)
        for change in f.fix.changes:
            fix.append(f"\n{change.path}: {_value(change.value)}", style="dim")
        if f.fix.cmdlet:
            fix.append(f"\nPS> {f.fix.cmdlet}", style="green")
        source = Text("\n".join(s.title for s in f.sources))
        if not f.confirmed:
            source.append("\n(not confirmed by its source)", style="italic")
        table.add_row(
            Text(f.severity.value, style=_STYLE[f.severity]),
            Text(f"{f.rule}\n{f.title}"),
            Text(f.evidence),
            fix,
            Text(f.expected_effect or "-"),
            source,
        )
    return table


def findings_document(findings: Sequence[Finding]) -> dict[str, Any]:
    """The findings as JSON-ready data (docs/advise.md, "JSON"): counts per severity and every finding."""
    counts = {s.value: sum(f.severity == s for f in findings) for s in Severity}
    return {
        "hvnet": __version__,
        "document_version": DOCUMENT_VERSION,
        "counts": counts,
        "findings": [f.model_dump(mode="json") for f in findings],
    }
