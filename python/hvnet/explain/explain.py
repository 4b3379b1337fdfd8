"""`hvnet explain`: a measurement beside the twin's prediction of it, what holds the prediction, and which
change (or two) would explain a gap.

For a test (NTttcp, iperf3): re-create it (`recreate`), predict it
(`predict`), find what holds the prediction (`bottleneck`: the resources on
the connections' path, how full and for how long, from a recorded run),
compare every figure the file gives (`evidence`: throughput, threads and their
spread, CPU %, cycles/byte, frame size, retransmits), and when the measured
throughput is outside the model's uncertainty band, run every counterfactual
(`counterfactuals`) and rank those that move the prediction by how much of
the gap each closes (`ranking`); when no single change explains the
measurement, every two at once. A change *explains* the measurement when the
measurement falls inside the changed scenario's band (the same rule, scaled
to its prediction). For a counter log: `counters`. The words: `sentences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hvnet.calibration import Calibration
from hvnet.errors import InputError
from hvnet.explain.bottleneck import Chain, bottleneck_chain
from hvnet.explain.counterfactuals import COST_CHANGE, Change, cost_change
from hvnet.explain.counters import CounterComparison, compare_counters
from hvnet.explain.evidence import Figure, figures, main_difference
from hvnet.explain.predict import Band, Prediction, band_of, predict
from hvnet.explain.ranking import Gap, Ranked, rank_pairs, rank_singles
from hvnet.explain.recreate import COUNTER_FORMATS, SNAPSHOT_FORMATS, TEST_FORMATS, Test, recreate_test
from hvnet.explain.sentences import (
    NO_SINGLE_CHANGE,
    chain_summary,
    counter_lines,
    evidence_lines,
    limit_phrase,
    verdict,
)
from hvnet.importers.measurement import Measurement
from hvnet.model import Scenario

__all__ = [
    "NO_SINGLE_CHANGE",
    "Explanation",
    "Figure",
    "Ranked",
    "TestExplanation",
    "explain",
    "no_change_explains",
]


@dataclass
class TestExplanation:
    file: str
    format: str
    role: str | None
    test: Test
    band: Band
    figures: list[Figure]
    #: What holds the prediction: the recorded run's resources on the test's path.
    chain: Chain | None = None
    #: `chain` in words.
    limit: str = ""
    #: Each difference with its size, the largest first (`sentences.evidence_lines`).
    evidence: list[str] = field(default_factory=list)
    #: The largest difference that is not the throughput restated (a figure's name), if any.
    main_difference: str | None = None
    #: Every change: those that move the prediction (most of the gap closed first), those that do not,
    #: those that do not apply.
    counterfactuals: list[Ranked] = field(default_factory=list)
    #: Two changes at once, when no single one explains the measurement (kept when both matter).
    pairs: list[Ranked] = field(default_factory=list)
    verdict: str = ""
    #: What the file gives over time and per thread, for the report's charts: each thread's rate
    #: (bits/s), and each interval's (start_s, end_s, bits/s) when the tool reports intervals (iperf3).
    measured_thread_bps: list[float] = field(default_factory=list)
    measured_intervals: list[tuple[float, float, float]] = field(default_factory=list)

    @property
    def throughput(self) -> Figure:
        return self.figures[0]


@dataclass
class Explanation:
    scenario: str
    tests: list[TestExplanation] = field(default_factory=list)
    counters: list[CounterComparison] = field(default_factory=list)


def _measured_costs(scenario: Scenario, found: list[Figure], calibration: Calibration) -> list[Change]:
    """The measurement's own counterfactual, when a receiver's file gives its cycles per byte."""
    cycles = next((f for f in found if f.name == "cycles/byte"), None)
    if cycles is None or cycles.predicted <= 0:
        return []
    if cycles.within:
        why = (
            f"the measured cycles/byte ({cycles.measured:.3f}) is within the model's band "
            f"({cycles.low:.3f}-{cycles.high:.3f})"
        )
        return [Change(COST_CHANGE, "every receive cost as the measured cycles/byte says", None, why, "costs")]
    return [cost_change(scenario, calibration, cycles.measured, cycles.predicted)]


def no_change_explains(explanation: TestExplanation) -> bool:
    """True when the measurement is outside the band and no single change brings it inside."""
    return not explanation.throughput.within and not any(r.explains for r in explanation.counterfactuals)


def _explain_test(
    scenario: Scenario,
    measurement: Measurement,
    sender: str | None,
    receiver: str | None,
    calibration: Calibration,
) -> tuple[TestExplanation, Prediction]:
    if measurement.throughput_bps is None or measurement.throughput_bps <= 0:
        raise InputError(measurement.file, None, "throughput_bps", "the file gives no total throughput to compare")
    test = recreate_test(scenario, measurement, sender, receiver)
    predicted = predict(scenario, test, calibration)
    band = band_of(scenario, test, predicted, calibration)
    found = figures(measurement, predicted, band)
    chain = bottleneck_chain(scenario, test, calibration)
    main = main_difference(found)
    result = TestExplanation(
        measurement.file,
        measurement.format,
        measurement.role,
        test,
        band,
        found,
        chain,
        chain_summary(chain, test),
        evidence_lines(found, measurement, test.seconds),
        None if main is None else main.name,
        measured_thread_bps=[t.throughput_bps for t in measurement.streams],
        measured_intervals=[(i.start_s, i.end_s, i.throughput_bps) for i in measurement.intervals if not i.omitted],
    )
    if not found[0].within:
        gap = Gap(test, found[0].measured, predicted.throughput_bps, band, calibration)
        result.counterfactuals, applied = rank_singles(scenario, gap, _measured_costs(scenario, found, calibration))
        if not any(r.explains for r in result.counterfactuals):
            result.pairs = rank_pairs(applied, result.counterfactuals, gap)
    result.verdict = verdict(found[0], result.counterfactuals, result.pairs, limit_phrase(chain), main)
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
    if explanation.tests:  # the counter logs ran beside the first test
        explanation.tests[0].evidence += counter_lines(explanation.counters)
    return explanation
