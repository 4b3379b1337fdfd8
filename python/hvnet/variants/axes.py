"""Reading a file's ``variants:`` block into axes, with a problem on its line for each malformed one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hvnet.errors import Problem
from hvnet.model import plain_data
from hvnet.model.loader import VARIANTS, describe_value
from hvnet.model.yamltree import key_line, value_line
from hvnet.variants.labels import show_axis_value
from hvnet.variants.paths import path_problem

__all__ = ["Axis", "read_axes"]

#: Axis names that would clash with a sweep's Parquet columns.
_RESERVED = ("variant", "metric", "value")

_AXIS_FORM = "write name: {set: PATH, values: [...]}, e.g. jumbo: {set: hosts[*].nics[*].mtu, values: [1500, 9000]}"


@dataclass(frozen=True)
class Axis:
    """One axis of variants: the path it sets and the values it takes, with their lines."""

    name: str
    path: str
    values: tuple[object, ...]
    #: Lines of the axis's name, of its ``set`` and of each value.
    line: int | None
    set_line: int | None
    value_lines: tuple[int | None, ...]


def read_axes(tree: Mapping[Any, Any], filename: str) -> tuple[tuple[Axis, ...], list[Problem]]:
    """The axes of ``variants:``, and a problem for each one that is malformed."""
    block, line = tree[VARIANTS], key_line(tree, VARIANTS)
    problems: list[Problem] = []
    if not isinstance(block, Mapping) or not block:
        empty = "an empty mapping" if isinstance(block, Mapping) else describe_value(block)
        got = "nothing" if block is None else empty
        problems.append(Problem(filename, line, VARIANTS, f"expected a mapping of axes, got {got}; {_AXIS_FORM}"))
        return (), problems
    axes = [axis for key, entry in block.items() if (axis := _axis(block, key, entry, filename, problems)) is not None]
    return tuple(axes), problems


def _axis(block: Mapping[Any, Any], key: object, entry: object, filename: str, problems: list[Problem]) -> Axis | None:
    """One axis, or None when it is malformed (its problems added)."""
    name, axis_line, field = str(key), key_line(block, key), f"{VARIANTS}.{key}"

    def problem(line: int | None, field: str, message: str) -> None:
        problems.append(Problem(filename, line, field, message))

    if name in _RESERVED:
        problem(axis_line, field, f"{name!r} is reserved; name the axis otherwise (not {', '.join(_RESERVED)})")
        return None
    if not isinstance(entry, Mapping):
        got = describe_value(entry)
        problem(value_line(block, key), field, f"expected {{set: PATH, values: [...]}}, got {got}")
        return None
    for extra in entry:
        if extra not in ("set", "values"):
            problem(key_line(entry, extra), f"{field}.{extra}", "unknown field; allowed: set, values")
    for required in ("set", "values"):
        if required not in entry:
            problem(axis_line, f"{field}.{required}", "required field is missing")
    path, values = entry.get("set"), entry.get("values")
    path_line, values_line = value_line(entry, "set"), value_line(entry, "values")
    ok = "set" in entry and "values" in entry
    if "set" in entry and not isinstance(path, str):
        got = describe_value(path)
        problem(path_line, f"{field}.set", f"expected a path such as hosts[*].nics[*].mtu, got {got}")
        ok = False
    elif isinstance(path, str) and (why := path_problem(path)) is not None:
        problem(path_line, f"{field}.set", why)
        ok = False
    if "values" in entry and (not isinstance(values, list) or not values):
        got = "an empty list" if isinstance(values, list) else describe_value(values)
        problem(values_line, f"{field}.values", f"expected a list of one or more values, got {got}")
        ok = False
    elif isinstance(values, list):
        _repeated_values(values, field, problem)
    if not ok:
        return None
    assert isinstance(path, str) and isinstance(values, list)
    value_lines = tuple(value_line(values, i) for i in range(len(values)))
    plain = tuple(plain_data(v) for v in values)
    return Axis(name, path.strip(), plain, axis_line, path_line, value_lines)


def _repeated_values(values: list[Any], field: str, problem: Callable[[int | None, str, str], None]) -> None:
    """Each value listed once: a repeat would make the same variant twice."""
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        shown = show_axis_value(plain_data(value))
        if shown in seen:
            message = f"{shown} is listed twice (values[{seen[shown]}]); each value makes one variant"
            problem(value_line(values, i), f"{field}.values[{i}]", message)
        seen.setdefault(shown, i)
