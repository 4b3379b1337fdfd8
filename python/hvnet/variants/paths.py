"""Applying a variant's changes: the paths an axis sets, where they point in a design, and setting them.

A path is fields joined by dots; after a field that holds a list, ``[*]``
takes every entry, ``[2]`` the third and ``[hv1]`` the one named hv1. The
last fields are created if the design does not write them (a default is
overridden).
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["Loc", "path_problem", "places", "set_value"]

Loc = tuple[str | int, ...]
"""A place in a design's data: the keys and indexes that lead to it."""

_PATH = re.compile(r"[A-Za-z_]\w*(?:\[[^\[\]]+\])*(?:\.[A-Za-z_]\w*(?:\[[^\[\]]+\])*)*")
_TOKEN = re.compile(r"([A-Za-z_]\w*)|\[([^\[\]]+)\]")


def path_problem(path: str) -> str | None:
    """Why the text is not a path; None if it is one."""
    if _PATH.fullmatch(path.strip()):
        return None
    return (
        f"{path!r} is not a path; write fields joined by dots, and after a list [*] for every entry, "
        "[N] for entry N (from 0) or [name] for the entry of that name (e.g. hosts[*].nics[*].mtu)"
    )


def _steps(path: str) -> list[tuple[str, list[str]]]:
    """``hosts[*].nics[0].mtu`` -> ``[("hosts", ["*"]), ("nics", ["0"]), ("mtu", [])]``."""
    steps: list[tuple[str, list[str]]] = []
    for field, selector in _TOKEN.findall(path):
        if field:
            steps.append((field, []))
        else:
            steps[-1][1].append(selector.strip())
    return steps


_MISSING: dict[str, Any] = {}  # a mapping the file does not write yet; setting a value creates it


def places(data: object, path: str) -> list[Loc] | str:
    """Where ``path`` points in ``data``, or why it points nowhere."""
    steps = _steps(path)
    frontier: list[tuple[Loc, object]] = [((), data)]
    for i, (field, selectors) in enumerate(steps):
        creatable = not any(s for _, s in steps[i:])  # only mapping fields from here: create what is missing
        reached: list[tuple[Loc, object]] = []
        for loc, node in frontier:
            if not isinstance(node, dict):
                continue
            if field in node:
                items: list[tuple[Loc, object]] = [((*loc, field), node[field])]
            elif creatable:
                items = [((*loc, field), _MISSING)]
            else:
                continue
            for selector in selectors:
                items = [((*at, k), item) for at, entries in items for k, item in _select(entries, selector)]
            reached.extend(items)
        if not reached:
            done = ".".join(f + "".join(f"[{s}]" for s in sels) for f, sels in steps[: i + 1])
            return f"{path!r} matches nothing: the scenario has no {done}"
        frontier = reached
    return [loc for loc, _ in frontier]


def _select(entries: object, selector: str) -> list[tuple[int, object]]:
    if not isinstance(entries, list):
        return []
    if selector == "*":
        return list(enumerate(entries))
    if selector.isdigit():
        index = int(selector)
        return [(index, entries[index])] if index < len(entries) else []
    return [(k, e) for k, e in enumerate(entries) if isinstance(e, dict) and str(e.get("name")) == selector]


def set_value(data: dict[str, Any], loc: Loc, value: object) -> None:
    """Sets a copy of the value at the place, creating the mappings on the way that are missing."""
    node: Any = data
    for key in loc[:-1]:
        if isinstance(key, str) and key not in node:
            node[key] = {}
        node = node[key]
    node[loc[-1]] = copy.deepcopy(value)
