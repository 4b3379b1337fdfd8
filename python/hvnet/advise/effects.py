"""A fix's expected effect, by simulating the scenario with the fix applied.

The figure that matters for a scenario is its longest operation's window (a
drain, a rolling update or a migration: ``Results.operations``), or, without
operations, when its last traffic entry ends (``Results.traffic``). The
scenario is simulated once as it is and once per distinct fix (findings with
the same changes share a run); a fix that makes the design invalid (the
loader refuses it) or a scenario with nothing to measure gives no effect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hvnet.advise.rules import Change
from hvnet.errors import HvnetError
from hvnet.model import Scenario, scenario_from_data
from hvnet.results import Results
from hvnet.simulation import simulate
from hvnet.units import human_duration
from hvnet.variants.paths import places, set_value

__all__ = ["Effects", "Figure", "apply_changes", "figure"]


Figure = tuple[str, float | None]
"""What is measured, in words ("drain of hv1"), and its value in seconds (None: never ends)."""


def apply_changes(scenario: Scenario, changes: tuple[Change, ...]) -> Scenario:
    """The scenario with the changes applied; HvnetError (ScenarioError) if the result is not a valid design."""
    data: dict[str, Any] = scenario.model_dump(mode="json", by_alias=True)
    for change in changes:
        found = places(data, change.path)
        if isinstance(found, str):
            raise ValueError(found)
        for loc in found:
            set_value(data, loc, change.value)
    return scenario_from_data(data)


def figure(results: Results, like: Results | None = None) -> Figure | None:
    """The figure that matters: the longest operation's window, else the last traffic end; None without either.

    With `like`, the same figure as in that run (the same operation, by its event), so that two runs compare."""
    reference = like or results
    if reference.operations:
        longest = max(range(len(reference.operations)), key=lambda i: _forever(reference.operations[i].duration_s))
        event = reference.operations[longest].event
        index = next((i for i, op in enumerate(results.operations) if op.event == event), None)
        if index is None:
            return None
        op = results.operations[index]
        vm = results.migrations[op.migrations[0]].vm if op.kind == "migrate" and op.migrations else None
        return op.title(vm), op.duration_s
    if reference.traffic:
        ends = [t.end_s for t in results.traffic]
        return "last transfer ends at", None if None in ends else max(e for e in ends if e is not None)
    return None


def _forever(value: float | None) -> float:
    return float("inf") if value is None else value


def _shown(seconds: float | None) -> str:
    return "never" if seconds is None else human_duration(seconds)


def _compare(before: float | None, after: float | None) -> str:
    """``2 min 10 s → 48.0 s``; with the difference where rounding would hide it; "no change" when there is none."""
    if before is not None and after is not None:
        if abs(after - before) <= 1e-6 * max(before, 1.0):
            return f"{_shown(before)} → {_shown(after)} (no change in this scenario)"
        if _shown(before) == _shown(after):
            sign = "+" if after > before else "-"
            return f"{_shown(before)} → {_shown(after)} ({sign}{human_duration(abs(after - before))})"
    return f"{_shown(before)} → {_shown(after)}"


class Effects:
    """Simulates a scenario once, and each distinct fix once; `of(changes)` says the effect in words."""

    def __init__(self, scenario: Scenario, run: Callable[[Scenario], Results] | None = None) -> None:
        self._scenario = scenario
        self._run = run or simulate
        self._cache: dict[tuple[Change, ...], str | None] = {}
        self._base: Results | None = None
        self._base_figure: Figure | None = None
        self._base_failed = False
        #: How many runs were made (the base one included).
        self.runs = 0

    def _baseline(self) -> tuple[Results, Figure] | None:
        if self._base is None and not self._base_failed:
            try:
                self._base = self._simulate(self._scenario)
                self._base_figure = figure(self._base)
            except HvnetError:
                self._base_failed = True
        if self._base is None or self._base_figure is None:
            return None
        return self._base, self._base_figure

    def _simulate(self, scenario: Scenario) -> Results:
        self.runs += 1
        return self._run(scenario)

    def of(self, changes: tuple[Change, ...]) -> str | None:
        """The effect of applying `changes`, e.g. "drain of hv1: 2 min 10 s → 48.00 s"; None if unknown."""
        if not changes:
            return None
        if changes not in self._cache:
            self._cache[changes] = self._measure(changes)
        return self._cache[changes]

    def _measure(self, changes: tuple[Change, ...]) -> str | None:
        baseline = self._baseline()
        if baseline is None:
            return None
        base, (what, before) = baseline
        try:
            after_results = self._simulate(apply_changes(self._scenario, changes))
        except (HvnetError, ValueError):
            return None
        after = figure(after_results, like=base)
        if after is None:
            return None
        return f"{what}: {_compare(before, after[1])}"
