"""How far the calibrated model misses figures it never saw: the leave-one-out residuals.

`hvnet validate --loo` fits the calibrated parameters on every public figure and predicts each figure
by a fit without it (`hvnet.validate.fit`); the relative error of that prediction is the figure's
residual, e = predicted / reported − 1 (0 inside a reported range). `hvnet validate --loo
--residuals FILE` writes them as JSON; the package ships the file of the last run (``residuals.json``
beside this module, the run of docs/validation.md's "Leave-one-out", which a test keeps in step).

A prediction P of a figure of the same kind then says the truth T = P / (1 + e) lies, nine times in
ten, between P / (1 + e95) and P / (1 + e5), where e5 and e95 are the 5th and 95th percentiles of the
residuals of that kind (linear interpolation between the ordered residuals, `statistics.quantiles`'s
inclusive method). The kinds: ``time`` (figures in seconds: migrations, drains), which bound
`simulate --uncertainty`'s times, and ``other`` (rates, shares, ratios, counts).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hvnet.errors import InputError

__all__ = ["SHIPPED", "Residual", "Residuals", "read_residuals"]

#: The file the package ships (written by `hvnet validate --loo --residuals`).
SHIPPED = "residuals.json"

#: The kinds of figures a residual belongs to.
KINDS = ("time", "other")


@dataclass(frozen=True)
class Residual:
    """One figure's leave-one-out residual."""

    id: str
    kind: str
    loo_error_pct: float


@dataclass(frozen=True)
class Residuals:
    """The residuals of one leave-one-out run, and the interval they give each kind of figure."""

    figures: tuple[Residual, ...]
    #: When and by what they were made (the run's date and command).
    made: str = ""

    def of(self, kind: str) -> list[float]:
        """The residuals, in %, of the figures of one kind."""
        return [r.loo_error_pct for r in self.figures if r.kind == kind]

    def interval_pct(self, kind: str) -> tuple[float, float] | None:
        """The 5th and 95th percentiles, in %, of the residuals of one kind; None with fewer than two."""
        errors = self.of(kind)
        if len(errors) < 2:
            return None
        cuts = statistics.quantiles(errors, n=20, method="inclusive")
        return cuts[0], cuts[-1]

    def truth_between(self, predicted: float, kind: str) -> tuple[float, float] | None:
        """Where the truth lies nine times in ten when hvnet predicts `predicted` (module doc)."""
        interval = self.interval_pct(kind)
        if interval is None:
            return None
        low_pct, high_pct = interval
        return predicted / (1 + high_pct / 100), predicted / (1 + low_pct / 100)

    def to_json(self) -> dict[str, object]:
        return {
            "made": self.made,
            "figures": [{"id": r.id, "kind": r.kind, "loo_error_pct": r.loo_error_pct} for r in self.figures],
        }


def read_residuals(path: Path | None = None) -> Residuals:
    """The residuals of `path`, or those the package ships."""
    if path is None:
        text = resources.files("hvnet.calibration").joinpath(SHIPPED).read_text()
        where = f"hvnet/calibration/{SHIPPED}"
    else:
        text, where = path.read_text(), str(path)
    try:
        document = json.loads(text)
        rows = document["figures"]
        figures = tuple(Residual(str(r["id"]), str(r["kind"]), float(r["loo_error_pct"])) for r in rows)
        made = str(document.get("made", ""))
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(where, None, "figures", f"not what `hvnet validate --loo --residuals` writes ({e})") from e
    for r in figures:
        if r.kind not in KINDS or not r.loo_error_pct > -100.0:
            message = f"{r.id}: the kind is one of {', '.join(KINDS)}, the error in % above -100"
            raise InputError(where, None, "figures", message)
    return Residuals(figures, made)
