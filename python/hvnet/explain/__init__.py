"""`hvnet explain`: a real measurement beside the twin's prediction of it, what holds the prediction, and
what would explain a gap.

    from hvnet.explain import explain
    explanation = explain(scenario, read_measurement(path), sender="vm1", receiver="vm2")

By job (docs/import.md, "Explain"):

- ``recreate``: the measured test as hvnet runs it again (endpoints, threads, duration);
- ``predict``: its prediction (`hvnet.ntttcp.run_ntttcp`) and the uncertainty band;
- ``bottleneck``: what holds the prediction, from a recorded run of the test: each resource
  on its path, how full and for how long;
- ``evidence``: every figure the file gives beside the prediction, and the differences;
- ``counterfactuals``: the named changes, made with the variants' paths, and the
  measurement's own (its cycles per byte);
- ``ranking``: the changes that move the prediction, by how much of the gap each closes; pairs;
- ``counters``: counter logs beside a simulation, per NIC and per core;
- ``explain``: all of it for a list of measurements; ``sentences``: the words and the verdict;
- ``show``: the terminal and the JSON document; ``report`` and ``charts``: the HTML page.
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
