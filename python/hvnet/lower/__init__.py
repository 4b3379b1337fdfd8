"""Scenario (+ calibration) -> the core's spec, once per run: `lower(scenario, calibration) -> Lowered`
(`lowering.py`)."""

from hvnet.lower.lowering import Lowered, lower, traffic_requests

__all__ = ["Lowered", "lower", "traffic_requests"]
