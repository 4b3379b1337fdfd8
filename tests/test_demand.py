"""Measured demand replayed on a NIC's link (docs/model.md, "Measured demand").

Two hosts, one 10 Gbps NIC each on one switch, cores fast enough that links limit (the network of
test_simulate.py). A demand entry's steps are the rates measured (line bits/s, as counters count);
the replay asks for each rate from its time to the next and shares the link max-min fairly.
"""

from __future__ import annotations

import pytest

from hvnet import ScenarioError, parse_scenario, simulate
from tests.test_simulate import FRAME, scenario


def test_the_replayed_load_is_what_the_nic_carries_and_the_run_lasts_as_long() -> None:
    """hv1/nic1 sent 2 Gbps for a minute, 3 Gbps for the next, then nothing: its send series is those
    steps exactly, its receive side is idle, and the run ends with the replay, at 120 s."""
    results = simulate(scenario("demand: [{nic: h1/nic1, send: [[0s, 2Gbps], [60s, 3Gbps], [120s, 0bps]]}]"))
    (send,) = [a.send_bps for a in results.adapters if a.host == "h1"]
    (receive,) = [a.receive_bps for a in results.adapters if a.host == "h1"]
    assert send.t_s == [0.0, 60.0]
    assert send.values == pytest.approx([2e9, 3e9], rel=1e-12)  # a bound reached through the weight: λ · w
    assert receive.peak() == 0.0
    assert results.end_s == 120.0


def test_a_transfer_gets_what_the_measured_load_leaves() -> None:
    """2 Gbps measured on h1's link for 100 s: a 7.5 GB transfer out of h1 gets the other 8 Gbps of
    line time (8 Gbps / FRAME of payload) and ends at 7.5e9 × 8 × FRAME / 8e9."""
    results = simulate(
        scenario(
            """
            demand: [{nic: h1/nic1, send: [[0s, 2Gbps], [100s, 0bps]]}]
            traffic: [{name: copy, from: h1, to: h2, size: 7.5GB}]
            """
        )
    )
    assert results.traffic[0].end_s == pytest.approx(7.5e9 * 8 * FRAME / 8e9)


def test_above_the_fair_share_the_replay_yields_like_any_flow() -> None:
    """9 Gbps measured beside a transfer that needs the link: max-min gives each half the line (the
    replay is weighted by the frame factor, so a share of the line, not of payload, is what is equal)."""
    results = simulate(
        scenario(
            """
            demand: [{nic: h1/nic1, send: [[0s, 9Gbps], [100s, 0bps]]}]
            traffic: [{name: copy, from: h1, to: h2, size: 5GB}]
            """
        )
    )
    assert results.traffic[0].end_s == pytest.approx(5e9 * 8 * FRAME / 5e9)


BASE = (
    "name: t\nhosts:\n  - {name: h1, nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]}\n"
    "  - {name: h2, nics: [{name: nic1, speed: 10Gbps}]}\n"
    "cables: [{a: h1/nic1, b: h2/nic1}]\n"
)


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ("{nic: h9/nic1, send: [[0s, 1Gbps]]}", "demand[0].nic", "unknown host 'h9' in 'h9/nic1'"),
        ("{nic: h1/nic7, send: [[0s, 1Gbps]]}", "demand[0].nic", "h1 has no NIC 'nic7'"),
        ("{nic: h1/nic2, send: [[0s, 1Gbps]]}", "demand[0].nic", "h1/nic2 is not cabled"),
        ("{nic: h1/nic1}", "demand[0]", "give send, receive or both"),
        ("{nic: h1/nic1, send: [[10s, 1Gbps], [5s, 0bps]]}", "demand[0]", "send[1]: its time (5 s) is not after"),
        ("{nic: h1/nic1, send: [[0s, -1Gbps]]}", "demand[0].send[0][1]", ""),
    ],
)
def test_demand_names_a_cabled_nic_and_steps_forward_in_time(entry: str, field: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(BASE + f"demand:\n  - {entry}\n", "demand.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (7, field)
    assert message in problem.message


def test_each_nic_has_one_demand_entry() -> None:
    text = BASE + "demand:\n  - {nic: h1/nic1, send: [[0s, 1Gbps]]}\n  - {nic: h1/nic1, receive: [[0s, 1Gbps]]}\n"
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "demand.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (8, "demand[1].nic")
    assert "h1/nic1 already has its demand at line 7" in problem.message
