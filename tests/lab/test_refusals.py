"""Where the lab cannot run, and scenarios it will not try: one line each, with the limit and the knob."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hvnet
from hvnet.cli import app
from hvnet.errors import HvnetError
from hvnet.lab.prediction import predict
from hvnet.lab.refusals import LabRefused, Limits, check_machine, check_network, check_size
from hvnet.lab.scaling import Scale, scaled_scenario
from hvnet.model import parse_scenario
from tests.conftest import CLI_ENV

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "python" / "hvnet" / "examples"
LAB = ROOT / "python" / "hvnet" / "lab" / "scenarios"


def _one_line(error: pytest.ExceptionInfo[HvnetError]) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def test_not_root_is_refused_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(LabRefused) as error:
        check_machine()
    assert _one_line(error).startswith("hvnet lab needs root: it creates network namespaces")


def test_no_tc_is_refused_naming_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "tc" else f"/usr/sbin/{tool}")
    with pytest.raises(LabRefused) as error:
        check_machine()
    assert _one_line(error) == "hvnet lab needs the tc command (iproute2), which is not on PATH"


def test_no_network_namespaces_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda tool: f"/usr/sbin/{tool}")
    real = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda p: False if p == "/proc/self/ns/net" else real(p))
    with pytest.raises(LabRefused, match="network namespaces, which this kernel does not have"):
        check_machine()


def test_switches_in_a_loop_are_refused() -> None:
    """leaf-spine-failures.yaml: two leaves and two spines, each leaf cabled to each spine."""
    with pytest.raises(LabRefused) as error:
        check_network(hvnet.load(EXAMPLES / "leaf-spine-failures.yaml"))
    assert "form a loop" in _one_line(error) and "give the lab a tree of switches" in _one_line(error)


def test_a_backplane_limit_is_refused() -> None:
    text = (LAB / "two-hosts.yaml").read_text().replace("ports: 8}", "ports: 8, backplane: 10Gbps}")
    with pytest.raises(LabRefused, match="switch tor1 has a backplane limit"):
        check_network(parse_scenario(text))


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (Limits(hosts=1), "2 hosts is more than the lab runs on one machine (1 hosts, as network namespaces)"),
        (Limits(link_bps=1e7), "the fastest scaled link is 100 Mbps, above the lab's 10 Mbps"),
        (Limits(bytes=10**6), "move 20 MB, above the lab's 1 MB; lower --scale or --time-scale"),
        (Limits(seconds=1.0), "predicted to last 1.69 s, above the lab's 1.00 s; lower --time-scale"),
    ],
)
def test_a_scenario_too_large_for_one_machine_is_refused_with_the_limit_and_the_knob(
    limits: Limits, expected: str
) -> None:
    scaled = scaled_scenario(hvnet.load(LAB / "two-hosts.yaml"), Scale())
    prediction = predict(scaled)
    with pytest.raises(LabRefused) as error:
        check_size(scaled, 1, sum(t.bytes for t in prediction.transfers), prediction.results.end_s, limits)
    assert expected in _one_line(error)


def test_compression_is_refused_it_is_cpu_work_the_lab_does_not_emulate() -> None:
    scaled = scaled_scenario(hvnet.load(LAB / "drain.yaml"), Scale())
    text = (LAB / "drain.yaml").read_text().replace("option: tcp_ip", "option: compression")
    with pytest.raises(LabRefused, match="uses Compression"):
        predict(scaled_scenario(parse_scenario(text), Scale()))
    assert predict(scaled).transfers  # tcp_ip runs


def test_measured_demand_is_refused() -> None:
    text = (LAB / "two-hosts.yaml").read_text() + "demand:\n  - {nic: hv1/nic1, send: [[0s, 1Gbps], [1s, 0bps]]}\n"
    with pytest.raises(LabRefused, match="replays measured demand"):
        predict(scaled_scenario(parse_scenario(text), Scale()))


def test_the_command_refuses_in_one_line_where_the_lab_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """`hvnet lab run` as a user: exit code 2 and one line on standard error, nothing built."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    result = CliRunner(env=CLI_ENV).invoke(app, ["lab", "run", str(LAB / "two-hosts.yaml")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "hvnet lab needs root: it creates network namespaces, veth pairs and qdiscs (run it as root, e.g. sudo)"
    ]
    assert result.stdout == ""
