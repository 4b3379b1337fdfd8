"""hvnet: a digital twin of a Hyper-V cluster's network.

    >>> import hvnet
    >>> scenario = hvnet.load_scenario("cluster.yaml")
    >>> results = hvnet.simulate(scenario)
"""

from hvnet._version import __version__
from hvnet.errors import HvnetError, InputError, Problem, ScenarioError, UnitError
from hvnet.model import Scenario, load_scenario, parse_scenario, scenario_json_schema
from hvnet.results import Results
from hvnet.simulate import simulate

__all__ = [
    "HvnetError",
    "InputError",
    "Problem",
    "Results",
    "Scenario",
    "ScenarioError",
    "UnitError",
    "__version__",
    "load_scenario",
    "parse_scenario",
    "scenario_json_schema",
    "simulate",
]
