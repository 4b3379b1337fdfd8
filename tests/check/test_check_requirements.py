"""`hvnet.check`: each requirement passing and failing on small designs, with the figure each should give.

The designs: two hosts joined back to back by one 10 GbE cable (TCP/IP live migration, so no
compression blurs the arithmetic), a 16 GiB VM on hv1 and a 4 GiB one on hv2; and two hosts
with a two-NIC team each, on one switch or on two.
"""

from __future__ import annotations

import pytest

from hvnet.check import check, failures, simulations_needed
from hvnet.check.evaluate import sample
from hvnet.errors import ScenarioError
from hvnet.model import FailureKind, Scenario, parse_scenario
from hvnet.simulation import simulate

PAIR = """\
name: pair
hosts:
  - {name: hv1, live_migration: {option: tcp_ip}, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, live_migration: {option: tcp_ip}, nics: [{name: nic1, speed: 10Gbps}]}
cables: [{a: hv1/nic1, b: hv2/nic1}]
vms:
  - {name: big, host: hv1, memory: 16GiB}
  - {name: small, host: hv2, memory: 4GiB}
"""

#: Two 1.25 GB transfers from hv1 to hv2, at 0 s and at 10 s: the NIC is busy about 2 s of ~12.
TRAFFIC = """\
traffic:
  - {from: hv1, to: hv2, size: 1.25GB}
  - {from: hv1, to: hv2, size: 1.25GB, start: 10s}
"""


def teamed(switches: int) -> str:
    """Two hosts, each a switch-independent team of two 10 GbE NICs: both on tor1 (one switch), or
    nic1 on tor1 and nic2 on tor2 (two switches, joined by a cable)."""
    tor2 = "tor2" if switches == 2 else "tor1"
    return f"""\
name: teamed on {switches} switches
hosts:
  - {{name: hv1, nics: [{{name: nic1, speed: 10Gbps}}, {{name: nic2, speed: 10Gbps}}],
     teams: [{{name: t1, members: [nic1, nic2]}}]}}
  - {{name: hv2, nics: [{{name: nic1, speed: 10Gbps}}, {{name: nic2, speed: 10Gbps}}],
     teams: [{{name: t1, members: [nic1, nic2]}}]}}
switches: [{{name: tor1}}{", {name: tor2}" if switches == 2 else ""}]
cables:
  - {{a: hv1/nic1, b: tor1/1}}
  - {{a: hv1/nic2, b: {tor2}/2}}
  - {{a: hv2/nic1, b: tor1/3}}
  - {{a: hv2/nic2, b: {tor2}/4}}
{"  - {a: tor1/48, b: tor2/48, speed: 40Gbps}" if switches == 2 else ""}
vms:
  - {{name: vm1, host: hv1, memory: 8GiB}}
"""


def scenario(text: str, requirements: str) -> Scenario:
    return parse_scenario(text + f"requirements: {requirements}\n", "pair.yaml")


def only(scenario: Scenario, requirement: str) -> tuple[float | None, str, bool]:
    (outcome,) = [o for o in check(scenario).outcomes if o.requirement == requirement]
    return outcome.figure, outcome.worst, outcome.passed


def drain(host: str) -> float:
    """The drain of `host` as `hvnet simulate` gives it, from a file with that drain event."""
    results = simulate(parse_scenario(PAIR + f"events: [{{at: 0s, action: drain, target: {host}}}]\n"))
    duration = results.operations[0].duration_s
    assert duration is not None
    return duration


def test_max_drain_is_the_slowest_host_drained_alone() -> None:
    """hv1's 16 GiB takes longer than hv2's 4 GiB; 16 GiB cannot cross 10 Gbps in less than
    16 x 2^30 x 8 / 10^10 = 13.7 s. The figure is exactly the drain `hvnet simulate` gives."""
    figure, worst, passed = only(scenario(PAIR, "{max_drain: 1min}"), "max_drain")
    assert worst == "drain of hv1" and passed
    assert figure == drain("hv1") > drain("hv2")
    assert 16 * 2**30 * 8 / 10e9 < figure < 60
    figure, _, passed = only(scenario(PAIR, "{max_drain: 10s}"), "max_drain")
    assert figure is not None and figure > 10 and not passed


def test_maintenance_window_counts_each_node_down_for_patch_time() -> None:
    """Two nodes down 5 min each: the window is over 10 min (plus each drain and fail-back), so 15 min
    passes and 10 min fails. Without patch_time in the requirements, the file's rolling_update's is used."""
    figure, worst, passed = only(scenario(PAIR, "{maintenance_window: 15min, patch_time: 5min}"), "maintenance_window")
    assert worst == "rolling update of hv1, hv2" and passed
    assert figure is not None and 600 + drain("hv1") + drain("hv2") < figure < 900
    figure_10, _, passed = only(scenario(PAIR, "{maintenance_window: 10min, patch_time: 5min}"), "maintenance_window")
    assert figure_10 == figure and not passed
    from_event = PAIR + "events: [{at: 1h, action: rolling_update, patch_time: 5min}]\n"
    assert only(scenario(from_event, "{maintenance_window: 15min}"), "maintenance_window")[0] == figure
    assert check(scenario(from_event, "{maintenance_window: 15min}")).settings.patch_time_s == 300
    no_patch, _, _ = only(scenario(PAIR, "{maintenance_window: 15min}"), "maintenance_window")
    assert no_patch is not None and no_patch < 100  # 0 s patch: only the migrations


def test_max_blackout_is_the_longest_pause_of_any_migration() -> None:
    """An idle VM pauses for its device state (32 MiB: 27 ms at 10 Gbps) and the switch-over, well
    under 500 ms; the figure is the longest blackout of the drains' migrations, as simulate reports it."""
    figure, worst, passed = only(scenario(PAIR, "{max_blackout: 500ms}"), "max_blackout")
    longest = max(
        simulate(parse_scenario(PAIR + f"events: [{{at: 0s, action: drain, target: {h}}}]\n"))
        .operations[0]
        .longest_blackout_s
        or 0
        for h in ("hv1", "hv2")
    )
    assert figure is not None and figure == pytest.approx(longest) and passed
    assert 0.027 < figure < 0.5 and " in drain of hv" in worst
    assert not only(scenario(PAIR, "{max_blackout: 1ms}"), "max_blackout")[2]


def test_max_utilisation_reads_each_percentile_of_the_traffic_profile() -> None:
    """hv1/nic1 sends about 2 s of a ~12 s profile: 0 at the median, its full rate at p90 and at
    the peak (one TCP connection: ~67% of 10 Gbps). p50 10% passes; p90 50% fails."""
    requirements = "{max_utilisation: {p50: 10%, p90: 50%, max: 100%}}"
    result = check(scenario(PAIR + TRAFFIC, requirements))
    figures = {o.requirement: o for o in result.outcomes}
    p50, p90, peak = figures["max_utilisation.p50"], figures["max_utilisation.p90"], figures["max_utilisation.max"]
    assert p50.figure == 0 and p50.passed
    sent = simulate(parse_scenario(PAIR + TRAFFIC)).adapters[0].send_bps.peak() / 10e9
    assert p90.figure == pytest.approx(sent) and peak.figure == pytest.approx(sent)
    assert 0.5 < sent <= 1 and not p90.passed and peak.passed
    assert p90.worst == "hv1/nic1 send" and p90.unit == "share"
    assert result.passed is False


def test_max_utilisation_without_traffic_is_0() -> None:
    assert only(scenario(PAIR, "{max_utilisation: {max: 50%}}"), "max_utilisation.max") == (
        0.0,
        "no traffic or measured demand in the scenario",
        True,
    )


def test_one_switch_is_a_single_point_of_failure() -> None:
    """On one switch, its failure stops every migration: the drains never end and survive [switch]
    fails; each NIC alone leaves the team's other member, so survive [nic] passes. On two switches,
    either one can fail."""
    requirements = "{max_drain: 5min, max_blackout: 500ms, survive: [nic, switch]}"
    one = check(scenario(teamed(1), requirements))
    assert all(o.passed for o in one.outcomes)
    nic, switch = one.survive
    assert (nic.kind, len(nic.cases), nic.passed) == (FailureKind.NIC, 4, True)
    assert (switch.kind, len(switch.cases), switch.passed) == (FailureKind.SWITCH, 1, False)
    failed = {o.requirement: o for o in switch.failed}
    assert set(failed) == {"max_drain", "max_blackout"}
    assert failed["max_drain"].figure is None and "never ends" in failed["max_drain"].worst
    assert failed["max_drain"].failure is not None and failed["max_drain"].failure.label == "switch tor1 down"
    assert not one.passed
    two = check(scenario(teamed(2), requirements))
    assert two.passed and [len(s.cases) for s in two.survive] == [4, 2]


def test_survive_counts_and_names_each_case() -> None:
    """Each host NIC, each cable, each switch, each cabled port; per case, the requirements again
    (here 1 rolling update + 2 drains + 0 traffic runs = 3 simulations)."""
    design = scenario(teamed(2), "{maintenance_window: 1h, max_drain: 5min, survive: [nic, cable, switch, port]}")
    labels = {kind: [f.label for f in failures(design, kind)] for kind in FailureKind}
    assert labels[FailureKind.NIC] == [
        "nic hv1/nic1 down",
        "nic hv1/nic2 down",
        "nic hv2/nic1 down",
        "nic hv2/nic2 down",
    ]
    assert labels[FailureKind.CABLE][0] == "cable hv1/nic1—tor1/1 down"
    assert labels[FailureKind.SWITCH] == ["switch tor1 down", "switch tor2 down"]
    assert labels[FailureKind.PORT] == [
        f"port {port} black-holed" for port in ("tor1/1", "tor2/2", "tor1/3", "tor2/4", "tor1/48", "tor2/48")
    ]
    assert len(labels[FailureKind.CABLE]) == 5
    assert simulations_needed(design) == 3 * (1 + 4 + 5 + 2 + 6)
    result = check(design)
    assert result.simulations == simulations_needed(design)
    assert simulations_needed(design, limit=2) == 3 * (1 + 2 + 2 + 2 + 2)


def test_a_limit_samples_the_cases_evenly() -> None:
    design = scenario(teamed(2), "{max_drain: 1h, survive: [nic]}")
    cases = failures(design, FailureKind.NIC)
    assert [c.target for c in sample(cases, 2)] == ["hv1/nic1", "hv2/nic2"]
    assert sample(cases, 10) == cases
    result = check(design, limit=3)
    assert (len(result.survive[0].cases), result.survive[0].total) == (3, 4)


def test_a_drain_the_simulator_refuses_fails_with_the_reason() -> None:
    """hv2 has room for 4 GiB: hv1's 16 GiB VM fits nowhere, so its drain has no figure."""
    small = PAIR.replace("{name: hv2, ", "{name: hv2, memory: 8GiB, ")
    figure, worst, passed = only(scenario(small, "{max_drain: 1h}"), "max_drain")
    assert figure is None and not passed and worst.startswith("drain of hv1: refused: ")


def test_no_requirements_checks_nothing() -> None:
    result = check(parse_scenario(PAIR))
    assert (result.outcomes, result.survive, result.simulations, result.passed) == ([], [], 0, True)


def test_shares_are_percentages_and_a_bare_number_is_refused() -> None:
    design = scenario(PAIR, "{max_utilisation: {p99: 70%, max: 92.5%}}")
    assert design.requirements is not None and design.requirements.max_utilisation is not None
    assert design.requirements.max_utilisation.limits() == {"p99": 0.7, "max": 0.925}
    assert design.model_dump(mode="json")["requirements"]["max_utilisation"]["p99"] == "70%"
    with pytest.raises(ScenarioError) as caught:
        scenario(PAIR, "{max_utilisation: {p99: 0.7, p95: 70%, max: 0%}}")
    assert str(caught.value).splitlines() == [
        "pair.yaml:9: requirements.max_utilisation.p99: 0.7 has no '%';"
        " write a share of the link as a percentage, e.g. 70% (not 0.7 or 70)",
        "pair.yaml:9: requirements.max_utilisation.max: 0% is not a share of a link;"
        " write more than 0% and at most 100%",
        "pair.yaml:9: requirements.max_utilisation.p95: unknown field; allowed: p50, p90, p99, max",
    ]


def test_requirements_are_checked_with_the_rest_of_the_file() -> None:
    one_host = "name: one\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]\n"
    with pytest.raises(ScenarioError) as caught:
        scenario(one_host, "{max_drain: 10min, max_blackout: 5, survive: [nic, nic, disk], max_utilisation: {}}")
    lines = str(caught.value).splitlines()
    assert any(
        "max_drain: max_drain is measured by draining hosts, and this cluster has one host" in line for line in lines
    )
    assert any("max_blackout: 5 has no unit" in line for line in lines)
    assert any("survive[1]: 'nic' is listed twice" in line for line in lines)
    assert any("survive[2]: 'disk' is not allowed; choose one of nic, cable, switch, port" in line for line in lines)
    assert any("max_utilisation: give at least one percentile" in line for line in lines)
    with pytest.raises(ScenarioError) as caught:
        scenario(PAIR, "{survive: [switch]}")
    assert str(caught.value) == (
        "pair.yaml:9: requirements.survive: survive re-evaluates the other requirements after each failure, "
        "and there is none; add one of maintenance_window, max_drain, max_blackout, max_utilisation"
    )
