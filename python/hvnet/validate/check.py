"""A reported figure beside hvnet's prediction (`Check`), and what every case uses to make one: the
tolerance, the comparison of a number with the figure or its range, the built-in testbeds."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import resources

from hvnet.calibration import Calibration
from hvnet.lower import frames
from hvnet.model import Scenario, parse_scenario
from hvnet.series import Series

__all__ = [
    "COUNTER_INTERVAL_S",
    "TOLERANCE_PCT",
    "Check",
    "counted_bps",
    "counted_peak",
    "number",
    "testbed",
    "with_note",
]

#: How often Windows' counters are sampled where a source read them (perfmon's default sample interval and
#: Task Manager's update speed "Normal": one second); each sample is the mean rate over its interval.
COUNTER_INTERVAL_S = 1.0

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
    #: A number's reported value (the middle of a range), and the range where the source gave one: what a
    #: fit of the calibration aims at (`hvnet.validate.fit`). None for a figure in words.
    target: float | None = None
    low: float | None = None
    high: float | None = None

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
    explained = inside or abs(error) <= TOLERANCE_PCT
    return Check(id, figure, shown, round(predicted, 3), round(error, 2), explained, "", reported, low, high)


def testbed(name: str) -> Scenario:
    """A built-in scenario of a testbed as reported (`examples/validation/`), by its file name."""
    text = resources.files("hvnet.examples").joinpath("validation").joinpath(name).read_text()
    return parse_scenario(text, f"validation/{name}")


def with_note(check: Check, note: str) -> Check:
    """The check, saying `note` (why it misses, or what it rests on)."""
    return dataclasses.replace(check, note=note)


def counted_bps(line_bps: float, mtu: int) -> float:
    """What Windows' counters (Task Manager's NIC graph, perfmon's Bytes Sent/sec) show of a NIC that sends
    full-size frames at `line_bps` of line time: each frame's bytes with its Ethernet header, without the
    preamble, the gap and the FCS (so 1 GbE at MTU 1500 reads at most 123.0 MB/s, 98.4 %)."""
    counted = mtu + frames.ETHERNET_HEADER_BYTES
    return line_bps * counted / (mtu + frames.FRAME_OVERHEAD_BYTES)


def counted_peak(series: Series, end_s: float, interval_s: float = COUNTER_INTERVAL_S) -> float:
    """The most a counter sampled every `interval_s` reads of `series` (each sample the mean over its
    interval), whatever the samples' phase: the highest mean over any window of that length within the
    run. A burst shorter than the interval reads as its bytes spread over the whole interval. The mean over
    a window is highest with an edge at a change point, so only those windows are tried."""
    if end_s <= interval_s:
        return series.integral(0.0, end_s) / interval_s
    starts = {min(max(t + shift, 0.0), end_s - interval_s) for t in series.t_s for shift in (0.0, -interval_s)}
    return max((series.integral(a, a + interval_s) / interval_s for a in starts), default=0.0)
