"""hvnet: a digital twin of a Hyper-V cluster's network.

    >>> import hvnet
    >>> scenario = hvnet.load("python/hvnet/examples/failover.yaml")
    >>> results = hvnet.simulate(scenario)
    >>> [(t.name, round(t.end_s, 1)) for t in results.traffic]
    [('copy-1', 32.3), ('copy-2', 32.3), ('copy-back', 5.5)]

`load` reads and checks a scenario file (ScenarioError lists every problem,
with file, line and field); `simulate` runs it and returns `Results`, whose
fields carry their units in their names (docs/output.md). `Calibration`
holds every parameter of the models (docs/model.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hvnet._version import __version__
    from hvnet.calibration import Calibration
    from hvnet.errors import HvnetError, InputError, Problem, ScenarioError, UnitError
    from hvnet.model import Scenario, load_scenario, parse_scenario, scenario_json_schema
    from hvnet.model import load_scenario as load
    from hvnet.results import Results
    from hvnet.simulation import simulate

#: Where each public name lives: loaded on first use (PEP 562), so that `import hvnet.errors` or
#: `hvnet --help` does not load the model and the engine.
_HOMES = {
    "__version__": ("hvnet._version", "__version__"),
    "Calibration": ("hvnet.calibration", "Calibration"),
    "HvnetError": ("hvnet.errors", "HvnetError"),
    "InputError": ("hvnet.errors", "InputError"),
    "Problem": ("hvnet.errors", "Problem"),
    "ScenarioError": ("hvnet.errors", "ScenarioError"),
    "UnitError": ("hvnet.errors", "UnitError"),
    "Scenario": ("hvnet.model", "Scenario"),
    "load": ("hvnet.model", "load_scenario"),
    "load_scenario": ("hvnet.model", "load_scenario"),
    "parse_scenario": ("hvnet.model", "parse_scenario"),
    "scenario_json_schema": ("hvnet.model", "scenario_json_schema"),
    "Results": ("hvnet.results", "Results"),
    "simulate": ("hvnet.simulation", "simulate"),
}

__all__ = [
    "Calibration",
    "HvnetError",
    "InputError",
    "Problem",
    "Results",
    "Scenario",
    "ScenarioError",
    "UnitError",
    "__version__",
    "load",
    "load_scenario",
    "parse_scenario",
    "scenario_json_schema",
    "simulate",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its home the first time it is asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module 'hvnet' has no attribute {name!r}")
    module, attribute = _HOMES[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
