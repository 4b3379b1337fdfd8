"""Measured beside predicted: each figure of a test, the gap, and whether the model's uncertainty covers it.

The figures (docs/import.md, "Explain"), each with its band:

- ``throughput``: the band of `predict.band_of`;
- ``slowest thread``, ``fastest thread`` (two threads or more): ±15 % of the prediction;
- ``thread spread``: (fastest − slowest) / mean, in per cent; ±15 points of the prediction;
- ``average frame``: ±15 %;
- from a receiver's file (the prediction's CPU figures are the receiver's): ``CPU`` and
  ``cycles/byte``, ±15 %;
- ``retransmits``: the twin moves every byte once (it models no loss), so it predicts 0
  and any retransmit is outside.

`differences` orders the figures outside their band by the size of their gap, and
`main_difference` is the largest of those that are not the throughput restated (the
throughput, its threads and their spread).
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.explain.predict import Band, Prediction
from hvnet.importers.measurement import Measurement
from hvnet.validate import TOLERANCE_PCT

__all__ = ["RESTATED", "Figure", "differences", "figures", "main_difference", "spread_pct"]

#: Figures that restate the throughput: they are differences, but not a cause beside it.
RESTATED = ("throughput", "slowest thread", "fastest thread", "thread spread")


@dataclass(frozen=True)
class Figure:
    """One figure of a test: measured, predicted, the gap, and whether the model's uncertainty covers it."""

    name: str
    unit: str
    measured: float
    predicted: float
    low: float
    high: float

    @property
    def gap(self) -> float:
        """Measured less predicted, in the figure's unit (negative: the measurement is below the twin)."""
        return self.measured - self.predicted

    @property
    def gap_pct(self) -> float | None:
        """The gap over the prediction, in per cent (None when the prediction is 0)."""
        return None if self.predicted == 0 else 100.0 * self.gap / self.predicted

    @property
    def within(self) -> bool:
        return self.low <= self.measured <= self.high


def spread_pct(rates: list[float] | tuple[float, ...]) -> float:
    """(fastest − slowest) / mean, in per cent; 0 for fewer than two or no rate."""
    mean = sum(rates) / len(rates) if rates else 0.0
    return 100.0 * (max(rates) - min(rates)) / mean if len(rates) > 1 and mean > 0 else 0.0


def figures(measurement: Measurement, predicted: Prediction, band: Band) -> list[Figure]:
    """The test's figures, throughput first (see the module's list)."""
    assert measurement.throughput_bps is not None
    out = [
        Figure(
            "throughput", "bits/s", measurement.throughput_bps, predicted.throughput_bps, band.low_bps, band.high_bps
        )
    ]
    tolerance = TOLERANCE_PCT / 100

    def add(name: str, unit: str, measured: float | None, value: float) -> None:
        if measured is not None:
            out.append(Figure(name, unit, measured, value, value * (1 - tolerance), value * (1 + tolerance)))

    threads = [s.throughput_bps for s in measurement.streams]
    if len(threads) > 1 and predicted.thread_bps:
        add("slowest thread", "bits/s", min(threads), min(predicted.thread_bps))
        add("fastest thread", "bits/s", max(threads), max(predicted.thread_bps))
        spread = spread_pct(predicted.thread_bps)
        out.append(
            Figure(
                "thread spread",
                "percent",
                spread_pct(threads),
                spread,
                max(0.0, spread - TOLERANCE_PCT),
                spread + TOLERANCE_PCT,
            )
        )
    add("average frame", "bytes", measurement.extra.get("avg_frame_size_bytes"), predicted.avg_frame_bytes)
    if measurement.role == "receiver":  # the prediction's CPU figures are the receiver's
        add("CPU", "percent", measurement.cpu_percent, predicted.cpu_percent)
        add("cycles/byte", "cycles/byte", measurement.extra.get("cycles_per_byte"), predicted.cycles_per_byte)
    if measurement.retransmits is not None:
        out.append(Figure("retransmits", "count", float(measurement.retransmits), 0.0, 0.0, 0.0))
    return out


def differences(found: list[Figure]) -> list[Figure]:
    """The figures outside their band, the largest gap (in per cent of the prediction) first; those
    with no per cent (a prediction of 0) after them, in their order."""
    outside = [f for f in found if not f.within]
    return sorted(outside, key=lambda f: (f.gap_pct is None, -abs(f.gap_pct or 0.0)))


def main_difference(found: list[Figure]) -> Figure | None:
    """The largest difference that is not the throughput restated; None when there is none."""
    return next((f for f in differences(found) if f.name not in RESTATED and f.gap_pct is not None), None)
