"""A reported figure beside hvnet's prediction (`Check`), and what every case uses to make one: the
tolerance, the comparison of a number with the figure or its range, the built-in testbeds."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from hvnet.calibration import Calibration
from hvnet.model import Scenario, parse_scenario

__all__ = ["TOLERANCE_PCT", "Check", "number", "testbed", "without_note"]

#: How close a prediction must be to count as explained.
TOLERANCE_PCT = 15.0


@dataclass(frozen=True)
class Check:
    """One reported figure and hvnet's prediction of it."""

    id: str
    figure: str
    reported: float | str
    predicted: float | str
    #: Relative error against the reported value (the middle of a range); None when not a number.
    error_pct: float | None
    explained: bool
    note: str = ""

    @property
    def role(self) -> str:
        """`calibration` when a parameter was fitted on this figure, `check` when the model predicts it."""
        return "calibration" if self.id in Calibration().fitted_on() else "check"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "role": self.role,
            "reported": self.reported,
            "predicted": self.predicted,
            "error_pct": self.error_pct,
            "explained": self.explained,
        }


def number(
    id: str, figure: str, predicted: float, reported: float, low: float | None = None, high: float | None = None
) -> Check:
    """A figure that is a number: explained within `TOLERANCE_PCT` of `reported`, or inside `low`–`high` where
    the source reported a range (shown as the reported value)."""
    error = 100.0 * (predicted - reported) / reported
    inside = low is not None and high is not None and low <= predicted <= high
    shown: float | str = reported if low is None else f"{low:g}–{high:g}"
    return Check(id, figure, shown, round(predicted, 3), round(error, 2), inside or abs(error) <= TOLERANCE_PCT)


def testbed(name: str) -> Scenario:
    """A built-in scenario of a testbed as reported (`examples/validation/`), by its file name."""
    text = resources.files("hvnet.examples").joinpath("validation").joinpath(name).read_text()
    return parse_scenario(text, f"validation/{name}")


def without_note(check: Check) -> tuple[str, str, float | str, float | str, float | None, bool]:
    """A check's fields but its note (to give it one)."""
    return check.id, check.figure, check.reported, check.predicted, check.error_pct, check.explained
