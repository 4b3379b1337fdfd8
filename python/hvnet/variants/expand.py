"""Expanding a file's ``variants:`` into scenarios: every combination of the axes' values.

``load_variants(path)`` checks the base design, each axis and each value on
its own, and reports every problem at once, on the axis's lines. A variant's
data is built only when asked for (``Variants.data``), so a sweep ships the
base design to its workers once and each builds its own variant.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hvnet.errors import Problem, ScenarioError
from hvnet.model import Scenario, load_yaml, plain_data, scenario_from_data
from hvnet.model.loader import VARIANTS
from hvnet.model.yamltree import key_line
from hvnet.results import Results
from hvnet.simulation import simulate
from hvnet.units import show_value
from hvnet.variants.axes import Axis, read_axes
from hvnet.variants.labels import variant_name
from hvnet.variants.paths import places, set_value

__all__ = ["MAX_VARIANTS", "Variant", "Variants", "load_variants"]

#: More variants than this in one file is refused (split the sweep, or use fewer values).
MAX_VARIANTS = 10_000


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
            yield Variant(index, values, variant_name((a.name, v) for a, v in zip(self.axes, values)))

    def data(self, variant: Variant) -> dict[str, Any]:
        """The base data with the variant's values set; ScenarioError if a path matches nothing."""
        data = copy.deepcopy(self.base)
        for axis, value in zip(self.axes, variant.values):
            found = places(data, axis.path)
            if isinstance(found, str):
                raise ScenarioError([Problem(self.filename, self.line, VARIANTS, f"{variant.name}: {found}")])
            for place in found:
                set_value(data, place, value)
        return data

    def scenario(self, variant: Variant) -> Scenario:
        """The variant, validated like any scenario; its problems are reported on ``variants:``."""
        data = self.data(variant)
        try:
            return scenario_from_data(data, self.filename)
        except ScenarioError as error:
            raise self._relocated(variant, error) from None

    def simulate(self, variant: Variant) -> Results:
        """The variant, validated and simulated."""
        scenario = self.scenario(variant)
        try:
            return simulate(scenario, filename=self.filename)
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
    axes, axis_problems = read_axes(tree, filename)
    variants = Variants(filename, _base(tree), axes, key_line(tree, VARIANTS))
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


def _base(tree: object) -> dict[str, Any]:
    data = plain_data(tree)
    assert isinstance(data, dict)
    data.pop(VARIANTS, None)
    return data


def _check_values(variants: Variants) -> list[Problem]:
    """Each axis's path must match the base design, and each value must give a valid scenario."""
    problems: list[Problem] = []
    for axis in variants.axes:
        field = f"{VARIANTS}.{axis.name}"
        found = places(variants.base, axis.path)
        if isinstance(found, str):
            problems.append(Problem(variants.filename, axis.set_line, f"{field}.set", found))
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
