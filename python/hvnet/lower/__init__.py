"""Scenario -> engine specs."""
