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

from hvnet._version import __version__
from hvnet.calibration import Calibration
from hvnet.errors import HvnetError, InputError, Problem, ScenarioError, UnitError
from hvnet.model import Scenario, load_scenario, parse_scenario, scenario_json_schema
from hvnet.model import load_scenario as load
from hvnet.results import Results
from hvnet.simulate import simulate

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
