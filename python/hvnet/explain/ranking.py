"""Ranking the counterfactuals: which changes move the prediction, and how much of the gap each closes.

Each change is predicted like the test itself (`predict.predict`, with the change's
calibration when it brings one). With the measured throughput m, the prediction p
and a change's prediction c:

    moves       |c − p| > MOVE_SHARE × p        (0.5 %: less is the same answer)
    closes      1 − |m − c| / |m − p|            (1: all of the gap; 0: none; below 0: the
                                                  change takes the prediction further away)
    explains    m is inside the change's band   (the test's band, scaled to c)

The changes that move the prediction come first, the most of the gap closed
first; those that do not are *not the cause* and are said once; those that
do not apply to the scenario come last, with the reason.

**Pairs**, when no single change explains the measurement: every two changes
that apply, of different settings (`Change.setting`), at once. A pair is kept
only when each of its changes matters in it (the pair's prediction moves from
what each change alone gives), and ranked the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.errors import InputError
from hvnet.explain.counterfactuals import COUNTERFACTUALS, Change, apply_change, combine
from hvnet.explain.predict import Band, predict
from hvnet.explain.recreate import Test
from hvnet.model import Scenario

__all__ = ["MOVE_SHARE", "Gap", "Ranked", "evaluate", "not_the_cause", "rank_pairs", "rank_singles"]

#: A change moves the prediction when it changes it by more than this share of it (0.5 %).
MOVE_SHARE = 0.005


@dataclass(frozen=True)
class Ranked:
    """One counterfactual's (or pair's) outcome."""

    name: str
    description: str
    predicted_bps: float | None
    #: Measured less the changed scenario's prediction (bits/s), and over that prediction (%); None when skipped.
    remaining_gap_bps: float | None
    remaining_gap_pct: float | None
    explains: bool
    skipped: str = ""
    #: Whether it moves the prediction by more than MOVE_SHARE.
    moves: bool = False
    #: How much of the gap it closes, in per cent (100: all; below 0: it widens it); None when skipped.
    closes_pct: float | None = None


@dataclass(frozen=True)
class Gap:
    """What a change is measured against: the measurement, the test's prediction and its band."""

    test: Test
    measured_bps: float
    predicted_bps: float
    band: Band
    calibration: Calibration


def evaluate(change: Change, gap: Gap) -> Ranked:
    """A change predicted and placed against the gap (see the module's rules)."""
    if change.scenario is None:
        return Ranked(change.name, change.description, None, None, None, False, change.skipped)
    try:
        predicted = predict(change.scenario, gap.test, change.calibration or gap.calibration).throughput_bps
    except InputError as error:  # the change leaves the receiver unreachable
        return Ranked(change.name, change.description, None, None, None, False, error.problem.message)
    low, high = gap.band.relative(gap.predicted_bps)
    remaining = gap.measured_bps - predicted
    whole = gap.measured_bps - gap.predicted_bps
    return Ranked(
        change.name,
        change.description,
        predicted,
        remaining,
        100.0 * remaining / predicted if predicted else None,
        predicted * low <= gap.measured_bps <= predicted * high,
        moves=abs(predicted - gap.predicted_bps) > MOVE_SHARE * gap.predicted_bps,
        closes_pct=100.0 * (1.0 - abs(remaining) / abs(whole)) if whole else None,
    )


def _order(ranked: Ranked) -> tuple[int, float, str]:
    group = 0 if ranked.moves else 1 if ranked.predicted_bps is not None else 2
    return group, -(ranked.closes_pct or 0.0), ranked.name


def rank_singles(scenario: Scenario, gap: Gap, extra: Sequence[Change] = ()) -> tuple[list[Ranked], list[Change]]:
    """Every counterfactual (and `extra`, the measurement's own), ranked; and the changes that applied."""
    changes = [apply_change(scenario, c) for c in COUNTERFACTUALS] + list(extra)
    ranked = sorted((evaluate(c, gap) for c in changes), key=_order)
    tried = {r.name for r in ranked if r.predicted_bps is not None}
    return ranked, [c for c in changes if c.name in tried]


def rank_pairs(changes: Sequence[Change], singles: Sequence[Ranked], gap: Gap) -> list[Ranked]:
    """Every two applicable changes of different settings at once, kept when each matters, ranked."""
    alone = {r.name: r.predicted_bps for r in singles if r.predicted_bps is not None}
    out = []
    for first, second in itertools.combinations(changes, 2):
        if first.setting == second.setting:
            continue
        pair = evaluate(combine(first, second), gap)
        if pair.predicted_bps is None:
            continue
        margin = MOVE_SHARE * gap.predicted_bps
        if pair.moves and all(abs(pair.predicted_bps - (alone.get(c.name) or 0.0)) > margin for c in (first, second)):
            out.append(pair)
    return sorted(out, key=_order)


def not_the_cause(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The changes that were tried and give the same prediction."""
    return [r for r in ranked if r.predicted_bps is not None and not r.moves]
