"""The scenario model: valid files load into typed, immutable objects in internal units.

Errors have their own files (test_errors.py, test_field_errors.py,
test_cross_reference_errors.py); this one checks what a valid scenario
becomes, the lookups the simulator uses, the JSON Schema, and that the
failover example and the documented examples stay valid.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from types import ModuleType

import pydantic
import pytest

import hvnet.errors
import hvnet.model
import hvnet.model.demand
import hvnet.model.enums
import hvnet.model.fabric
import hvnet.model.fields
import hvnet.model.hosts
import hvnet.model.loader
import hvnet.model.requirements
import hvnet.model.scenario
import hvnet.model.workload
import hvnet.units
from hvnet.model import (
    AddressHash,
    EventAction,
    LoadBalancing,
    PowerPlan,
    Scenario,
    TeamingMode,
    TeamKind,
    load_scenario,
    parse_scenario,
    scenario_from_data,
    scenario_json_schema,
)
from hvnet.units import format_bitrate, format_bytes

ROOT = Path(__file__).parents[2]
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
GiB = 2**30


@pytest.fixture(scope="module")
def failover() -> Scenario:
    return load_scenario(FAILOVER)


def test_the_failover_example_is_the_calibration_testbed(failover: Scenario) -> None:
    """Two R720 hosts, two 10 GbE RDMA NICs with jumbo frames in an LBFO team each, one S4810."""
    assert [host.name for host in failover.hosts] == ["hv1", "hv2"]
    for host in failover.hosts:
        assert (host.cpu.sockets, host.cpu.cores_per_socket, host.cpu.smt) == (2, 8, True)
        assert [(nic.speed, nic.mtu, nic.rdma) for nic in host.nics] == [(10e9, 9000, True)] * 2
        (team,) = host.teams
        assert (team.kind, team.mode, team.load_balancing) == (
            TeamKind.LBFO,
            TeamingMode.SWITCH_INDEPENDENT,
            LoadBalancing.DYNAMIC,
        )
        assert team.members == ("nic1", "nic2")
        assert host.vswitches[0].uplink == team.name
    (switch,) = failover.switches
    assert (switch.name, switch.ports, switch.backplane) == ("s4810", 48, None)
    assert len(failover.cables) == 4
    assert failover.vm("vm-big").memory == 55 * GiB and failover.vm("vm-big").vcpus == 4
    small = [vm for vm in failover.vms if vm.name != "vm-big"]
    assert len(small) == 6 and all(vm.memory == 9 * GiB and vm.host == "hv1" for vm in small)
    assert [(f.src, f.dst, f.size, f.connections) for f in failover.traffic] == [
        ("hv1", "hv2", 20 * 10**9, 1),
        ("hv1", "hv2", 20 * 10**9, 1),
        ("hv2", "hv1", 5 * 10**9, 1),
    ]
    assert [(e.at, e.action, e.target) for e in failover.events] == [
        (5.0, EventAction.NIC_DOWN, "hv1/nic2"),
        (12.0, EventAction.NIC_UP, "hv1/nic2"),
    ]


MINIMAL = """\
name: minimal
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 1Gbps}
    teams:
      - {name: t1, members: [nic1]}
"""


def test_defaults_fill_what_the_file_leaves_out() -> None:
    """The defaults documented in docs/scenario.md."""
    scenario = parse_scenario(MINIMAL)
    host = scenario.host("hv1")
    assert (host.cpu.sockets, host.cpu.cores_per_socket, host.cpu.ghz, host.cpu.smt) == (1, 8, 2.5, True)
    assert host.cpu.cores == 8
    assert host.power_plan is PowerPlan.BALANCED
    nic = host.nic("nic1")
    assert (nic.mtu, nic.rss_queues, nic.rdma, nic.vmq) == (1500, 8, False, True)
    team = host.team("t1")
    assert (team.kind, team.standby, team.mode, team.load_balancing, team.address_hash) == (
        TeamKind.LBFO,
        None,
        TeamingMode.SWITCH_INDEPENDENT,
        LoadBalancing.DYNAMIC,
        AddressHash.TRANSPORT_PORTS,
    )
    assert scenario.description == ""
    for optional in (scenario.switches, scenario.cables, scenario.vms, scenario.traffic, scenario.events):
        assert optional == ()


def test_lookups(failover: Scenario) -> None:
    """The simulator finds things by name; a VM's traffic leaves from its host."""
    assert failover.host("hv2").name == "hv2"
    assert failover.switch("s4810").port_speed == 10e9
    assert failover.endpoint_host("vm-3").name == "hv1"
    assert failover.endpoint_host("hv2").name == "hv2"
    assert failover.host("hv1").team("team1").members == ("nic1", "nic2")
    assert failover.host("hv1").vswitch("vSwitch").uplink == "team1"
    for lookup in (
        failover.host,
        failover.vm,
        failover.switch,
        failover.endpoint_host,
        failover.host("hv1").nic,
        failover.host("hv1").team,
    ):
        with pytest.raises(KeyError):
            lookup("nope")


def test_cable_speed_is_the_lowest_given() -> None:
    """A 10 GbE NIC in a 1 GbE port runs at 1 Gbps; a back-to-back cable at its NICs' speed;
    a switch-to-switch cable at its own speed."""
    scenario = parse_scenario(
        textwrap.dedent(
            """\
            name: speeds
            hosts:
              - {name: hv1, nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 25Gbps}]}
              - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
            switches:
              - {name: access, port_speed: 1Gbps}
              - {name: spine}
            cables:
              - {a: hv1/nic1, b: access/1}
              - {a: hv1/nic2, b: hv2/nic1}
              - {a: access/48, b: spine/1, speed: 40Gbps}
            """
        )
    )
    assert [scenario.cable_speed(cable) for cable in scenario.cables] == [1e9, 10e9, 1e9]


def test_models_are_immutable_and_hashable(failover: Scenario) -> None:
    with pytest.raises(pydantic.ValidationError):
        failover.host("hv1").nic("nic1").mtu = 1500  # type: ignore[misc]
    assert hash(failover) == hash(load_scenario(FAILOVER))


def test_a_dump_loads_back_unchanged(failover: Scenario) -> None:
    """Dumps write quantities with units and use the file's field names (from/to)."""
    data = failover.model_dump()
    assert data["traffic"][0]["from"] == "hv1" and data["traffic"][0]["size"] == "20 GB"
    assert data["hosts"][0]["nics"][0]["speed"] == "10 Gbps"
    assert data["vms"][0]["memory"] == "55 GiB"
    assert scenario_from_data(data) == failover
    assert scenario_from_data(failover.model_dump(mode="json")) == failover


def test_python_code_builds_scenarios_with_unit_strings() -> None:
    """Python code writes quantities as text, e.g. with the format helpers."""
    scenario = scenario_from_data(
        {
            "name": "built",
            "hosts": [{"name": f"hv{i}", "nics": [{"name": "nic1", "speed": format_bitrate(25e9)}]} for i in (1, 2)],
            "cables": [{"a": "hv1/nic1", "b": "hv2/nic1"}],
            "traffic": [{"from": "hv1", "to": "hv2", "size": format_bytes(3 * GiB)}],
        }
    )
    assert scenario.traffic[0].size == 3 * GiB
    assert scenario.cable_speed(scenario.cables[0]) == 25e9


def test_json_schema_describes_the_file_format() -> None:
    schema = scenario_json_schema()
    assert schema["$id"] == "urn:hvnet:scenario"
    assert schema["title"] == "hvnet scenario"
    assert schema["required"] == ["name", "hosts"]
    assert schema["$defs"]["Host"]["additionalProperties"] is False
    assert set(schema["$defs"]["Flow"]["required"]) == {"from", "to"}
    # a transfer of a size, or a steady flow at a rate for a duration
    assert [branch["required"] for branch in schema["$defs"]["Flow"]["oneOf"]] == [
        ["size"],
        ["rate", "duration"],
        ["rates"],
    ]
    assert schema["$defs"]["Nic"]["properties"]["speed"]["examples"][0] == "10Gbps"


def test_json_schema_accepts_the_example_and_refuses_an_unknown_field(failover: Scenario) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(scenario_json_schema())
    data = failover.model_dump(mode="json")
    assert list(validator.iter_errors(data)) == []
    data["hosts"][0]["nicss"] = []
    assert list(validator.iter_errors(data)) != []


def _yaml_blocks(markdown: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", markdown.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_documented_examples_load() -> None:
    """docs/scenario.md's worked examples are valid scenarios (the docs cannot rot)."""
    blocks = _yaml_blocks(ROOT / "docs" / "scenario.md")
    assert len(blocks) == 3
    names = [parse_scenario(block, "docs/scenario.md").name for block in blocks]
    assert names == ["Two-node cluster", "Star of four", "Back-to-back with a failure"]


#: The modules the scenario model is made of (hvnet.model.scenario re-exports their names).
MODEL_MODULES = [
    hvnet.model.scenario,
    hvnet.model.fields,
    hvnet.model.enums,
    hvnet.model.hosts,
    hvnet.model.fabric,
    hvnet.model.workload,
    hvnet.model.requirements,
    hvnet.model.demand,
]


@pytest.mark.parametrize("module", [hvnet.units, hvnet.errors, *MODEL_MODULES, hvnet.model.loader])
def test_all_lists_the_public_names(module: ModuleType) -> None:
    """__all__ names exist, and every public class or function defined in the module is listed."""
    exported = set(module.__all__)
    assert all(hasattr(module, name) for name in exported)
    defined_here = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    }
    assert defined_here <= exported


def test_the_model_package_re_exports_its_modules() -> None:
    assert set(hvnet.model.__all__) == set(hvnet.model.scenario.__all__) | set(hvnet.model.loader.__all__)
    assert all(hasattr(hvnet.model, name) for name in hvnet.model.__all__)


def test_a_copy_with_other_hosts_finds_its_own_hosts_by_name() -> None:
    """Lookups by name are indexed; a copy with other hosts must not answer from the original's index."""
    scenario = parse_scenario("name: x\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]\n")
    assert scenario.host("hv1").name == "hv1"
    renamed = scenario.model_copy(update={"hosts": (scenario.hosts[0].model_copy(update={"name": "hv9"}),)})
    assert renamed.host("hv9").name == "hv9"
    with pytest.raises(KeyError, match="no host named 'hv1'"):
        renamed.host("hv1")


def test_docs_name_every_field_a_scenario_accepts() -> None:
    """docs/scenario.md has a table for each model that lists every one of its fields (issue 16: fields were
    accepted but undocumented). Per table, not over the whole page: a VM's `mtu` is not documented by a NIC's."""
    doc = (Path(__file__).parents[2] / "docs" / "scenario.md").read_text()
    tables = [
        {
            name.strip().strip("`")
            for row in re.findall(r"^\| `([^|]*)` \|", table, flags=re.MULTILINE)
            for name in row.split(",")
        }
        for table in re.split(r"\n(?!\|)", doc)
    ]
    missing = []
    models = [
        model
        for module in MODEL_MODULES
        for model in vars(module).values()
        if isinstance(model, type) and issubclass(model, pydantic.BaseModel) and model.__module__ == module.__name__
    ]
    assert len(models) >= 20  # Scenario, Host, Nic, Team, VM, Event...: every model of the package
    for model in models:
        fields = {info.alias or field for field, info in model.model_fields.items()}
        if fields and not any(fields <= table for table in tables):
            best = max(tables, key=lambda table: len(fields & table))
            missing.append(f"{model.__name__}: {sorted(fields - best)}")
    assert missing == []


def test_every_character_a_name_cannot_hold_is_one_python_calls_unprintable() -> None:
    """Names skip the per-character scan when `str.isprintable()` (fields._hidden_character): sound only if
    no character of the refused categories is printable. Checked over every code point."""
    import sys
    import unicodedata

    from hvnet.model.fields import _HIDDEN_CATEGORIES

    printable = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in _HIDDEN_CATEGORIES and chr(code).isprintable()
    ]
    assert printable == []
