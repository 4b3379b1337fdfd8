"""Variants of a design: the axes a scenario file declares, and what each variant scores.

A scenario file may end with a ``variants:`` mapping of *axes*. Each axis sets
the value at a path of the scenario to each of its values in turn; the
variants are every combination of the axes' values (their cartesian product),
named after them: ``jumbo=9000, algorithm=dynamic``::

    variants:
      jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
      algorithm: {set: "hosts[*].teams[*].load_balancing", values: [hyperv_port, dynamic]}

A path is fields joined by dots; after a field that holds a list, ``[*]``
takes every entry, ``[2]`` the third and ``[hv1]`` the one named hv1. The
last field is set whether or not the file writes it (a default is
overridden). The rest of the file is the *base* design, which ``hvnet
simulate`` runs (``load_scenario`` leaves ``variants:`` out).

``load_variants(path)`` checks the base design, each axis and each value on
its own, and reports every problem at once, on the axis's lines. A variant's
data is built only when asked for (``Variants.data``), so a sweep ships the
base design to its workers once and each builds its own variant.

``Metrics.of(results)`` sums a run up in the numbers a comparison ranks, and
``best(metrics)`` says which runs are best at each (docs/sweeps.md).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from hvnet.errors import Problem, ScenarioError
from hvnet.model import Scenario, load_yaml, plain_data, scenario_from_data
from hvnet.model.loader import VARIANTS, describe_value
from hvnet.results import Results
from hvnet.simulate import simulate
from hvnet.units import show_value

__all__ = [
    "MAX_VARIANTS",
    "METRICS",
    "Axis",
    "Metric",
    "Metrics",
    "Variant",
    "Variants",
    "best",
    "load_variants",
    "show_axis_value",
]

#: More variants than this in one file is refused (split the sweep, or use fewer values).
MAX_VARIANTS = 10_000

#: Axis names that would clash with a sweep's Parquet columns.
_RESERVED = ("variant", "metric", "value")

Loc = tuple[str | int, ...]


def show_axis_value(value: object) -> str:
    """A value as a variant's name shows it: ``9000``, ``dynamic``, ``true``, ``{"ghz":3}``."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return show_value(value)
    return json.dumps(value, separators=(",", ":"))


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


@dataclass(frozen=True)
class Variant:
    """One combination of the axes' values (one per axis, in axis order)."""

    index: int
    values: tuple[object, ...]
    #: ``jumbo=9000, algorithm=dynamic``; ``base`` for a file without variants.
    name: str


@dataclass(frozen=True, eq=False)
class Variants:
    """The variants of one scenario file: its base design and its axes.

    Iterating gives every ``Variant``, the first axis varying slowest. Plain
    data throughout, so it pickles (a sweep sends it to its workers).
    """

    filename: str
    #: The file's data without ``variants:``, as plain dicts and lists.
    base: dict[str, Any]
    axes: tuple[Axis, ...]
    #: The line of ``variants:``, where a problem of a combination is reported.
    line: int | None

    def __len__(self) -> int:
        return math.prod(len(axis.values) for axis in self.axes)

    def __iter__(self) -> Iterator[Variant]:
        combinations = itertools.product(*(axis.values for axis in self.axes))
        for index, values in enumerate(combinations):
            name = ", ".join(f"{a.name}={show_axis_value(v)}" for a, v in zip(self.axes, values))
            yield Variant(index, values, name or "base")

    def data(self, variant: Variant) -> dict[str, Any]:
        """The base data with the variant's values set; ScenarioError if a path matches nothing."""
        data = copy.deepcopy(self.base)
        for axis, value in zip(self.axes, variant.values):
            places = _places(data, axis.path)
            if isinstance(places, str):
                raise ScenarioError([Problem(self.filename, self.line, VARIANTS, f"{variant.name}: {places}")])
            for place in places:
                _set(data, place, value)
        return data

    def scenario(self, variant: Variant) -> Scenario:
        """The variant, validated like any scenario; its problems are reported on ``variants:``."""
        data = self.data(variant)
        try:
            return scenario_from_data(data, self.filename)
        except ScenarioError as error:
            raise self._relocated(variant, error) from None

    def simulate(self, variant: Variant, step_s: float = 1.0) -> Results:
        """The variant, validated and simulated."""
        scenario = self.scenario(variant)
        try:
            return simulate(scenario, step_s=step_s, filename=self.filename)
        except ScenarioError as error:
            raise self._relocated(variant, error) from None

    def _relocated(self, variant: Variant, error: ScenarioError) -> ScenarioError:
        if not self.axes:
            return error
        return ScenarioError(
            Problem(self.filename, self.line, VARIANTS, f"{variant.name}: {_inner(p)}") for p in error.problems
        )


def load_variants(path: str | os.PathLike[str]) -> Variants:
    """Reads a scenario file and its variants; ScenarioError lists every problem at once.

    A file without ``variants:`` has one variant, its base design, named ``base``.
    """
    filename = os.fspath(path)
    tree = load_yaml(filename)
    problems: list[Problem] = []
    try:
        scenario_from_data(tree, filename)  # the base design, with lines
    except ScenarioError as error:
        problems.extend(error.problems)
    if not isinstance(tree, Mapping) or VARIANTS not in tree:
        if problems:
            raise ScenarioError(problems)
        return Variants(filename, _base(tree), (), None)
    axes, axis_problems = _read_axes(tree, filename)
    variants = Variants(filename, _base(tree), axes, _key_line(tree, VARIANTS))
    if not problems:  # each value on its own, on the valid base design
        problems.extend(_check_values(variants))
    if not axis_problems and len(variants) > MAX_VARIANTS:
        product = " × ".join(str(len(a.values)) for a in axes)
        count = f"{product} = {len(variants):,} variants; at most {MAX_VARIANTS:,}"
        message = f"{count} (use fewer values, or split the file)"
        problems.append(Problem(filename, variants.line, VARIANTS, message))
    problems.extend(axis_problems)
    if problems:
        raise ScenarioError(sorted(dict.fromkeys(problems), key=lambda p: (p.line is None, p.line or 0)))
    return variants


# --- reading the axes ---------------------------------------------------------------------


def _base(tree: object) -> dict[str, Any]:
    data = plain_data(tree)
    assert isinstance(data, dict)
    data.pop(VARIANTS, None)
    return data


def _key_line(node: object, key: object) -> int | None:
    try:
        return int(node.lc.key(key)[0]) + 1  # type: ignore[attr-defined]
    except (AttributeError, KeyError, TypeError):
        return None


def _value_line(node: object, key: object) -> int | None:
    try:
        if isinstance(node, list):
            return int(node.lc.item(key)[0]) + 1  # type: ignore[attr-defined]
        return int(node.lc.value(key)[0]) + 1  # type: ignore[attr-defined]
    except (AttributeError, KeyError, TypeError, IndexError):
        return _key_line(node, key)


_AXIS_FORM = "write name: {set: PATH, values: [...]}, e.g. jumbo: {set: hosts[*].nics[*].mtu, values: [1500, 9000]}"


def _read_axes(tree: Mapping[Any, Any], filename: str) -> tuple[tuple[Axis, ...], list[Problem]]:
    """The axes of ``variants:``, and a problem for each one that is malformed."""
    block, line = tree[VARIANTS], _key_line(tree, VARIANTS)
    problems: list[Problem] = []

    def problem(line: int | None, field: str, message: str) -> None:
        problems.append(Problem(filename, line, field, message))

    if not isinstance(block, Mapping) or not block:
        empty = "an empty mapping" if isinstance(block, Mapping) else describe_value(block)
        got = "nothing" if block is None else empty
        problem(line, VARIANTS, f"expected a mapping of axes, got {got}; {_AXIS_FORM}")
        return (), problems
    axes: list[Axis] = []
    for key, entry in block.items():
        name, axis_line, field = str(key), _key_line(block, key), f"{VARIANTS}.{key}"
        if name in _RESERVED:
            problem(axis_line, field, f"{name!r} is reserved; name the axis otherwise (not {', '.join(_RESERVED)})")
            continue
        if not isinstance(entry, Mapping):
            got = describe_value(entry)
            problem(_value_line(block, key), field, f"expected {{set: PATH, values: [...]}}, got {got}")
            continue
        for extra in entry:
            if extra not in ("set", "values"):
                problem(_key_line(entry, extra), f"{field}.{extra}", "unknown field; allowed: set, values")
        for required in ("set", "values"):
            if required not in entry:
                problem(axis_line, f"{field}.{required}", "required field is missing")
        path, values = entry.get("set"), entry.get("values")
        path_line, values_line = _value_line(entry, "set"), _value_line(entry, "values")
        ok = "set" in entry and "values" in entry
        if "set" in entry and not isinstance(path, str):
            got = describe_value(path)
            problem(path_line, f"{field}.set", f"expected a path such as hosts[*].nics[*].mtu, got {got}")
            ok = False
        elif isinstance(path, str) and (why := _path_problem(path)) is not None:
            problem(path_line, f"{field}.set", why)
            ok = False
        if "values" in entry and (not isinstance(values, list) or not values):
            got = "an empty list" if isinstance(values, list) else describe_value(values)
            problem(values_line, f"{field}.values", f"expected a list of one or more values, got {got}")
            ok = False
        elif isinstance(values, list):
            seen: dict[str, int] = {}
            for i, value in enumerate(values):
                shown = show_axis_value(plain_data(value))
                if shown in seen:
                    message = f"{shown} is listed twice (values[{seen[shown]}]); each value makes one variant"
                    problem(_value_line(values, i), f"{field}.values[{i}]", message)
                seen.setdefault(shown, i)
        if ok:
            assert isinstance(path, str) and isinstance(values, list)
            value_lines = tuple(_value_line(values, i) for i in range(len(values)))
            plain = tuple(plain_data(v) for v in values)
            axes.append(Axis(name, path.strip(), plain, axis_line, path_line, value_lines))
    return tuple(axes), problems


def _check_values(variants: Variants) -> list[Problem]:
    """Each axis's path must match the base design, and each value must give a valid scenario."""
    problems: list[Problem] = []
    for axis in variants.axes:
        field = f"{VARIANTS}.{axis.name}"
        places = _places(variants.base, axis.path)
        if isinstance(places, str):
            problems.append(Problem(variants.filename, axis.set_line, f"{field}.set", places))
            continue
        alone = Variants(variants.filename, variants.base, (axis,), variants.line)
        for index, (value, line) in enumerate(zip(axis.values, axis.value_lines)):
            try:
                scenario_from_data(alone.data(Variant(index, (value,), "")), variants.filename)
            except ScenarioError as error:
                first, more = error.problems[0], len(error.problems) - 1
                message = f"with {show_value(value)}, {_inner(first)}"
                message += f" (and {more} more)" if more else ""
                problems.append(Problem(variants.filename, line, f"{field}.values[{index}]", message))
    return problems


def _inner(problem: Problem) -> str:
    """A problem of a variant's data, without its file and line (they are the base file's)."""
    inner = Problem("", None, problem.field, problem.message)
    return str(inner).removeprefix(": ")


# --- paths --------------------------------------------------------------------------------

_PATH = re.compile(r"[A-Za-z_]\w*(?:\[[^\[\]]+\])*(?:\.[A-Za-z_]\w*(?:\[[^\[\]]+\])*)*")
_TOKEN = re.compile(r"([A-Za-z_]\w*)|\[([^\[\]]+)\]")


def _path_problem(path: str) -> str | None:
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


def _places(data: object, path: str) -> list[Loc] | str:
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
                items: list[tuple[Loc, object]] = [(loc + (field,), node[field])]
            elif creatable:
                items = [(loc + (field,), _MISSING)]
            else:
                continue
            for selector in selectors:
                items = [(at + (k,), item) for at, entries in items for k, item in _select(entries, selector)]
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


def _set(data: dict[str, Any], loc: Loc, value: object) -> None:
    node: Any = data
    for key in loc[:-1]:
        if isinstance(key, str) and key not in node:
            node[key] = {}
        node = node[key]
    node[loc[-1]] = copy.deepcopy(value)


# --- metrics ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metrics:
    """One run summed up in the numbers a comparison ranks (docs/sweeps.md)."""

    #: When the last traffic entry or live migration ended (the drain time); None if one never completed.
    end_s: float | None
    #: The highest per-step send of any NIC, in Gbps (frame overhead included).
    peak_gbps: float
    #: Traffic entries and live migrations that never completed.
    stalled: int
    #: The longest time any traffic entry was black-holed; None (forever) if one never completed.
    blackholed_s: float | None
    #: Core-seconds the hosts' physical cores were busy (the per-core series added up).
    cpu_core_s: float
    #: The longest blackout of any live migration, in seconds; 0 without migrations, None if one never ended.
    blackout_s: float | None


    @classmethod
    def of(cls, results: Results) -> Metrics:
        ends = [t.end_s for t in results.traffic] + [m.end_s for m in results.migrations]
        sends = [max(a.send_bps, default=0.0) for a in results.adapters]
        stalled = ends.count(None)
        blackouts = [m.blackout_ms for m in results.migrations]
        return cls(
            end_s=None if stalled else max((e for e in ends if e is not None), default=0.0),
            peak_gbps=max(sends, default=0.0) / 1e9,
            stalled=stalled,
            blackholed_s=None if stalled else max((t.blackholed_s for t in results.traffic), default=0.0),
            cpu_core_s=results.step_s * sum(sum(core.busy) for core in results.cores),
            blackout_s=None if None in blackouts else max((b / 1e3 for b in blackouts if b is not None), default=0.0),
        )

    def as_dict(self) -> dict[str, float | int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Metric:
    """A column of a comparison: its name in ``Metrics``, its heading, which way is better, and the best in words."""

    name: str
    heading: str
    better: Literal["lower", "higher"]
    best: str


METRICS = (
    Metric("end_s", "drain time", "lower", "the shortest drain time"),
    Metric("peak_gbps", "peak send", "higher", "the highest peak send"),
    Metric("stalled", "stalled", "lower", "the fewest stalled traffic entries and migrations"),
    Metric("blackholed_s", "black-holed", "lower", "the shortest black hole"),
    Metric("cpu_core_s", "CPU", "lower", "the least CPU time"),
    Metric("blackout_s", "blackout", "lower", "the shortest blackout"),
)


def best(runs: Sequence[Metrics]) -> dict[str, frozenset[int]]:
    """For each metric, the runs (by index) with the best value; none where all candidates agree.

    Only runs whose traffic all completed are candidates (a design that loses
    traffic is not the best at anything, however little CPU it used), unless
    no run completed. Values within a relative 1e-9 of each other are equal.
    """
    candidates = [i for i, run in enumerate(runs) if not run.stalled] or list(range(len(runs)))
    marked: dict[str, frozenset[int]] = {}
    for metric in METRICS:
        keys = {i: _key(metric, getattr(runs[i], metric.name)) for i in candidates}
        top = min(keys.values(), default=0.0)
        winners = frozenset(i for i, k in keys.items() if math.isclose(k, top, rel_tol=1e-9, abs_tol=1e-12))
        marked[metric.name] = frozenset() if len(winners) == len(runs) else winners
    return marked


def _key(metric: Metric, value: float | None) -> float:
    """Lower is better; None (never, forever) is the worst."""
    if value is None:
        return math.inf
    return -float(value) if metric.better == "higher" else float(value)
