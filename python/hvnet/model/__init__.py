"""The scenario model: a cluster design, validated and typed, and how to load it.

from hvnet.model import load_scenario
scenario = load_scenario("cluster.yaml")     # ScenarioError lists every problem
scenario.host("hv1").nic("nic1").speed       # 10000000000.0 (bits per second)
"""

from hvnet.model import scenario
from hvnet.model.loader import (
    describe_value,
    key_part,
    load_scenario,
    load_yaml,
    parse_scenario,
    plain_data,
    scenario_from_data,
)
from hvnet.model.scenario import *  # noqa: F403 (the classes of the model: scenario.__all__)

__all__ = [
    "describe_value",
    "key_part",
    "load_scenario",
    "load_yaml",
    "parse_scenario",
    "plain_data",
    "scenario_from_data",
]
__all__ += scenario.__all__
