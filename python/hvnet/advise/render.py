"""Findings for people (blocks a linter would print) and for programs (a JSON document, docs/advise.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from hvnet._version import __version__
from hvnet.advise.rules import Finding, Severity
from hvnet.words import counted

__all__ = ["DOCUMENT_VERSION", "findings_document", "findings_text"]

#: The version of the document's layout; it changes when a field changes meaning or goes away.
DOCUMENT_VERSION = 1

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _value(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def findings_text(findings: Sequence[Finding]) -> Group:
    """The findings as a linter prints them, one block each, so that any width holds them:
    severity, rule and title on the first line; evidence, fix (with the scenario change and the
    PowerShell), expected effect and source indented below, each wrapping under its own label."""
    blocks: list[RenderableType] = [Text(f"advice: {counted(len(findings), 'finding')}", style="bold")]
    for f in findings:
        head = Text()
        head.append(f.severity.value, style=_STYLE[f.severity])
        head.append(f"  {f.rule}  ", style="bold")
        head.append(f.title)
        body = Table.grid(padding=(0, 1))
        body.add_column(no_wrap=True, style="dim")
        body.add_column(overflow="fold")
        body.add_row("evidence", f.evidence)
        fix = Text(f.fix.text)
        for change in f.fix.changes:
            fix.append(f"\nscenario: {change.path}: {_value(change.value)}", style="dim")
        if f.fix.cmdlet:
            fix.append(f"\nPS> {f.fix.cmdlet}", style="green")
        body.add_row("fix", fix)
        if f.expected_effect:
            body.add_row("effect", f.expected_effect)
        source = Text("\n".join(s.title for s in f.sources))
        if not f.confirmed:
            source.append("\n(not confirmed by its source)", style="italic")
        body.add_row("source", source)
        blocks += [Text(""), head, Padding(body, (0, 0, 0, 4))]
    return Group(*blocks)


def findings_document(findings: Sequence[Finding]) -> dict[str, Any]:
    """The findings as JSON-ready data (docs/advise.md, "JSON"): counts per severity and every finding."""
    counts = {s.value: sum(f.severity == s for f in findings) for s in Severity}
    return {
        "hvnet": __version__,
        "document_version": DOCUMENT_VERSION,
        "counts": counts,
        "findings": [f.model_dump(mode="json") for f in findings],
    }
