"""The scenario model: a cluster design, validated and typed, and how to load it.

    from hvnet.model import load_scenario
    scenario = load_scenario("cluster.yaml")     # ScenarioError lists every problem
    scenario.host("hv1").nic("nic1").speed       # 10000000000.0 (bits per second)
"""

from hvnet.model.loader import describe_value, load_scenario, load_yaml, parse_scenario, plain_data, scenario_from_data
from hvnet.model.scenario import (
    VM,
    AddressHash,
    Cable,
    Cpu,
    Event,
    EventAction,
    Flow,
    Host,
    LiveMigration,
    LoadBalancing,
    MigrationOption,
    Nic,
    Placement,
    PowerPlan,
    Scenario,
    Switch,
    Team,
    TeamingMode,
    TeamKind,
    VirtualSwitch,
    VmTeam,
    scenario_json_schema,
    split_endpoint,
)

__all__ = [
    "VM",
    "AddressHash",
    "Cable",
    "Cpu",
    "Event",
    "EventAction",
    "Flow",
    "Host",
    "LiveMigration",
    "LoadBalancing",
    "MigrationOption",
    "Nic",
    "Placement",
    "PowerPlan",
    "Scenario",
    "Switch",
    "Team",
    "TeamKind",
    "TeamingMode",
    "VirtualSwitch",
    "VmTeam",
    "describe_value",
    "load_scenario",
    "load_yaml",
    "parse_scenario",
    "plain_data",
    "scenario_from_data",
    "scenario_json_schema",
    "split_endpoint",
]
