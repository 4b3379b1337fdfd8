"""Bad scenario files give one clean line per problem: ``file:line: field: message``.

Each test writes a small file and asserts the exact lines a user would see, so
that any change to a message, a line number or a field path shows up here.
This module: the error classes, problems of the file as a whole (YAML syntax,
an empty or unreadable file, plain data), and never a traceback, whatever the
text, with what the fuzzer found (issue 15): strict types, bounded numbers.
One field at a time: test_field_errors.py; names that refer to other entries:
test_cross_reference_errors.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hvnet.errors import HvnetError, InputError, Problem, ScenarioError, UnitError
from hvnet.model import load_scenario, parse_scenario, scenario_from_data
from tests.model.problems import problems

FAILOVER = Path(__file__).parents[2] / "python" / "hvnet" / "examples" / "failover.yaml"


# --- the error classes ------------------------------------------------------------------------


def test_problem_prints_file_line_field_message() -> None:
    assert str(Problem("c.yaml", 12, "hosts[0].name", "bad")) == "c.yaml:12: hosts[0].name: bad"


def test_problem_leaves_out_an_unknown_line_and_an_empty_field() -> None:
    assert str(Problem("c.yaml", None, "name", "bad")) == "c.yaml: name: bad"
    assert str(Problem("c.yaml", 3, "", "invalid YAML: x")) == "c.yaml:3: invalid YAML: x"


def test_scenario_error_is_one_line_per_problem() -> None:
    error = ScenarioError([Problem("a", 1, "x", "one"), Problem("a", 2, "y", "two")])
    assert str(error) == "a:1: x: one\na:2: y: two"
    assert len(error.problems) == 2


def test_scenario_error_needs_a_problem() -> None:
    with pytest.raises(ValueError):
        ScenarioError([])


def test_input_error_uses_the_same_line_format() -> None:
    """InputError is for other input files, e.g. a CSV traffic matrix."""
    error = InputError("matrix.csv", 4, "size", "'10Gbs' is not a size")
    assert str(error) == "matrix.csv:4: size: '10Gbs' is not a size"
    assert error.problem == Problem("matrix.csv", 4, "size", "'10Gbs' is not a size")


def test_every_error_is_an_hvnet_error() -> None:
    """A face catches HvnetError and prints it; nothing else escapes for bad input."""
    for error_class in (ScenarioError, InputError, UnitError):
        assert issubclass(error_class, HvnetError)


# --- the file as a whole ---------------------------------------------------------------------------


def test_yaml_syntax_error_is_one_line() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps}
        """
    ) == [
        "cluster.yaml:5: invalid YAML: expected ',' or ']', but got '<stream end>'"
        " (while parsing a flow sequence at line 4)"
    ]


def test_a_tab_is_a_yaml_error_with_a_hint() -> None:
    assert problems("name: t\nhosts:\n  - name: hv1\n\tnics: []\n") == [
        "cluster.yaml:4: invalid YAML: found character '\\t' that cannot start any token; indent with spaces, not tabs"
    ]


def test_duplicate_key_is_a_yaml_error() -> None:
    assert problems("name: t\ndescription: |\n  two\n  lines\ndescription: again\nhosts: []\n") == [
        "cluster.yaml:5: invalid YAML: duplicate key 'description' (while constructing a mapping at line 1)"
    ]


def test_empty_file() -> None:
    expected = ["cluster.yaml:1: the file is empty; a scenario needs at least a name and hosts (see docs/scenario.md)"]
    assert problems("") == expected
    assert problems("# only a comment\n") == expected


def test_top_level_list() -> None:
    assert problems("- name: hv1\n") == [
        "cluster.yaml:1: expected a mapping of fields"
        " (name, description, hosts, switches, fabric, cables, vms, traffic, demand, events, requirements,"
        " variants) at the top, got a list"
    ]


def test_required_top_level_fields() -> None:
    assert problems("description: nothing yet\n") == [
        "cluster.yaml:1: name: required field is missing",
        "cluster.yaml:1: hosts: required field is missing",
    ]


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError) as caught:
        load_scenario(missing)
    assert str(caught.value) == f"{missing}: cannot read the file: No such file or directory"


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: t\ndescription: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}:2: the file is not UTF-8 text (byte 0xe9); save it as UTF-8"


def test_a_duplicated_entry_through_a_yaml_alias() -> None:
    """Anchors and aliases work; a host repeated through an alias is a duplicate name."""
    assert problems(
        """\
        name: t
        hosts:
          - &h {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
          - *h
        """
    ) == ["cluster.yaml:3: hosts[1].name: 'hv1' is already the name of a host at line 3"]


def test_plain_data_problems_have_no_line() -> None:
    with pytest.raises(ScenarioError) as caught:
        scenario_from_data({"name": "t", "hosts": [{"name": "hv1", "nics": [{"name": "nic1", "speed": 10}]}]})
    assert str(caught.value) == (
        "<data>: hosts[0].nics[0].speed: 10 has no unit; write a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)"
    )


# --- never a traceback ---------------------------------------------------------------------------------


def _parse_or_scenario_error(text: str) -> None:
    try:
        parse_scenario(text, "fuzz.yaml")
    except ScenarioError as error:
        assert error.problems
        for problem in error.problems:
            assert "\n" not in str(problem), "a problem is one line"


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}/,\n #'\"0123456789.GBps\t&*!|>")), max_size=80))
def test_arbitrary_text_gives_problems_not_tracebacks(text: str) -> None:
    _parse_or_scenario_error(text)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_damaged_example_gives_problems_not_tracebacks(data: st.DataObject) -> None:
    """Delete a line of the failover example, or change one character, and load it."""
    lines = FAILOVER.read_text(encoding="utf-8").splitlines(keepends=True)
    index = data.draw(st.integers(0, len(lines) - 1))
    if data.draw(st.booleans()):
        del lines[index]
    else:
        line = lines[index]
        at = data.draw(st.integers(0, max(len(line) - 1, 0)))
        char = data.draw(st.sampled_from(list("x0 :-/[]{}\t")))
        lines[index] = line[:at] + char + line[at + 1 :]
    _parse_or_scenario_error("".join(lines))


STRICT_AND_BOUNDED = [
    # A boolean is not a number, a number not a boolean, 2.0 not a whole number (issue 15).
    ("cpu: {ghz: true}", "hosts[0].cpu.ghz: expected a number, got true"),
    ("cpu: {sockets: true}", "hosts[0].cpu.sockets: expected a whole number, got true"),
    ("cpu: {smt: 1}", "hosts[0].cpu.smt: expected true or false, got 1"),
    ("nics: [{name: nic1, speed: 10Gbps, rdma: 0}]", "hosts[0].nics[0].rdma: expected true or false, got 0"),
    ("nics: [{name: nic1, speed: 10Gbps, vmq: 1}]", "hosts[0].nics[0].vmq: expected true or false, got 1"),
    ("nics: [{name: nic1, speed: 10Gbps, mtu: 9000.0}]", "hosts[0].nics[0].mtu: expected a whole number, got 9000.0"),
    # Numbers are finite and physically meaningful.
    ("cpu: {ghz: .inf}", "hosts[0].cpu.ghz: inf is not a finite number; write a number such as 2.6"),
    ("cpu: {ghz: .nan}", "hosts[0].cpu.ghz: nan is not a finite number; write a number such as 2.6"),
    ("cpu: {ghz: 60}", "hosts[0].cpu.ghz: 60 is too large; must be at most 10"),
    (
        "cpu: {cores_per_socket: 18446744073709551616}",
        "hosts[0].cpu.cores_per_socket: 18446744073709551616 is too large; must be at most 512",
    ),
    ("nics: [{name: nic1, speed: 1bps}]", "hosts[0].nics[0].speed: '1bps' is too small; must be at least 1 Mbps"),
    ("nics: [{name: nic1, speed: 2Tbps}]", "hosts[0].nics[0].speed: '2Tbps' is too large; must be at most 1.6 Tbps"),
]


@pytest.mark.parametrize(("field", "expected"), STRICT_AND_BOUNDED)
def test_types_are_strict_and_numbers_bounded(field: str, expected: str) -> None:
    nics = "" if "nics:" in field else "\n    nics: [{name: nic1, speed: 10Gbps}]"
    text = f"name: t\nhosts:\n  - name: hv1\n    {field}{nics}\n"
    assert [p.split(": ", 1)[1] for p in problems(text)] == [expected]


def test_times_stop_at_a_year_and_sizes_at_a_pebibyte() -> None:
    assert problems(
        """\
        name: t
        hosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]
        vms: [{name: v, host: hv1, memory: 2000TiB}]
        events: [{at: 9000h, action: nic_down, target: hv1/nic1}]
        """
    ) == [
        "cluster.yaml:3: vms[0].memory: '2000TiB' is too large; must be at most 1024 TiB",
        "cluster.yaml:4: events[0].at: '9000h' is too large; must be at most 8760 h",
    ]


def test_a_clock_too_slow_to_be_a_cpu_is_refused() -> None:
    """The fuzzer found ghz: 1e-320 (above 0, below any CPU) accepted: its cores' shares became
    infinite in the JSON (issue 15). A clock is 0.1 to 10 GHz."""
    text = "name: t\nhosts:\n  - name: hv1\n    cpu: {ghz: 1e-320}\n    nics: [{name: nic1, speed: 10Gbps}]\n"
    assert [p.split(": ", 1)[1] for p in problems(text)] == [
        "hosts[0].cpu.ghz: 1e-320 is too small; must be at least 0.1"
    ]
