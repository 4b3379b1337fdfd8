"""The simulated effect of a fix, the examples, and the table and JSON document."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import hvnet
from hvnet.advise import advise, findings_document, findings_text
from hvnet.advise.effects import Effects, apply_changes
from hvnet.advise.rules import Change
from hvnet.model import parse_scenario

EXAMPLES = sorted((Path(hvnet.__file__).parent / "examples").rglob("*.yaml"))

#: Two hosts, an LACP team of two 10 Gbps NICs each (to an MLAG pair) on Hyper-V port, hv1's under a
#: virtual switch, and hv1's one VM copying 40 GB to hv2 over 8 connections: Hyper-V port holds the VM's
#: vSwitch port to one member, so the copy runs at 10 Gbps; dynamic spreads its connections over both
#: members (and the switches spread them over hv2's by their own hash).
HVPORT = """
name: hyper-v port copy
hosts:
  - name: hv1
    power_plan: high_performance
    cpu: {sockets: 2, cores_per_socket: 16, deepest_c_state: c1}
    nics:
      - {name: nic1, speed: 10Gbps, mtu: 9000, rss_base_core: 1}
      - {name: nic2, speed: 10Gbps, mtu: 9000, rss_base_core: 9}
    teams:
      - {name: team1, members: [nic1, nic2], mode: lacp, load_balancing: hyperv_port}
    vswitches:
      - {name: vSwitch, uplink: team1}
  - name: hv2
    power_plan: high_performance
    cpu: {sockets: 2, cores_per_socket: 16, deepest_c_state: c1}
    nics:
      - {name: nic1, speed: 10Gbps, mtu: 9000, rss_base_core: 1}
      - {name: nic2, speed: 10Gbps, mtu: 9000, rss_base_core: 9}
    teams:
      - {name: team1, members: [nic1, nic2], mode: lacp, load_balancing: hyperv_port}
switches:
  - {name: tor1, stack: pair}
  - {name: tor2, stack: pair}
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor2/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv2/nic2, b: tor2/2}
  - {a: tor1/48, b: tor2/48, speed: 100Gbps}
vms:
  - {name: vm1, host: hv1, vcpus: 8, memory: 8GiB, vswitch: vSwitch}
traffic:
  - {name: copy, from: vm1, to: hv2, size: 40GB, connections: 8}
"""


def test_the_effect_of_dynamic_over_hyperv_port_is_simulated() -> None:
    scenario = parse_scenario(HVPORT)
    [finding] = [f for f in advise(scenario) if f.rule == "hvport-one-member" and f.evidence.startswith("hv1")]
    before = hvnet.simulate(scenario).traffic[0].end_s
    after = hvnet.simulate(apply_changes(scenario, finding.fix.changes)).traffic[0].end_s
    assert before is not None and after is not None and after < 0.75 * before
    assert finding.expected_effect is not None
    assert finding.expected_effect.startswith("last transfer ends at: ")
    assert "no change" not in finding.expected_effect


def test_one_run_per_distinct_fix() -> None:
    """The base run, then one run per distinct set of changes, however often it is asked for."""
    scenario = parse_scenario(HVPORT)
    effects = Effects(scenario)
    fix = (Change(path="hosts[*].teams[team1].load_balancing", value="dynamic"),)
    assert effects.of(fix) == effects.of(fix)
    assert effects.runs == 2


def test_a_fix_the_loader_refuses_has_no_effect() -> None:
    scenario = parse_scenario(HVPORT)
    bad = (
        Change(path="hosts[hv1].teams[team1].kind", value="set"),
        Change(path="hosts[hv1].nics[nic2].mtu", value=1500),
    )
    assert Effects(scenario).of(bad) is None


def test_without_effects_nothing_is_simulated() -> None:
    assert all(f.expected_effect is None for f in advise(parse_scenario(HVPORT), simulate_effects=False))


def test_nothing_to_measure_gives_no_effect() -> None:
    scenario = parse_scenario(HVPORT.split("traffic:", maxsplit=1)[0])
    assert all(f.expected_effect is None for f in advise(scenario))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_advises(path: Path) -> None:
    findings = advise(hvnet.load(path))
    document = findings_document(findings)
    assert json.loads(json.dumps(document)) == document
    Console(width=100, file=None, record=True).print(findings_text(findings))


def test_the_failover_example() -> None:
    """LBFO under a virtual switch, with RDMA NICs, on one switch, RSS at core 0, balanced power."""
    rules = [f.rule for f in advise(hvnet.load(EXAMPLES[[p.name for p in EXAMPLES].index("failover.yaml")]))]
    assert set(rules) == {
        "lbfo-vswitch-deprecated",
        "lbfo-rdma-lost",
        "single-switch-spof",
        "rss-core0",
        "rss-overlap",
        "power-plan",
    }


def test_the_document() -> None:
    findings = advise(parse_scenario(HVPORT))
    document = findings_document(findings)
    assert document["counts"] == {"error": 0, "warning": len(findings), "info": 0}
    finding = document["findings"][1]
    assert finding["rule"] == "hvport-one-member" and finding["severity"] == "warning"
    assert finding["fix"]["changes"] == [{"path": "hosts[hv1].teams[team1].load_balancing", "value": "dynamic"}]
    assert finding["fix"]["cmdlet"] == "Set-NetLbfoTeam -Name team1 -LoadBalancingAlgorithm Dynamic"
    assert finding["sources"][0]["url"].startswith("https://learn.microsoft.com/")
    assert set(finding) == {
        "rule",
        "severity",
        "title",
        "evidence",
        "fix",
        "sources",
        "confirmed",
        "note",
        "expected_effect",
    }


def test_the_table_never_cuts_a_number() -> None:
    findings = advise(parse_scenario(HVPORT))
    console = Console(width=80, record=True)
    console.print(findings_text(findings))
    text = " ".join(console.export_text().split())
    assert "…" not in text
    assert findings[1].expected_effect is not None
    for number in findings[1].expected_effect.split(": ", 1)[1].replace("→", " ").split():
        if number[0].isdigit():
            assert number in text


@pytest.mark.parametrize("width", [80, 200])
def test_findings_read_as_blocks_at_any_width(width: int) -> None:
    """One block per finding, as a linter prints them: severity, rule and title first (the
    title wraps when the width is short), the evidence, fix, effect and source indented below;
    nothing beyond the width."""
    findings = advise(parse_scenario(HVPORT))
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(findings_text(findings))
    lines = console.export_text().splitlines()
    assert all(len(line) <= width for line in lines)
    text = " ".join(" ".join(lines).split())
    for f in findings:
        assert any(line.startswith(f"{f.severity.value}  {f.rule}  ") for line in lines)
        assert f"{f.severity.value} {f.rule} {f.title}" in text
    labels = [line.split()[0] for line in lines if line.startswith("    ") and not line.startswith("     ")]
    assert labels.count("evidence") == labels.count("fix") == labels.count("source") == len(findings)
