"""`hvnet validate`'s tables: hvnet beside the public measurements, one table per role."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from hvnet.tables.fit import FittedTable
from hvnet.validate.check import TOLERANCE_PCT, Check
from hvnet.validate.fit import CrossValidation

__all__ = ["fit_table", "loo_table", "validation_table"]

_ROLES = {
    "calibration": "hvnet beside public measurements: calibration (a parameter was fitted on each)",
    "check": "hvnet beside public measurements: checks (predicted, not fitted)",
}


def validation_table(checks: Sequence[Check], role: str) -> Table:
    """The figures of one role, one row each: its id and words, which wrap in the width the
    numbers leave (the id, one word, stays whole), then the numbers, each whole; a miss its
    tolerance does not explain is red and marked."""
    table = FittedTable(title=_ROLES[role], title_justify="left", caption_justify="left")
    table.add_column("figure", overflow="fold")
    for column in ("reported", "predicted"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_column("error", justify="right", no_wrap=True)
    unexplained = False
    for c in (c for c in checks if c.role == role):
        error = "" if c.error_pct is None else f"{c.error_pct:+.1f} %"
        if not c.explained:
            error, unexplained = f"[red]{error} ✗[/]", True
        table.add_row(f"[bold]{escape(c.id)}[/] {escape(c.figure)}", str(c.reported), str(c.predicted), error)
    if unexplained:
        table.caption = "✗: outside its tolerance, and no mechanism in the model explains it"
    return table


def loo_table(result: CrossValidation) -> FittedTable:
    """Each figure the fit uses: reported, predicted as shipped, predicted by a fit without it, that
    prediction's error (the leave-one-out residual), and the figure's band by the residuals of its kind
    (✗: the reported value is outside it); the median and 90th percentile beneath."""
    residuals = result.residuals
    intervals = "; ".join(
        f"{kind} figures {low:+.0f} % to {high:+.0f} %"
        for kind in ("time", "other")
        if (interval := residuals.interval_pct(kind)) is not None
        for low, high in [interval]
    )
    table = FittedTable(
        title="leave-one-out: each figure predicted by the parameters fitted on all the others",
        title_justify="left",
        caption=(
            f"median |error| {result.median_pct:.1f} %, 90th percentile {result.p90_pct:.1f} % "
            f"(over {len(result.rows)} figures; the goal: 10 % and 25 %). Band: where nine in ten figures "
            f"of its kind lie by the residuals ({intervals}); ✗ outside it"
        ),
        caption_justify="left",
    )
    table.add_column("figure", overflow="fold")
    for column in ("reported", "shipped", "left out", "error", "band"):
        table.add_column(column, justify="right", no_wrap=column not in ("reported", "band"), overflow="fold")
    for r in result.rows:
        error = f"{r.loo_error_pct:+.1f} %"
        if abs(r.loo_error_pct) > TOLERANCE_PCT:
            error = f"[red]{error}[/]"
        band = r.band(residuals)
        shown = "" if band is None else f"{band[0]:.4g}–{band[1]:.4g}"
        if band is not None and r.outside(band):
            shown = f"[red]{shown} ✗[/]"
        table.add_row(escape(r.id), str(r.reported), f"{r.predicted:.4g}", f"{r.loo_predicted:.4g}", error, shown)
    return table


def fit_table(result: CrossValidation) -> FittedTable:
    """The calibrated parameters: shipped, and fitted on every figure at once (a value at an end of its
    range says a mechanism is missing, not that the number is wrong)."""
    table = FittedTable(title="the calibrated parameters fitted on every figure at once", title_justify="left")
    table.add_column("parameter", no_wrap=True)
    for column in ("shipped", "fitted", "range"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, shipped, fitted, low, high in result.parameters:
        at_end = min(abs(fitted - low), abs(fitted - high)) <= 0.01 * (high - low)
        shown = f"{fitted:.4g}" + (" (at an end)" if at_end else "")
        table.add_row(name, f"{shipped:.4g}", shown, f"{low:.4g}–{high:.4g}")
    return table
