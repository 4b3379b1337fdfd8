"""Steady flows: traffic at a rate for a duration, beside transfers of a size.

The network of test_simulate.py: hosts with one 10 Gbps NIC each on one switch, cores fast
enough that links limit. At MTU 1500 a byte of payload takes FRAME bytes of line time, so a
10 Gbps NIC carries at most PAYLOAD = 10 Gbps / FRAME of payload. A steady flow sends at most
its rate (payload) and, below it, shares max-min fairly: alone it keeps its rate; beside a
transfer it keeps it when its rate is below the fair share, and gets the fair share when not.
"""

from __future__ import annotations

import pytest

from hvnet import ScenarioError, parse_scenario, simulate
from tests.test_simulate import FRAME, scenario

PAYLOAD = 10e9 / FRAME


def test_a_steady_flow_alone_sends_its_rate_for_its_duration() -> None:
    """2 Gbps for 10 s from 5 s: it ends at 15 s having sent 2.5 GB, at 2 Gbps exactly; the NIC
    carries 2 Gbps of payload in frames, 2 Gbps × FRAME on the line, never more."""
    results = simulate(scenario("traffic: [{name: replica, from: h1, to: h2, rate: 2Gbps, duration: 10s, start: 5s}]"))
    (flow,) = results.traffic
    assert (flow.rate_bps, flow.start_s, flow.end_s) == (2e9, 5.0, 15.0)
    assert flow.sent_bytes == flow.size_bytes == 2_500_000_000
    assert flow.mean_bps == pytest.approx(2e9)
    (send,) = [a.send_bps for a in results.adapters if a.host == "h1"]
    assert send.peak() == pytest.approx(2e9 * FRAME)


def test_below_the_fair_share_it_keeps_its_rate_and_the_transfer_takes_the_rest() -> None:
    """2 Gbps beside a 2.5 GB transfer on the same NIC: the flow keeps 2 Gbps (below the fair half),
    the transfer gets PAYLOAD − 2 Gbps while both run."""
    results = simulate(
        scenario(
            """
            traffic:
              - {name: steady, from: h1, to: h2, rate: 2Gbps, duration: 10s}
              - {name: copy, from: h1, to: h3, size: 2.5GB}
            """
        )
    )
    steady, copy = results.traffic
    assert steady.mean_bps == pytest.approx(2e9)
    assert copy.end_s == pytest.approx(2.5e9 * 8 / (PAYLOAD - 2e9))


def test_above_the_fair_share_it_gets_the_fair_share_and_says_how_much_it_kept() -> None:
    """8 Gbps beside a 25 GB transfer: both get PAYLOAD / 2 for the flow's 10 s, so the flow kept
    (PAYLOAD / 2) / 8 Gbps of its rate and sent that much less than planned."""
    results = simulate(
        scenario(
            """
            traffic:
              - {name: steady, from: h1, to: h2, rate: 8Gbps, duration: 10s}
              - {name: copy, from: h1, to: h3, size: 25GB}
            """
        )
    )
    steady = results.traffic[0]
    assert steady.mean_bps == pytest.approx(PAYLOAD / 2)
    assert steady.sent_bytes == pytest.approx(PAYLOAD / 2 / 8 * 10, rel=1e-9)
    assert steady.sent_bytes < steady.size_bytes == 10_000_000_000


def test_its_rate_is_split_over_its_connections() -> None:
    """4 Gbps over 4 connections: each sends at most 1 Gbps; together 4 Gbps for 2 s, 1 GB."""
    results = simulate(scenario("traffic: [{from: h1, to: h2, rate: 4Gbps, duration: 2s, connections: 4}]"))
    (flow,) = results.traffic
    assert flow.sent_bytes == 1_000_000_000
    assert [c.end_s for c in flow.connection_results] == [2.0] * 4


def test_the_terminal_shows_the_rate_and_the_share_kept() -> None:
    from rich.console import Console

    from hvnet.tables import traffic_table

    results = simulate(
        scenario(
            """
            traffic:
              - {name: steady, from: h1, to: h2, rate: 8Gbps, duration: 10s}
              - {name: copy, from: h1, to: h3, size: 25GB}
            """
        )
    )
    console = Console(width=200, record=True)
    console.print(traffic_table(results))
    row = next(line for line in console.export_text().splitlines() if "steady" in line)
    assert "8 Gbps steady" in row and f"({PAYLOAD / 2 / 8e9:.0%})" in row


def test_a_series_sends_each_rate_from_its_time_to_the_next() -> None:
    """From 10 s: 2 Gbps for 5 s, nothing for 5 s, 4 Gbps for 5 s: 1.25 + 2.5 GB, ending at 25 s; the NIC
    carries those rates in frames, each for its stretch."""
    results = simulate(
        scenario(
            "traffic: [{name: replay, from: h1, to: h2, start: 10s,"
            " rates: [[0s, 2Gbps], [5s, 0bps], [10s, 4Gbps], [15s, 0bps]]}]"
        )
    )
    (flow,) = results.traffic
    assert (flow.start_s, flow.end_s) == (10.0, 25.0)
    assert flow.sent_bytes == flow.size_bytes == 3_750_000_000
    (send,) = [a.send_bps for a in results.adapters if a.host == "h1"]
    assert [send.mean(a, b) for a, b in ((10, 15), (15, 20), (20, 25))] == pytest.approx(
        [2e9 * FRAME, 0.0, 4e9 * FRAME], rel=1e-12, abs=1e-3
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{from: h1, to: h2}", "needs size (a transfer, e.g. size: 10GB), rate and duration"),
        ("{from: h1, to: h2, size: 1GB, rate: 1Gbps}", "give one of size (a transfer"),
        ("{from: h1, to: h2, size: 1GB, rates: [[0s, 1Gbps], [1s, 0bps]]}", ", not several"),
        ("{from: h1, to: h2, rate: 1Gbps}", "a steady flow (rate) needs duration"),
        ("{from: h1, to: h2, size: 1GB, duration: 10s}", "duration is for a steady flow (with rate)"),
        ("{from: h1, to: h2, rates: [[0s, 1Gbps], [5s, 1Gbps]]}", "the last step is where the flow ends"),
        ("{from: h1, to: h2, rates: [[5s, 1Gbps], [5s, 0bps]]}", "rates[1]: its time (5 s) is not after"),
        ("{from: h1, to: h2, rates: [[0s, 0bps], [5s, 0bps]]}", "every step is 0 bps"),
        ("{from: h1, to: h2, rate: 1Gbps, duration: 0s}", "'0s' is too small; must be more than 0"),
    ],
)
def test_a_flow_is_a_transfer_or_a_steady_flow_never_both_nor_neither(entry: str, message: str) -> None:
    text = (
        "name: t\nhosts:\n  - {name: h1, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: h2, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "cables: [{a: h1/nic1, b: h2/nic1}]\n"
        f"traffic:\n  - {entry}\n"
    )
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "flows.yaml")
    (problem,) = caught.value.problems
    assert problem.line == 7 and problem.field.startswith("traffic[0]")
    assert message in problem.message
