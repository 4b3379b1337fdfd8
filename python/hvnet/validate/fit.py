"""The calibrated parameters fitted on the public measurements, and leave-one-out cross-validation.

Each calibrated parameter (`Calibration.parameters()`, kind ``calibrated``) was set on one figure.
Here they are fitted together, on every figure of `hvnet validate` that is a number and that the
model claims to predict (`FITTED_ON`, not `NOT_MODELLED`), by least squares of the log errors:

    loss(θ) = Σ_f r_f(θ)²,   r_f = ln(predicted_f(θ) / reported_f)

where a figure reported as a range counts as exact anywhere inside it (r = 0) and is measured from
its nearer end outside it. θ stays inside each parameter's stated range (its `spread`, from the
shipped value): a fit that wants a value outside it says the mechanism, not the number, is wrong.

The search is coordinate descent: a golden-section search of ln θ_k along each parameter in turn,
over a few sweeps. The loss is not smooth (a core's or a link's limit takes over at a point) and
its parameters are few (eight), so a derivative-free search that never leaves the box is the
honest tool; each evaluation is one `run_validation` (some 40 small simulations, about 50 ms).

Leave-one-out: each figure f is predicted by the parameters fitted without it (from the full fit, one
sweep), so its residual says how far a figure the calibration never saw lands: the error to expect
on a new cluster, which is what `simulate --uncertainty`'s band should be as wide as.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.calibration.residuals import Residual, Residuals
from hvnet.validate.check import Check

__all__ = [
    "NOT_MODELLED",
    "CrossValidation",
    "Fitted",
    "LooRow",
    "cross_validate",
    "fit",
    "fitted_parameters",
    "leave_one_out",
    "log_error",
    "loo_summary",
    "residuals",
    "with_values",
]

#: Figures the model does not claim to predict, with why: fitting on them would move a parameter to
#: stand in for a mechanism that is missing (docs/validation.md says what each would need).
NOT_MODELLED: dict[str, str] = {
    "V2/cpu-default": (
        "the worker process's memory work (reading and mapping guest memory) is not charged to cores: the two V2 "
        "figures ask for 6.5 and 2.5 cycles per byte of it, and C5 and C6 saw no other core busy"
    ),
    "V2/cpu-tuned": (
        "the worker process's memory work (reading and mapping guest memory) is not charged to cores: the two V2 "
        "figures ask for 6.5 and 2.5 cycles per byte of it, and C5 and C6 saw no other core busy"
    ),
    "F2/teched-gain": "the demo's VM content and link are not reported; the gain is the assumed compression ratio",
}

#: The golden ratio's inverse, for the section search.
_PHI = (math.sqrt(5) - 1) / 2

Predict = Callable[[Calibration], list[Check]]


@dataclass(frozen=True)
class Fitted:
    """A parameter the fit moves: where it lives, its shipped value and the range it may take."""

    group: str
    name: str
    shipped: float
    low: float
    high: float
    whole: bool  # an int parameter (a count) stays whole


@dataclass(frozen=True)
class LooRow:
    """One figure: its reported value, the shipped prediction, and the prediction of a fit without it."""

    id: str
    figure: str
    reported: float | str
    predicted: float
    loo_predicted: float
    #: 100 × (loo_predicted / reported − 1), or 0 inside a reported range.
    loo_error_pct: float
    #: The reported value's ends: the range the source gave, or its one value twice.
    reported_low: float = math.nan
    reported_high: float = math.nan

    @property
    def kind(self) -> str:
        """``time`` for a figure in seconds (its words start with "s"), else ``other``
        (`hvnet.calibration.residuals`)."""
        return "time" if self.figure.split(maxsplit=1)[0].rstrip(",") == "s" else "other"

    def band(self, residuals: Residuals) -> tuple[float, float] | None:
        """Where the truth lies nine times in ten by the residuals of the figures of its kind, around the
        shipped prediction."""
        return residuals.truth_between(self.predicted, self.kind)

    def outside(self, band: tuple[float, float]) -> bool:
        """The reported value (or every value of its range) lies outside `band`."""
        return band[1] < self.reported_low or band[0] > self.reported_high


def fitted_parameters(calibration: Calibration | None = None) -> list[Fitted]:
    """The calibrated parameters that are one number with a stated range."""
    out = []
    for p in (calibration or Calibration()).parameters():
        if p.kind != "calibrated" or p.spread is None or isinstance(p.value, dict):
            continue
        low, high = p.spread
        out.append(Fitted(p.group, p.name, float(p.value), low, high, isinstance(p.value, int)))
    return out


def with_values(calibration: Calibration, values: dict[tuple[str, str], float]) -> Calibration:
    """`calibration` with the given parameters (group, name) set."""
    groups: dict[str, dict[str, float]] = {}
    for (group, name), value in values.items():
        groups.setdefault(group, {})[name] = value
    return dataclasses.replace(
        calibration,
        **{group: dataclasses.replace(getattr(calibration, group), **names) for group, names in groups.items()},
    )


def log_error(check: Check) -> float | None:
    """ln(predicted / reported), 0 inside a reported range; None for a figure that is not a number."""
    if check.target is None or not isinstance(check.predicted, (int, float)) or check.predicted <= 0:
        return None if check.target is None else math.inf
    predicted = float(check.predicted)
    if check.low is not None and check.high is not None:
        if check.low <= predicted <= check.high:
            return 0.0
        return math.log(predicted / (check.low if predicted < check.low else check.high))
    return math.log(predicted / check.target)


def _loss(checks: Iterable[Check], excluded: frozenset[str]) -> float:
    total = 0.0
    for check in checks:
        if check.id in excluded or check.id in NOT_MODELLED:
            continue
        error = log_error(check)
        if error is not None:
            total += error * error
    return total


def fit(
    predict: Predict,
    parameters: Sequence[Fitted],
    excluded: frozenset[str] = frozenset(),
    start: Calibration | None = None,
    sweeps: int = 2,
    steps: int = 10,
) -> tuple[Calibration, float]:
    """The calibration that minimises the loss over every figure but `excluded` (module doc), and
    that loss; `steps` golden-section steps per parameter and sweep."""
    best = start or Calibration()
    best_loss = _loss(predict(best), excluded)
    for _ in range(sweeps):
        for p in parameters:
            lo, hi = math.log(p.low), math.log(p.high)

            def at(x: float, p: Fitted = p, base: Calibration = best) -> tuple[float, Calibration]:
                value: float = math.exp(x)
                if p.whole:
                    value = round(value)
                calibration = with_values(base, {(p.group, p.name): value})
                return _loss(predict(calibration), excluded), calibration

            a, b = lo + (1 - _PHI) * (hi - lo), lo + _PHI * (hi - lo)
            fa, fb = at(a), at(b)
            for _ in range(steps):
                if fa[0] <= fb[0]:
                    hi, b, fb = b, a, fa
                    a = lo + (1 - _PHI) * (hi - lo)
                    fa = at(a)
                else:
                    lo, a, fa = a, b, fb
                    b = lo + _PHI * (hi - lo)
                    fb = at(b)
            loss, calibration = min(fa, fb, key=lambda pair: pair[0])
            if loss < best_loss:
                best, best_loss = calibration, loss
    return best, best_loss


def leave_one_out(
    predict: Predict,
    parameters: Sequence[Fitted],
    full: Calibration,
    progress: Callable[[int, int], None] | None = None,
) -> list[LooRow]:
    """Each fitted figure predicted by the parameters fitted without it (one sweep from `full`).

    A parameter that only the left-out figure informs (the loss without it is the same at both ends of
    the parameter's range) would keep the value the figure itself gave it, in `full` and as shipped: it
    takes its range's geometric middle instead, the value a fit that never saw the figure can defend."""
    shipped = {c.id: c for c in predict(Calibration())}
    ids = [c.id for c in shipped.values() if c.target is not None and c.id not in NOT_MODELLED]
    rows = []
    for k, figure in enumerate(ids):
        excluded = frozenset({figure})
        calibration, _ = fit(predict, parameters, excluded, start=full, sweeps=1)
        calibration = _uninformed_at_middle(predict, parameters, excluded, calibration)
        (check,) = [c for c in predict(calibration) if c.id == figure]
        error = log_error(check)
        original = shipped[figure]
        rows.append(
            LooRow(
                figure,
                original.figure,
                original.reported,
                float(original.predicted),
                float(check.predicted),
                100.0 * (math.exp(error) - 1) if error is not None and math.isfinite(error) else math.inf,
                *_reported_ends(original),
            )
        )
        if progress is not None:
            progress(k + 1, len(ids))
    return rows


def _uninformed_at_middle(
    predict: Predict, parameters: Sequence[Fitted], excluded: frozenset[str], calibration: Calibration
) -> Calibration:
    """`calibration` with each parameter the figures but `excluded` do not inform at its range's middle."""
    middle: dict[tuple[str, str], float] = {}
    for p in parameters:
        ends = [
            _loss(predict(with_values(calibration, {(p.group, p.name): round(v) if p.whole else v})), excluded)
            for v in (p.low, p.high)
        ]
        if abs(ends[0] - ends[1]) <= 1e-12 * max(1.0, abs(ends[0])):
            value = math.sqrt(p.low * p.high)
            middle[(p.group, p.name)] = round(value) if p.whole else value
    return with_values(calibration, middle) if middle else calibration


def loo_summary(rows: Sequence[LooRow]) -> tuple[float, float]:
    """The median and the 90th percentile of the absolute leave-one-out errors, in %."""
    errors = sorted(abs(r.loo_error_pct) for r in rows)
    if not errors:
        return 0.0, 0.0
    p90 = errors[min(len(errors) - 1, math.ceil(0.9 * len(errors)) - 1)]
    return statistics.median(errors), p90


def _reported_ends(check: Check) -> tuple[float, float]:
    if check.low is not None and check.high is not None:
        return check.low, check.high
    return (check.target, check.target) if check.target is not None else (math.nan, math.nan)


def residuals(rows: Sequence[LooRow], made: str = "") -> Residuals:
    """The residuals of a leave-one-out run, as `simulate --uncertainty` reads them."""
    return Residuals(
        tuple(Residual(r.id, r.kind, r.loo_error_pct) for r in rows if math.isfinite(r.loo_error_pct)), made
    )


@dataclass(frozen=True)
class CrossValidation:
    """The fit on every figure, and each figure's leave-one-out prediction."""

    #: (parameter, shipped value, value fitted on every figure, its range's low and high ends)
    parameters: list[tuple[str, float, float, float, float]]
    rows: list[LooRow]
    median_pct: float
    p90_pct: float

    @property
    def residuals(self) -> Residuals:
        return residuals(self.rows)


def cross_validate(predict: Predict, progress: Callable[[int, int], None] | None = None) -> CrossValidation:
    """Fit the calibrated parameters on every figure, then predict each figure without it."""
    parameters = fitted_parameters()
    full, _ = fit(predict, parameters)
    rows = leave_one_out(predict, parameters, full, progress)
    values = [
        (f"{p.group}.{p.name}", p.shipped, float(getattr(getattr(full, p.group), p.name)), p.low, p.high)
        for p in parameters
    ]
    median, p90 = loo_summary(rows)
    return CrossValidation(values, rows, median, p90)
