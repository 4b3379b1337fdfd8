"""`hvnet explain`: a real measurement beside the twin's prediction of it, and what would explain a gap.

    from hvnet.explain import explain
    explanation = explain(scenario, read_measurement(path), sender="vm1", receiver="vm2")

By job (docs/import.md, "Explain"):

- ``recreate``: the measured test as hvnet runs it again (endpoints, threads, duration);
- ``predict``: its prediction (`hvnet.ntttcp.run_ntttcp`) and the uncertainty band;
- ``counterfactuals``: the named single changes, made with the variants' paths;
- ``counters``: counter logs beside a simulation, per NIC and per core;
- ``explain``: all of it for a list of measurements, and the verdict;
- ``show``: the terminal tables and the JSON document.
"""

from hvnet.explain.counterfactuals import COUNTERFACTUALS
from hvnet.explain.explain import NO_SINGLE_CHANGE, Explanation, TestExplanation, explain, no_change_explains
from hvnet.explain.show import explanation_document

__all__ = [
    "COUNTERFACTUALS",
    "NO_SINGLE_CHANGE",
    "Explanation",
    "TestExplanation",
    "explain",
    "explanation_document",
    "no_change_explains",
]
