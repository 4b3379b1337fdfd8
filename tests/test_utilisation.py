"""Utilisation and headroom (hvnet.utilisation), worked out by hand.

Percentiles are time-weighted over [0, end_s): p is the least value the
function is at or below for p % of the run (`Series.percentile`).
"""

from __future__ import annotations

import io
from importlib import resources

import pytest
from rich.console import Console

from hvnet import Results, parse_scenario, simulate
from hvnet.results import AdapterSeries, CoreSeries
from hvnet.series import Series
from hvnet.tables import UTILISATION_ROWS, utilisation_table
from hvnet.utilisation import core_utilisation, nic_utilisation, team_utilisation

GBPS = 1e9


def adapter(nic: str, send: Series, team: str | None = "team1", receive: Series | None = None) -> AdapterSeries:
    return AdapterSeries(
        host="hv1", nic=nic, team=team, speed_bps=10 * GBPS, send_bps=send, receive_bps=receive or Series()
    )


def test_half_speed_for_half_the_run() -> None:
    """A 10 Gbps NIC sends 5 Gbps from 0 to 5 s of a 10 s run, then nothing: it is at 0 for
    half the run (p50 = 0) and at 0.5 for the other half (p90 = p99 = max = 0.5); busy 5 s;
    headroom 1 − 0.5; 5 Gbps × 5 s = 3.125 GB. Alone in its team, it carried all its bytes."""
    (send, receive) = nic_utilisation([adapter("nic1", Series(t_s=[0.0, 5.0], values=[5 * GBPS, 0.0]))], 10.0)
    assert (send.direction, send.p50_share, send.p90_share, send.p99_share, send.max_share) == (
        "send",
        0.0,
        0.5,
        0.5,
        0.5,
    )
    assert (send.busy_s, send.headroom_share, send.carried_bytes, send.team_share) == (5.0, 0.5, 3_125_000_000, 1.0)
    assert (receive.direction, receive.p99_share, receive.max_share, receive.busy_s, receive.headroom_share) == (
        "receive",
        0,
        0,
        0,
        1,
    )
    assert receive.team_share is None, "the team carried nothing in that direction"


def test_a_short_burst_is_in_max_not_in_p99() -> None:
    """Full speed for 0.05 s of 10 s (0.5 % of the run), 1 Gbps the rest: p99 is 0.1, max is 1;
    busy the whole run (1 Gbps is above 1 % of 10 Gbps); headroom 0.9."""
    series = Series(t_s=[0.0, 0.05], values=[10 * GBPS, 1 * GBPS])
    (send, _) = nic_utilisation([adapter("nic1", series, team=None)], 10.0)
    assert (send.p50_share, send.p99_share, send.max_share, send.busy_s) == (0.1, 0.1, 1.0, 10.0)
    assert send.headroom_share == pytest.approx(0.9) and send.team_share is None


def test_below_one_percent_is_not_busy() -> None:
    """50 Mbps on 10 Gbps is 0.5 %: under BUSY_SHARE, so not busy."""
    (send, _) = nic_utilisation([adapter("nic1", Series(t_s=[0.0], values=[50e6]), team=None)], 4.0)
    assert send.busy_s == 0.0 and send.p50_share == pytest.approx(0.005)


@pytest.mark.parametrize(
    ("gbps", "hot"),
    [
        ((8, 2), False),  # 80 % / 20 %: the other member carried more than 10 %
        ((9.5, 0.5), True),  # 95 % / 5 %
        ((7.5, 2, 0.5), True),  # 75 % / 20 % / 5 %
        ((7, 2.5, 0.5), False),  # 70 % is not more than 70 %
        ((0, 0), False),  # nothing carried
    ],
)
def test_a_hot_spot_is_one_member_over_70_percent_and_another_under_10(gbps: tuple[float, ...], hot: bool) -> None:
    adapters = [adapter(f"nic{i}", Series(t_s=[0.0], values=[g * GBPS]) if g else Series()) for i, g in enumerate(gbps)]
    nics = nic_utilisation(adapters, 8.0)
    send, receive = team_utilisation(nics)
    total = sum(gbps)
    assert send.member_shares == pytest.approx([g / total if total else 0.0 for g in gbps])
    assert send.members == [f"nic{i}" for i in range(len(gbps))] and send.carried_bytes == round(total * GBPS)
    assert send.hot_spot is hot and receive.hot_spot is False
    assert [n.team_share for n in nics if n.direction == "send"] == pytest.approx(
        [g / total for g in gbps] if total else [None] * len(gbps)
    )


def test_core_busy_for_a_quarter_of_the_run() -> None:
    """A core fully busy from 1 s to 2 s of 4 s: at 0 for 75 % of the run, so p50 = 0 and
    p90 = p99 = max = 1 (the top 25 %); busy 1 s; no headroom at p99."""
    (core,) = core_utilisation([CoreSeries(host="hv1", core=0, busy=Series(t_s=[1.0, 2.0], values=[1.0, 0.0]))], 4.0)
    assert (core.p50_share, core.p90_share, core.p99_share, core.max_share, core.busy_s, core.headroom_share) == (
        0,
        1,
        1,
        1,
        1,
        0,
    )


def failover() -> Results:
    return simulate(parse_scenario(resources.files("hvnet.examples").joinpath("failover.yaml").read_text()))


def test_failover_utilisation() -> None:
    """failover.yaml (tests/test_tables.py): hv1/nic1 sends 5 Gbps, 10 Gbps from 5 s to 12 s while
    nic2 is down, then 5 Gbps to the end (32.28 s): p50 0.5, p99 1. hv2's team receives both
    copies on nic1 the whole run: a hot spot (shares 1, 0); hv1's team sends 61 % / 39 %: not."""
    results = failover()
    by = {(u.host, u.nic, u.direction): u for u in results.utilisation}
    send = by["hv1", "nic1", "send"]
    assert (send.p50_share, send.p99_share, send.max_share) == pytest.approx((0.5, 1.0, 1.0))
    assert send.busy_s == pytest.approx(results.end_s) and send.headroom_share == pytest.approx(0.0, abs=1e-9)
    assert by["hv2", "nic1", "receive"].p50_share == pytest.approx(1.0)
    teams = {(t.host, t.direction): t for t in results.teams_utilisation}
    assert teams["hv2", "receive"].hot_spot and teams["hv2", "receive"].member_shares == [1.0, 0.0]
    assert not teams["hv1", "send"].hot_spot
    assert len(results.cores_utilisation) == len(results.cores)
    # read back from JSON: the same figures, not computed again
    assert Results.model_validate_json(results.model_dump_json()) == results


def test_the_table_puts_the_busiest_first_and_marks_the_hot_member() -> None:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(utilisation_table(failover()))
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in out.getvalue().splitlines() if line.startswith("│")]
    assert rows[0][:2] == ["hv1/nic1", "send"] and rows[0][2:6] == ["50%", "100%", "100%", "100%"]
    assert ["hv2/nic1 (hot)", "receive", "100%", "100%", "100%", "100%", "32.3 s", "0%", "100%"] in rows
    assert ["hv2/nic2", "receive", "0%", "0%", "0%", "0%", "0 s", "100%", "0%"] in rows


def test_the_table_caps_its_rows_and_says_how_many_more() -> None:
    lines = ["name: many", "hosts:"]
    lines += [f"  - {{name: h{i:02d}, nics: [{{name: nic1, speed: 10Gbps}}]}}" for i in range(12)]
    results = simulate(parse_scenario("\n".join(lines) + "\n"))
    table = utilisation_table(results)
    assert (
        table.row_count == UTILISATION_ROWS
        and table.caption == "and 4 more NIC directions, less busy (all in --json and --report)"
    )
    assert utilisation_table(results, rows=None).row_count == 24


def test_the_figures_are_the_series_own_percentiles_peak_and_busy_time() -> None:
    """hvnet.utilisation computes them in one pass; they equal Series.percentile, peak and
    busy_time exactly, on random step functions and run ends (before, at and after the last point)."""
    import random

    from hvnet.utilisation import BUSY_SHARE, _figures

    rng = random.Random(14)
    for _ in range(2000):
        times = sorted({round(rng.uniform(0, 10), 1) for _ in range(rng.randint(1, 8))})
        series = Series(t_s=times, values=[rng.choice([0.0, 0.5, 1.0, rng.random()]) for _ in times])
        end = rng.choice([3.0, 10.0, 12.0, times[-1]])
        figures = _figures(series, 1.0, end)
        if not series.nonzero():
            assert figures["headroom_share"] == 1.0 and figures["busy_s"] == 0.0
            continue
        for p, name in ((50, "p50_share"), (90, "p90_share"), (99, "p99_share")):
            assert figures[name] == series.percentile(p, 0.0, end)
        assert figures["max_share"] == series.peak() and figures["busy_s"] == series.busy_time(BUSY_SHARE, end)
        assert figures["headroom_share"] == 1.0 - figures["p99_share"]
