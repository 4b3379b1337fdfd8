"""Names: a Windows name as an hvnet name, a name made unique, and the order names are sorted in.

PowerShell lists adapters, teams, switches and VMs in no promised order, so the importer sorts every
list by name, naturally (NIC2 before NIC10): the same dumps always give the same scenario.
"""

from __future__ import annotations

import re

__all__ = ["clean_name", "natural", "unique_name"]


def natural(text: str) -> tuple[tuple[tuple[int, int | str], ...], str]:
    """NIC2 before NIC10; case-insensitive, ties broken by the exact text (kept apart from the parts, so that
    two names with different numbers of parts still compare)."""
    parts = re.split(r"(\d+)", text.casefold())
    return tuple((0, int(p)) if p.isdecimal() else (1, p) for p in parts), text


def clean_name(name: str) -> str:
    """A Windows name as an hvnet name: '/' separates host/nic in hvnet, so it becomes '-'."""
    return name.replace("/", "-").strip()


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name2``, ``name3``... if it is taken (ignoring case); the name returned is taken from then on."""
    candidate, k = name, 2
    while candidate.casefold() in taken:
        candidate, k = f"{name}{k}", k + 1
    taken.add(candidate.casefold())
    return candidate
