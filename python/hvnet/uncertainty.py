"""How far to trust a prediction: each headline figure's band (issue 16, item 9).

The rule: the scenario is simulated with the calibration as shipped, then once
with each parameter that has a stated range (`Parameter.spread`, docs/model.md
"Every parameter": the assumed ones, and the calibrated ones within their
fitted uncertainty) at the low end of its range and once at the high end, the
others as shipped. A figure's band runs from the lowest of those predictions to
the highest, and names the parameter whose range moves it most. Parameters are
moved one at a time, not all at once: the band says how far each unconfirmed
choice alone could move a figure, and which one to measure first.

The figures: when each traffic entry ends, each operation's (drain, rolling
update) duration, and each migration's duration and blackout (every
migration's for up to `MIGRATION_FIGURES` of them; beyond, the longest
blackout). A figure that does not end in some run (a transfer that stalls)
has no upper end (`high` None).

A duration (of a migration, a drain, a rolling update: the figures the validation measures in seconds)
has its band then widened, where that is wider, to where the truth lies nine times in ten by the
leave-one-out residuals of `hvnet validate --loo` (`hvnet.calibration.residuals`, docs/validation.md
"Leave-one-out"): predicted at P, it lies between P / (1 + e95) and P / (1 + e5), where e5 and e95 are
the 5th and 95th percentiles of the relative errors of the validation's figures in seconds, each
predicted by a calibration fitted without it. A transfer's end and a blackout keep the parameters' band:
no public figure of theirs was left out (a transfer on the links alone is exact to a fraction of a per
cent in `hvnet lab`, docs/lab.md). Those say how far the model as a whole has missed
measurements it never saw, mechanisms it lacks included; the parameters' runs say which unconfirmed
choice moves this design's figure most, and so what to measure first. Not included: the inputs' own
uncertainty (a scenario's sizes and rates are taken as given).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator

from hvnet.calibration import Calibration, Parameter
from hvnet.calibration.residuals import Residuals, read_residuals
from hvnet.model import Scenario
from hvnet.results import FigureBand, Results
from hvnet.simulation import simulate

__all__ = ["MIGRATION_FIGURES", "bands", "figures", "runs_needed", "shipped_residuals", "validated"]

#: Up to this many migrations, each has its duration and blackout banded; beyond, only the longest blackout.
MIGRATION_FIGURES = 20

Figures = dict[str, tuple[float | None, str]]


def figures(results: Results) -> Figures:
    """The headline figures of a run: name -> (value, unit); None where it never ends."""
    out: Figures = {}
    for t in results.traffic:
        out[f"traffic {t.name}: end"] = (t.end_s, "s")
    for o in results.operations:
        if o.kind != "migrate":
            out[f"{o.kind} {o.host or ''}".rstrip() + f" (event {o.event}): duration"] = (o.duration_s, "s")
    if len(results.migrations) <= MIGRATION_FIGURES:
        for i, m in enumerate(results.migrations):
            name = f"migration {i + 1} {m.vm} ({m.source} → {m.destination})"
            out[f"{name}: duration"] = (m.duration_s, "s")
            out[f"{name}: blackout"] = (m.blackout_s, "s")
    elif results.migrations:
        blackouts = [m.blackout_s for m in results.migrations]
        longest = None if any(b is None for b in blackouts) else max(b for b in blackouts if b is not None)
        out["longest blackout"] = (longest, "s")
    return out


@functools.cache
def shipped_residuals() -> Residuals:
    """The leave-one-out residuals the package ships (`hvnet validate --loo --residuals`)."""
    return read_residuals()


def validated(figure: str) -> bool:
    """The figures the validation's residuals in seconds are of: how long a migration, a drain or a rolling
    update takes (not a transfer's end, which the links and cores bound as measured, nor a blackout)."""
    return figure.endswith(": duration")


def _ends(calibration: Calibration) -> Iterator[tuple[Parameter, float]]:
    """Each parameter with a range, at its low and at its high end."""
    for p in calibration.parameters():
        if p.spread is None:
            continue
        for end in p.spread:
            if end != p.value:
                yield p, round(end) if isinstance(p.value, int) else end


def runs_needed(calibration: Calibration | None = None) -> int:
    """Simulations `bands` runs besides the first."""
    return sum(1 for _ in _ends(calibration or Calibration()))


def _with(calibration: Calibration, p: Parameter, value: float) -> Calibration:
    group = getattr(calibration, p.group)
    return dataclasses.replace(calibration, **{p.group: dataclasses.replace(group, **{p.name: value})})


def bands(
    scenario: Scenario,
    results: Results | None = None,
    calibration: Calibration | None = None,
    filename: str | None = None,
    step: Callable[[], None] | None = None,
    residuals: Residuals | None = None,
) -> list[FigureBand]:
    """Each headline figure's band (the module's rule); `results`: the run as shipped, if already made;
    `step` is called after each extra simulation (a progress bar); `residuals`: those shipped unless given."""
    calibration = calibration or Calibration()
    residuals = residuals or shipped_residuals()
    interval = residuals.interval_pct("time")
    base = figures(results or simulate(scenario, filename, calibration))
    seen: dict[str, list[float | None]] = {name: [value] for name, (value, _) in base.items()}
    moved: dict[str, tuple[float, str]] = {name: (0.0, "") for name in base}
    for p, value in _ends(calibration):
        run = figures(simulate(scenario, filename, _with(calibration, p, value)))
        for name, (predicted, _) in base.items():
            other = run.get(name, (None, ""))[0]
            seen[name].append(other)
            ended = [v for v in (other, predicted) if v is not None]
            shift = abs(ended[0] - ended[1]) if len(ended) == 2 else (0.0 if not ended else float("inf"))
            if shift > moved[name][0]:
                moved[name] = (shift, f"{p.group}.{p.name} = {value:g}")
        if step is not None:
            step()

    def low(name: str) -> float | None:
        ended = [v for v in seen[name] if v is not None]
        return min(ended) if ended else None

    def high(name: str) -> float | None:
        return None if any(v is None for v in seen[name]) else max(v for v in seen[name] if v is not None)

    def band(name: str, value: float | None, unit: str) -> FigureBand:
        lowest, highest = low(name), high(name)
        truth = residuals.truth_between(value, "time") if value is not None and validated(name) else None
        if truth is None:
            return FigureBand(
                figure=name, unit=unit, predicted=value, low=lowest, high=highest, parameters_low=lowest,
                parameters_high=highest, moved_most_by=moved[name][1], residual_low_pct=None,
                residual_high_pct=None, residual_figures=0,
            )  # fmt: skip
        assert interval is not None  # there are residuals of the kind: truth_between gave an answer
        return FigureBand(
            figure=name,
            unit=unit,
            predicted=value,
            low=truth[0] if lowest is None else min(lowest, truth[0]),
            high=None if highest is None else max(highest, truth[1]),
            parameters_low=lowest,
            parameters_high=highest,
            moved_most_by=moved[name][1],
            residual_low_pct=round(interval[0], 1),
            residual_high_pct=round(interval[1], 1),
            residual_figures=len(residuals.of("time")),
        )

    return [band(name, value, unit) for name, (value, unit) in base.items()]
