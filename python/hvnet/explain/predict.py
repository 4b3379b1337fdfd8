"""Predicting a re-created test, and the band the model's uncertainty allows around it.

The prediction is `hvnet.ntttcp.run_ntttcp` on the scenario: N threads (iperf3:
streams), each one TCP connection from the sender to the receiver, for the
measured time. Its throughput is payload bits per second received.

**The uncertainty band** (the rule `within` uses): the prediction is run three
times, with the calibration as shipped, and with every CPU cost parameter
whose stated uncertainty is ``±N %`` (docs/model.md, "Every parameter":
cycles per byte, per packet and per segment, host and guest) moved together
to the cheap end and to the costly end of its range. The band runs from the
lowest of those predictions to the highest, and is never narrower than
±15 % of the prediction: the tolerance within which `hvnet validate` counts a
public figure as explained. A test that a link bounds (not a core) gets the
±15 %; a test a core bounds gets the wider of the two.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from hvnet.calibration import Calibration, CpuParameters
from hvnet.explain.recreate import Test
from hvnet.model import Scenario
from hvnet.ntttcp import NtttcpResult, run_ntttcp
from hvnet.validate import TOLERANCE_PCT

__all__ = ["Band", "Prediction", "band_of", "predict", "scaled_costs"]

_PERCENT = re.compile(r"±\s*(\d+(?:\.\d+)?)\s*%")


@dataclass(frozen=True)
class Prediction:
    """What hvnet predicts the test measures."""

    throughput_bps: float
    thread_bps: tuple[float, ...]
    cpu_percent: float
    cycles_per_byte: float
    avg_frame_bytes: float

    @classmethod
    def of(cls, result: NtttcpResult) -> Prediction:
        return cls(
            throughput_bps=8 * result.total_bytes / result.seconds,
            thread_bps=tuple(8 * b / result.seconds for b in result.thread_bytes),
            cpu_percent=result.cpu_percent,
            cycles_per_byte=result.cycles_per_byte,
            avg_frame_bytes=result.avg_frame_bytes,
        )


@dataclass(frozen=True)
class Band:
    """The throughput the model's stated uncertainty allows: low to high, bits/s."""

    low_bps: float
    high_bps: float
    rule: str

    def holds(self, value: float) -> bool:
        return self.low_bps <= value <= self.high_bps

    def relative(self, predicted: float) -> tuple[float, float]:
        """The band as factors of the prediction (0.85, 1.15)."""
        return (self.low_bps / predicted, self.high_bps / predicted) if predicted else (1.0, 1.0)


def predict(scenario: Scenario, test: Test, calibration: Calibration | None = None) -> Prediction:
    result = run_ntttcp(
        scenario, test.sender, test.receiver, test.threads, test.seconds, test.buffer_bytes, calibration
    )
    return Prediction.of(result)


def scaled_costs(calibration: Calibration, direction: int) -> Calibration:
    """The calibration with every ``±N %`` CPU cost moved to its low (-1) or high (+1) end."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(CpuParameters):
        value = getattr(calibration.cpu, f.name)
        match = _PERCENT.search(str(f.metadata.get("uncertainty", "")))
        if match and isinstance(value, float) and "cycles" in f.name:
            changes[f.name] = value * (1 + direction * float(match.group(1)) / 100)
    return dataclasses.replace(calibration, cpu=dataclasses.replace(calibration.cpu, **changes))


def band_of(scenario: Scenario, test: Test, predicted: Prediction, calibration: Calibration | None = None) -> Band:
    """The band around ``predicted`` (see the module's rule)."""
    calibration = calibration or Calibration()
    runs = [predicted.throughput_bps]
    for direction in (-1, 1):
        runs.append(predict(scenario, test, scaled_costs(calibration, direction)).throughput_bps)
    tolerance = TOLERANCE_PCT / 100
    low = min(*runs, predicted.throughput_bps * (1 - tolerance))
    high = max(*runs, predicted.throughput_bps * (1 + tolerance))
    cost_bound = max(runs) - min(runs) > 1e-6 * predicted.throughput_bps
    rule = (
        f"CPU costs at the ends of their stated ±15/±50 % ranges give {min(runs) / 1e6:.0f}-{max(runs) / 1e6:.0f} "
        "Mbps; "
        f"never narrower than ±{TOLERANCE_PCT:g} % (hvnet validate's tolerance)"
        if cost_bound
        else f"±{TOLERANCE_PCT:g} % (hvnet validate's tolerance; a link bounds this test, so the CPU costs' "
        "uncertainty does not move it)"
    )
    return Band(low, high, rule)
