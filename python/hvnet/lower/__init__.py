"""Scenario (+ calibration) -> the engine's specs, once per run."""
