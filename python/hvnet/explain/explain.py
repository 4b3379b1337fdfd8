"""`hvnet explain`: a measurement beside the twin's prediction of it, and which single change would explain a gap.

For a test (NTttcp, iperf3): re-create it (`recreate`), predict it
(`predict`), compare throughput (and, from a receiver's file, CPU %,
cycles/byte and frame size), and when the measured throughput is outside the
model's uncertainty band, run every counterfactual (`counterfactuals`) and rank
them by the gap each leaves. A change *explains* the measurement when the
measurement falls inside the changed scenario's band (the same rule, scaled
to its prediction). For a counter log: `counters`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hvnet.calibration import Calibration
from hvnet.errors import InputError
from hvnet.explain.counterfactuals import COUNTERFACTUALS, apply_change
from hvnet.explain.counters import CounterComparison, compare_counters
from hvnet.explain.predict import Band, Prediction, band_of, predict
from hvnet.explain.recreate import COUNTER_FORMATS, SNAPSHOT_FORMATS, TEST_FORMATS, Test, recreate_test
from hvnet.importers.measurement import Measurement
from hvnet.model import Scenario
from hvnet.validate import TOLERANCE_PCT

__all__ = ["Explanation", "Figure", "Ranked", "TestExplanation", "explain", "no_change_explains"]

NO_SINGLE_CHANGE = "no single change explains the measurement"


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
        """The gap over the prediction, in per cent."""
        return None if self.predicted == 0 else 100.0 * self.gap / self.predicted

    @property
    def within(self) -> bool:
        return self.low <= self.measured <= self.high


@dataclass(frozen=True)
class Ranked:
    """One counterfactual's outcome."""

    name: str
    description: str
    predicted_bps: float | None
    #: Measured less the changed scenario's prediction (bits/s), and over that prediction (%); None when skipped.
    remaining_gap_bps: float | None
    remaining_gap_pct: float | None
    explains: bool
    skipped: str = ""


@dataclass
class TestExplanation:
    file: str
    format: str
    role: str | None
    test: Test
    band: Band
    figures: list[Figure]
    counterfactuals: list[Ranked] = field(default_factory=list)
    verdict: str = ""

    @property
    def throughput(self) -> Figure:
        return self.figures[0]


@dataclass
class Explanation:
    scenario: str
    tests: list[TestExplanation] = field(default_factory=list)
    counters: list[CounterComparison] = field(default_factory=list)


def _figures(measurement: Measurement, predicted: Prediction, band: Band) -> list[Figure]:
    assert measurement.throughput_bps is not None
    figures = [
        Figure(
            "throughput", "bits/s", measurement.throughput_bps, predicted.throughput_bps, band.low_bps, band.high_bps
        )
    ]
    tolerance = TOLERANCE_PCT / 100

    def add(name: str, unit: str, measured: float | None, value: float) -> None:
        if measured is not None:
            figures.append(Figure(name, unit, measured, value, value * (1 - tolerance), value * (1 + tolerance)))

    if len(measurement.streams) > 1 and predicted.thread_bps:
        add("slowest thread", "bits/s", min(s.throughput_bps for s in measurement.streams), min(predicted.thread_bps))
        add("fastest thread", "bits/s", max(s.throughput_bps for s in measurement.streams), max(predicted.thread_bps))
    add("average frame", "bytes", measurement.extra.get("avg_frame_size_bytes"), predicted.avg_frame_bytes)
    if measurement.role == "receiver":  # the prediction's CPU figures are the receiver's
        add("CPU", "percent", measurement.cpu_percent, predicted.cpu_percent)
        add("cycles/byte", "cycles/byte", measurement.extra.get("cycles_per_byte"), predicted.cycles_per_byte)
    return figures


def _rank(
    scenario: Scenario, test: Test, measured: float, base: float, band: Band, calibration: Calibration
) -> list[Ranked]:
    """Every counterfactual, closest to the measurement first; those that do not apply last."""
    low, high = band.relative(base)
    ranked: list[Ranked] = []
    skipped: list[Ranked] = []
    for counterfactual in COUNTERFACTUALS:
        change = apply_change(scenario, counterfactual)
        if change.scenario is None:
            skipped.append(Ranked(change.name, change.description, None, None, None, False, change.skipped))
            continue
        try:
            predicted = predict(change.scenario, test, calibration).throughput_bps
        except InputError as error:  # the change leaves the receiver unreachable
            skipped.append(Ranked(change.name, change.description, None, None, None, False, error.problem.message))
            continue
        gap = measured - predicted
        explains = predicted * low <= measured <= predicted * high
        ranked.append(
            Ranked(
                change.name,
                change.description,
                predicted,
                gap,
                100.0 * gap / predicted if predicted else None,
                explains,
            )
        )
    ranked.sort(key=lambda r: (abs(r.remaining_gap_bps or 0.0), r.name))
    return ranked + skipped


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:,.1f} Mbps"


def _verdict(figure: Figure, ranked: Sequence[Ranked]) -> str:
    if figure.within:
        return (
            f"The measured {_mbps(figure.measured)} is within the model's uncertainty of the predicted "
            f"{_mbps(figure.predicted)}: the twin agrees with the measurement, nothing to explain."
        )
    direction = "below" if figure.measured < figure.predicted else "above"
    head = (
        f"The measured {_mbps(figure.measured)} is {direction} the predicted {_mbps(figure.predicted)}, "
        "outside the model's uncertainty."
    )
    tried = [r for r in ranked if r.predicted_bps is not None]
    explaining = [r for r in tried if r.explains]
    if explaining:
        best = explaining[0]
        assert best.predicted_bps is not None and best.remaining_gap_pct is not None
        text = (
            f"{head} {best.name} ({best.description}) explains it: it predicts {_mbps(best.predicted_bps)}, "
            f"the measurement is {best.remaining_gap_pct:+.1f} % from that."
        )
        if len(explaining) > 1:
            text += f" So would: {', '.join(r.name for r in explaining[1:])}."
        return text
    if tried and tried[0].remaining_gap_pct is not None:
        closest = tried[0]
        return (
            f"{head} {NO_SINGLE_CHANGE.capitalize()}: the closest, {closest.name}, predicts "
            f"{_mbps(closest.predicted_bps or 0.0)} and still leaves {closest.remaining_gap_pct:+.1f} %. Look for "
            "several differences at once, or one the twin does not model."
        )
    return f"{head} {NO_SINGLE_CHANGE.capitalize()}: no counterfactual applies to this scenario."


def no_change_explains(explanation: TestExplanation) -> bool:
    """True when the measurement is outside the band and no single change brings it inside."""
    return not explanation.throughput.within and not any(r.explains for r in explanation.counterfactuals)


def _explain_test(
    scenario: Scenario, measurement: Measurement, sender: str | None, receiver: str | None, calibration: Calibration
) -> tuple[TestExplanation, Prediction]:
    if measurement.throughput_bps is None or measurement.throughput_bps <= 0:
        raise InputError(measurement.file, None, "throughput_bps", "the file gives no total throughput to compare")
    test = recreate_test(scenario, measurement, sender, receiver)
    predicted = predict(scenario, test, calibration)
    band = band_of(scenario, test, predicted, calibration)
    figures = _figures(measurement, predicted, band)
    result = TestExplanation(measurement.file, measurement.format, measurement.role, test, band, figures)
    if not figures[0].within:
        result.counterfactuals = _rank(scenario, test, figures[0].measured, predicted.throughput_bps, band, calibration)
    result.verdict = _verdict(figures[0], result.counterfactuals)
    return result, predicted


def explain(
    scenario: Scenario,
    measurements: Sequence[Measurement],
    sender: str | None = None,
    receiver: str | None = None,
    calibration: Calibration | None = None,
) -> Explanation:
    """Each measurement beside the twin; InputError (one line) for a measurement explain cannot use."""
    calibration = calibration or Calibration()
    for m in measurements:
        if m.format in SNAPSHOT_FORMATS:
            raise InputError(
                m.file,
                None,
                "format",
                f"{m.format} is a snapshot of cumulative counters, one moment with no window; explain needs a test "
                f"({', '.join(TEST_FORMATS)}) or a counter log ({', '.join(COUNTER_FORMATS)})",
            )
        if m.format not in TEST_FORMATS and m.format not in COUNTER_FORMATS:
            raise InputError(
                m.file,
                None,
                "format",
                f"explain cannot use {m.format}; it reads {', '.join(TEST_FORMATS + COUNTER_FORMATS)}",
            )
    explanation = Explanation(scenario.name)
    first: tuple[Test, Prediction] | None = None
    for m in measurements:
        if m.format in TEST_FORMATS:
            result, predicted = _explain_test(scenario, m, sender, receiver, calibration)
            explanation.tests.append(result)
            first = first or (result.test, predicted)
    for m in measurements:
        if m.format in COUNTER_FORMATS:
            explanation.counters.append(
                compare_counters(scenario, m, first[0], first[1]) if first else compare_counters(scenario, m)
            )
    return explanation
