"""One test per kind of failure bench/fuzz.py found and hvnet now handles; each says what once went wrong."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

import hvnet
from hvnet.errors import InputError
from hvnet.flows import read_flows, run_flows

Invoke = Callable[..., Result]
EXAMPLES = Path(hvnet.__file__).parent / "examples"

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
HOST = "hosts:\n  - name: hv1\n    nics: [{name: nic1, speed: 10Gbps}]\n"


def problems(text: str) -> list[str]:
    with pytest.raises(hvnet.ScenarioError) as caught:
        hvnet.parse_scenario(text, "c.yaml")
    return str(caught.value).splitlines()


def test_a_blank_key_is_named_in_quotes() -> None:
    """Unclear once: a key ' ' printed as `c.yaml:3:  : unknown field` (no field to see)."""
    assert problems("name: x\n' ': 1\n" + HOST) == [
        "c.yaml:2: [' ']: unknown field; allowed: name, description, hosts, switches, fabric, cables, vms, traffic,"
        " demand, events, requirements, variants"
    ]
    (line,) = problems("name: x\n" + HOST + "    cpu: {'a b': 1}\n")
    assert line.startswith("c.yaml:5: hosts[0].cpu['a b']: unknown field")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("hv\\u20281", "'hv\\u20281' contains U+2028 (line separator)"),  # printed as two lines once
        ("hv\\x1c1", "'hv\\x1c1' contains U+001C (a control character)"),  # splitlines() breaks there too
        ("hv\\x001", "'hv\\x001' contains U+0000 (a control character)"),  # NUL accepted and simulated once
        ("hv\\u200b1", "'hv\\u200b1' contains U+200B (zero width space)"),  # looked like hv1 and was not
        ("\\u202ehv1", "'\\u202ehv1' contains U+202E (right-to-left override)"),
    ],
)
def test_a_name_with_a_hidden_or_line_breaking_character_is_refused(name: str, shown: str) -> None:
    """A name written with a YAML escape ("hv\\u20281") passed the file's control-character check:
    its message broke in two lines, or the name looked like another."""
    text = f'name: x\nhosts:\n  - name: "{name}"\n    nics: [{{name: nic1, speed: 10Gbps}}]\n'
    assert problems(text) == [f"c.yaml:3: hosts[0].name: {shown}; a name is visible text on one line"]


def test_the_scenario_name_is_one_visible_line() -> None:
    """A scenario name "a\\nb" (or blank) was accepted, and printed as two lines in tables and reports."""
    assert problems('name: "a\\nb"\n' + HOST) == [
        "c.yaml:1: name: 'a\\nb' contains U+000A (a control character); the scenario's name is visible text on one line"
    ]
    assert problems("name: ' '\n" + HOST) == ["c.yaml:1: name: the scenario's name cannot be blank"]


def test_a_value_with_line_breaks_stays_on_one_line() -> None:
    """Unclear once: a multi-line text where a list goes was quoted as written
    (`write a list: [first line` and `]` on the next line)."""
    text = "name: x\n" + HOST + "    teams:\n      - name: t\n        members: |\n          nic1\n          nic2\n"
    (line,) = problems(text)
    assert (
        line
        == "c.yaml:7: hosts[0].teams[0].members: expected a list, got 'nic1\\nnic2\\n'; write a list: [nic1\\nnic2\\n]"
    )


def test_a_csv_field_past_the_csv_modules_limit_is_one_line(tmp_path: Path) -> None:
    """Crash once: a field over 131,072 characters raised _csv.Error with a traceback."""
    path = tmp_path / "m.csv"
    path.write_text('src,dst,bytes,start_s\nhv1,hv2,1e9,0\n"' + "x" * 200_000 + '",hv2,1,0\n')
    with pytest.raises(InputError) as caught:
        read_flows(path, hvnet.load(FAILOVER))
    assert str(caught.value) == f"{path}:3: not a CSV row: field larger than field limit (131072)"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("hv1,hv2,1e300,0", "3: bytes: '1e300' is too large; at most 1 PiB (1125899906842624 bytes)"),
        ("hv1,hv2,1e9,1e300", "3: start_s: '1e300' is too large; at most 8760 h (31536000 s)"),
    ],
)
def test_a_traffic_row_past_the_scenarios_bounds_is_refused(tmp_path: Path, row: str, message: str) -> None:
    """Hang once: a row of 1e300 bytes, or starting 1e300 s from now, was accepted and the engine never returned."""
    path = tmp_path / "m.csv"
    path.write_text(f"src,dst,bytes,start_s\nhv1,hv2,1e9,0\n{row}\n")
    with pytest.raises(InputError) as caught:
        read_flows(path, hvnet.load(FAILOVER))
    assert str(caught.value) == f"{path}:{message}"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("  switch: " + "1" * 400, f"prices.switch: {'1' * 400} is not a finite number; write a price such as 250"),
        ("' ': 1", "[' ']: unknown field; allowed: status, date, currency, source, prices"),
    ],
)
def test_a_price_list_past_any_float_or_with_a_blank_key_is_one_line(tmp_path: Path, line: str, message: str) -> None:
    """The 100,000-case fuzz run (prices target) found a 400-digit price raised OverflowError, and a blank
    top-level key printed as `case.yaml:6:  : unknown field`."""
    from hvnet.cost import load_prices

    path = tmp_path / "prices.yaml"
    body = f"prices:\n{line}\n" if line.startswith("  ") else f"{line}\nprices: {{}}\n"
    path.write_text(body)
    with pytest.raises(InputError) as caught:
        load_prices(path)
    assert str(caught.value).endswith(message)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_a_problem_on_line_100_keeps_its_line_number(cli: Invoke, tmp_path: Path) -> None:
    """The 100,000-case fuzz run (scenario, seed 15): `case.yaml:100: ...` printed as `case.yaml💯 ...`,
    rich reading `:100:` as an emoji code. Every message is printed as written."""
    path = tmp_path / "case.yaml"
    path.write_bytes(b"name: x\n" + b"# padding\n" * 98 + b"hosts: \x94\n")
    result = cli("simulate", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{path}:100: "), result.stderr


def test_a_price_past_a_trillion_is_refused_in_one_line(tmp_path: Path) -> None:
    """The second 100,000-case run (prices, seed 21): a price of 3.96e127 passed, and pricing the bill raised
    decimal.InvalidOperation (a traceback)."""
    from hvnet.cost import load_prices

    path = tmp_path / "prices.yaml"
    path.write_text("prices:\n  dac_10g: 3.9642954278482503e+127\n")
    with pytest.raises(InputError) as caught:
        load_prices(path)
    assert (
        str(caught.value)
        == f"{path}:2: prices.dac_10g: 3.9642954278482503e+127 is too large; a price is at most 1,000,000,000,000"
    )


def test_a_mapping_as_a_key_in_a_file_libyaml_refuses_is_one_line(tmp_path: Path) -> None:
    """The second 100,000-case run (candidates, seed 21): a flow mapping used as a key, in a file libyaml
    refused, made ruamel raise TypeError (unhashable) instead of a YAML error."""
    from hvnet.candidates import load_candidates

    path = tmp_path / "candidates.yaml"
    path.write_text("{[{nics: 2, speed: 1Gbps}]}\n")
    with pytest.raises(InputError) as caught:
        load_candidates(path)
    assert str(caught.value) == f"{path}: invalid YAML: a list or a mapping used as a key; a key is a name"


def test_a_zero_byte_flow_started_at_a_rebalancing_tick_completes(tmp_path: Path) -> None:
    """The second 100,000-case run (flows, seed 21; 14 cases): a row of 0 bytes starting at 2 s, when the
    failover example's dynamic teams rebalance, completed at once and the rebalancing then rerouted it:
    the core's assertion ('activity is not running') surfaced as "the core failed"."""
    scenario = hvnet.load(EXAMPLES / "failover.yaml")
    path = tmp_path / "m.csv"
    path.write_text("src,dst,bytes,start_s\nhv1,hv2,1e9,0\nvm-big,hv2,1e9,1\nhv2,vm-1,0,2\n")
    result = run_flows(scenario, read_flows(path, scenario), path)
    assert all(end is not None for end in result.end_s)


def test_a_measurement_whose_figures_work_out_past_any_number_is_refused(tmp_path: Path) -> None:
    """The second run (measurement, seed 21): NTttcp XML with a throughput of 1e308 bytes/s was read as
    8e308 bits/s, infinity in the JSON. A record that holds a figure that is not finite is refused."""
    from hvnet.importers import read_measurement

    sample = Path(__file__).parents[1] / "importers" / "samples" / "ntttcp_linux_1.4.0_sender.xml"
    text = sample.read_text()
    path = tmp_path / "run.xml"
    path.write_text(
        text.replace(
            '<throughput metric="Bps">1476085185.665</throughput>', '<throughput metric="Bps">1e308</throughput>'
        )
    )
    assert path.read_text() != text
    with pytest.raises(InputError) as caught:
        read_measurement(path)
    assert (
        str(caught.value)
        == f"{path}: throughput_bps: works out to inf, past any number: the file's figures are out of range"
    )
