"""Variants of a design: axes, their product and names, their errors (one clear line each), the JSON
schema's axes and the documented examples.

The metrics of each variant and `hvnet compare` are test_compare.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hvnet import ScenarioError, load_scenario
from hvnet.variants import Variants, load_variants
from tests.conftest import Invoke, WriteFile
from tests.variants_cases import OUTAGE, bad_input

#: A team of two NICs per host; the axes below are appended to it.
TEAMS = """
name: Teams
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2]}
  - name: hv2
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
  - {a: hv1/nic2, b: hv2/nic2}
"""


# --- axes, their product and names ----------------------------------------------------------


def test_the_variants_are_the_product_of_the_axes_first_axis_slowest(write: WriteFile) -> None:
    variants = load_variants(
        write(
            "t.yaml",
            TEAMS
            + "variants:\n"
            + '  jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}\n'
            + '  algorithm: {set: "hosts[*].teams[*].load_balancing", values: [hyperv_port, dynamic, address_hash]}\n',
        )
    )
    assert len(variants) == 6
    assert [v.name for v in variants] == [
        "jumbo=1500, algorithm=hyperv_port",
        "jumbo=1500, algorithm=dynamic",
        "jumbo=1500, algorithm=address_hash",
        "jumbo=9000, algorithm=hyperv_port",
        "jumbo=9000, algorithm=dynamic",
        "jumbo=9000, algorithm=address_hash",
    ]
    last = variants.scenario(list(variants)[-1])
    assert [nic.mtu for host in last.hosts for nic in host.nics] == [9000] * 4
    assert [host.team("team1").load_balancing.value for host in last.hosts] == ["address_hash"] * 2


def test_a_path_selects_entries_by_name_or_number_and_sets_fields_the_file_leaves_out(write: WriteFile) -> None:
    """[hv2] is the host named hv2, [1] the second NIC; cpu is not in the file, so it is created."""
    variants = load_variants(
        write(
            "t.yaml",
            TEAMS
            + "variants:\n"
            + '  fast: {set: "hosts[hv2].nics[1].speed", values: [25Gbps]}\n'
            + '  clock: {set: "hosts[*].cpu.ghz", values: [3.5]}\n',
        )
    )
    (variant,) = variants
    assert variant.name == "fast=25Gbps, clock=3.5"
    scenario = variants.scenario(variant)
    assert [nic.speed for nic in scenario.host("hv2").nics] == [10e9, 25e9]
    assert [nic.speed for nic in scenario.host("hv1").nics] == [10e9, 10e9]
    assert [host.cpu.ghz for host in scenario.hosts] == [3.5, 3.5]


def test_a_value_can_be_a_mapping_and_its_name_is_compact_json(write: WriteFile) -> None:
    variants = load_variants(
        write("t.yaml", TEAMS + 'variants:\n  cpu: {set: "hosts[*].cpu", values: [{ghz: 2}, {ghz: 3, smt: false}]}\n')
    )
    assert [v.name for v in variants] == ['cpu={"ghz":2}', 'cpu={"ghz":3,"smt":false}']
    assert variants.scenario(list(variants)[1]).host("hv1").cpu.smt is False


def test_a_file_without_variants_is_one_variant_and_simulate_runs_the_base_design(write: WriteFile) -> None:
    plain = load_variants(write("plain.yaml", TEAMS))
    assert [v.name for v in plain] == ["base"] and plain.axes == ()
    with_axes = write("axes.yaml", TEAMS + 'variants:\n  jumbo: {set: "hosts[*].nics[*].mtu", values: [9000]}\n')
    assert load_scenario(with_axes) == load_scenario(write("plain.yaml", TEAMS)), "variants: is not the design"


def test_variants_pickle_for_the_workers_of_a_sweep(write: WriteFile) -> None:
    import pickle

    variants = load_variants(write("o.yaml", OUTAGE))
    again = pickle.loads(pickle.dumps(variants))
    assert isinstance(again, Variants)
    assert [again.data(v) for v in again] == [variants.data(v) for v in variants]


# --- errors: one clear line each --------------------------------------------------------------

TOO_MANY = "  a: {set: description, values: [" + ", ".join(f"a{i}" for i in range(101)) + "]}\n"
TOO_MANY += "  b: {set: name, values: [" + ", ".join(f"b{i}" for i in range(100)) + "]}\n"


@pytest.mark.parametrize(
    ("axes", "expected"),
    [
        pytest.param(
            '  algorithm: {set: "hosts[*].teams[*].load_balancing", values: [dynamic]}\n',
            "t.yaml:5: variants.algorithm.set: 'hosts[*].teams[*].load_balancing' matches nothing: "
            "the scenario has no hosts[*].teams[*]",
            id="matches-nothing",
        ),
        pytest.param(
            "  jumbo:\n    set: hosts[*].nics[*].mtu\n    values:\n      - 1500\n      - 9999\n",
            "t.yaml:9: variants.jumbo.values[1]: with 9999, hosts[0].nics[0].mtu: 9999 is too large; "
            "must be at most 9216 (and 1 more)",
            id="value-refused",
        ),
        pytest.param(
            '  speed: {set: "hosts[*].nics[*].speed", values: [10Gbs]}\n',
            "t.yaml:5: variants.speed.values[0]: with '10Gbs', hosts[0].nics[0].speed: '10Gbs' is not a bit rate; "
            "write a number and a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps) (and 1 more)",
            id="bad-unit",
        ),
        pytest.param(
            TOO_MANY,
            "t.yaml:4: variants: 101 × 100 = 10,100 variants; at most 10,000 (use fewer values, or split the file)",
            id="too-many",
        ),
        pytest.param(
            '  bad: {set: "hosts[*.mtu", values: [1500]}\n',
            "t.yaml:5: variants.bad.set: 'hosts[*.mtu' is not a path; write fields joined by dots, and after a list "
            "[*] for every entry, [N] for entry N (from 0) or [name] for the entry of that name "
            "(e.g. hosts[*].nics[*].mtu)",
            id="not-a-path",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", values: []}\n',
            "t.yaml:5: variants.jumbo.values: expected a list of one or more values, got an empty list",
            id="no-values",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", values: [9000, 9000]}\n',
            "t.yaml:5: variants.jumbo.values[1]: 9000 is listed twice (values[0]); each value makes one variant",
            id="twice",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", value: [9000]}\n',
            "t.yaml:5: variants.jumbo.value: unknown field; allowed: set, values\n"
            "t.yaml:5: variants.jumbo.values: required field is missing",
            id="misspelt",
        ),
        pytest.param(
            '  metric: {set: "hosts[*].nics[*].mtu", values: [9000]}\n',
            "t.yaml:5: variants.metric: 'metric' is reserved; name the axis otherwise (not variant, metric, value)",
            id="reserved",
        ),
        pytest.param(
            "  - jumbo\n",
            "t.yaml:4: variants: expected a mapping of axes, got a list; write name: {set: PATH, values: [...]}, "
            "e.g. jumbo: {set: hosts[*].nics[*].mtu, values: [1500, 9000]}",
            id="a-list",
        ),
    ],
)
def test_a_bad_axis_is_one_line_on_its_own_line(write: WriteFile, axes: str, expected: str) -> None:
    base = (
        "name: t\n"
        "hosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}, {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}]\n"
        "cables: [{a: hv1/nic1, b: hv2/nic1}]\n"
    )
    path = write("t.yaml", base + "variants:\n" + axes)
    with pytest.raises(ScenarioError) as caught:
        load_variants(path)
    assert str(caught.value) == expected.replace("t.yaml", str(path))


def test_a_bad_base_design_is_reported_with_its_own_lines(write: WriteFile) -> None:
    path = write("t.yaml", "name: t\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10}]}]\nvariants: {}\n")
    with pytest.raises(ScenarioError) as caught:
        load_variants(path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "hosts[0].nics[0].speed"), (3, "variants")]


def test_a_combination_refused_as_a_whole_is_reported_on_variants_by_name(cli: Invoke, write: WriteFile) -> None:
    """Each value is fine alone: a SET team of equal NICs, or an LBFO team of unequal ones; not both."""
    path = write(
        "t.yaml",
        TEAMS
        + "variants:\n"
        + '  kind: {set: "hosts[hv1].teams[team1].kind", values: [lbfo, set]}\n'
        + '  nic2: {set: "hosts[hv1].nics[nic2].speed", values: [10Gbps, 25Gbps]}\n',
    )
    lines = bad_input(cli("compare", path))
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:18: variants: kind=set, nic2=25Gbps: hosts[0].teams[0].members[1]: ")
    assert "identical" in lines[0]


def test_an_axis_that_matches_nothing_after_an_earlier_one_is_reported_by_variant(write: WriteFile) -> None:
    """The first axis replaces the traffic list; where it empties it, the second axis finds no entry."""
    path = write(
        "o.yaml",
        OUTAGE.split("variants:", maxsplit=1)[0]
        + "variants:\n"
        + "  traffic: {set: traffic, values: [[], [{from: hv1, to: hv2, size: 1GB}]]}\n"
        + '  connections: {set: "traffic[*].connections", values: [2]}\n',
    )
    variants = load_variants(path)
    first, second = variants
    with pytest.raises(ScenarioError) as caught:
        variants.scenario(first)
    assert str(caught.value) == (
        f"{path}:11: variants: traffic=[], connections=2: 'traffic[*].connections' matches nothing: "
        "the scenario has no traffic[*]"
    )
    assert variants.scenario(second).traffic[0].connections == 2


def test_an_axis_named_with_a_line_break_is_still_one_line(write: WriteFile) -> None:
    """The fuzzer found an axis name with U+2028 split its problem over two lines (issue 15)."""
    path = write(
        "v.yaml",
        "name: v\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]\n"
        'variants:\n  "a\\u2028b": {set: "hosts[*].nics[*].speed", values: [fast]}\n',
    )
    with pytest.raises(ScenarioError) as error:
        load_variants(path)
    assert len(str(error.value).splitlines()) == 1 and "a\\u2028b" in str(error.value)


# --- the schema and the docs ---------------------------------------------------------------------


def test_the_json_schema_accepts_variants(write: WriteFile) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from hvnet.model import load_yaml, plain_data, scenario_json_schema

    validator = jsonschema.Draft202012Validator(scenario_json_schema())
    data = plain_data(load_yaml(write("o.yaml", OUTAGE)))
    assert isinstance(data, dict) and "variants" in data
    assert list(validator.iter_errors(data)) == []
    data["variants"]["speed"]["value"] = [1]
    assert list(validator.iter_errors(data)) != [], "an axis has set and values, nothing else"


def test_the_documented_variants_load(tmp_path: Path) -> None:
    """docs/sweeps.md's example, and docs/scenario.md's axes added to its two-node cluster."""
    docs = Path(__file__).parent.parent / "docs"
    (sweeps,) = re.findall(r"```yaml variants\n(.*?)```", (docs / "sweeps.md").read_text(), flags=re.DOTALL)
    (tmp_path / "sweeps.yaml").write_text(sweeps)
    assert len(load_variants(tmp_path / "sweeps.yaml")) == 4
    scenario_md = (docs / "scenario.md").read_text()
    (axes,) = re.findall(r"```yaml variants\n(.*?)```", scenario_md, flags=re.DOTALL)
    two_node = re.findall(r"```yaml\n(.*?)```", scenario_md, flags=re.DOTALL)[0]
    (tmp_path / "scenario.yaml").write_text(two_node + axes)
    names = [v.name for v in load_variants(tmp_path / "scenario.yaml")]
    assert names[0] == "jumbo=1500, algorithm=hyperv_port" and names[-1] == "jumbo=9000, algorithm=dynamic"
