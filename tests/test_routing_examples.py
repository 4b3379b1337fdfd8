"""docs/model.md's worked examples of routing around failures, figure for figure.

The leaf-spine of `hvnet topology leaf-spine --hosts 4` (hosts at 10 Gbps,
40 Gbps uplinks), one 5 GB transfer from hv1 (leaf1) to hv3 (leaf2) in one
connection, the default parameters: carrier delay 0.1 s, BFD 300 ms × 3,
convergence 0.5 s. Without failures it ends at 6.24 s (the receiving
core's limit, 6.41 Gbps of payload) over spine1, where its ECMP hash puts it.
"""

from __future__ import annotations

import pytest

from hvnet import parse_scenario, simulate
from hvnet.failure_costs import with_costs
from hvnet.failure_text import failure_blocks
from hvnet.results import Results
from hvnet.topology import leaf_spine

BASE = leaf_spine(4, "10Gbps", 2, 2, "40Gbps") + "traffic: [{name: t1, from: hv1, to: hv3, size: 5GB}]\n"
ALONE_S = 5e9 * 8 / 6.408188449874627e9  # 6.24 s: the transfer on its own


def run(events: str) -> Results:
    return simulate(parse_scenario(BASE + f"events: [{events}]\n" if events else BASE, "leaf-spine.yaml"))


def test_without_failures_the_transfer_takes_its_core_s_rate() -> None:
    (t1,) = run("").traffic
    assert t1.end_s == pytest.approx(ALONE_S, rel=1e-12)
    assert t1.end_s == pytest.approx(6.242, abs=1e-3)


def test_a_spine_that_fails_costs_detection_and_convergence_then_the_other_spine_carries_it() -> None:
    """Example 1: black-holed 0.1 s (carrier delay) + 0.5 s (convergence), then over spine2: 6.84 s."""
    results = run("{at: 0s, action: switch_down, target: spine1}")
    (t1,) = results.traffic
    (connection,) = t1.connection_results
    assert connection.blackholed_s == pytest.approx(0.6, abs=1e-12)
    assert connection.rerouted_s == [pytest.approx(0.6, abs=1e-12)]
    assert t1.end_s == pytest.approx(0.6 + ALONE_S, rel=1e-12)
    assert results.warnings == []
    (failure,) = results.failures
    assert [r.seen_by for r in failure.routing] == ["link down", "link down"]
    assert [r.seen_s for r in failure.routing] == [pytest.approx(0.1), pytest.approx(0.1)]
    assert [r.rerouted_s for r in failure.routing] == [pytest.approx(0.6), pytest.approx(0.6)]
    assert [r.restored_s for r in failure.routing] == [None, None]
    # The other spine failing costs it nothing: it is not on it.
    (untouched,) = run("{at: 0s, action: switch_down, target: spine2}").traffic
    assert untouched.end_s == pytest.approx(ALONE_S, rel=1e-12)


def test_a_leaf_uplink_that_fails_costs_the_same_six_tenths() -> None:
    """Example 2: leaf1–spine1 cut at 1 s; seen 1.1 s, routed around 1.6 s; ends 6.84 s."""
    (t1,) = run("{at: 1s, action: cable_down, target: leaf1/3}").traffic
    assert t1.blackholed_s == pytest.approx(0.6, abs=1e-12)
    assert t1.end_s == pytest.approx(0.6 + ALONE_S, rel=1e-12)


def test_a_silent_failure_during_convergence_leaves_no_route_and_says_so() -> None:
    """Example 3: spine1 down at 0 s; spine2's port to leaf1 silent from 0.3 s, seen by BFD at
    1.2 s, routed around at 1.7 s: no route left, black-holed from 0 s for good, with a warning."""
    results = run("{at: 0s, action: switch_down, target: spine1}, {at: 0.3s, action: port_blackhole, target: spine2/1}")
    (t1,) = results.traffic
    assert t1.end_s is None
    assert t1.connection_results[0].stalled_since_s == 0.0
    blackhole = next(f for f in results.failures if f.action == "port_blackhole")
    (change,) = blackhole.routing
    assert change.seen_s == pytest.approx(1.2)
    assert change.seen_by == "BFD 300 ms × 3"
    assert change.rerouted_s == pytest.approx(1.7)
    assert results.warnings == [
        "traffic t1 (hv1 → hv3) never completes: its connection is black-holed from 0 s to the end of the "
        "run: the fabric has no route left between leaf1 and leaf2 after port_blackhole spine2/1, switch_down "
        "spine1, since routing converged at 1.70 s; no path is left for it"
    ]


def test_a_failure_and_its_repair_cost_the_six_tenths_and_move_it_back() -> None:
    """Example 4: spine1 down at 1 s and back at 3 s: over spine2 from 1.6 s, back on spine1 at 3.5 s."""
    events = "{at: 1s, action: switch_down, target: spine1}, {at: 3s, action: switch_up, target: spine1}"
    results = run(events)
    (t1,) = results.traffic
    assert t1.connection_results[0].rerouted_s == [pytest.approx(1.6), pytest.approx(3.5)]
    assert t1.end_s == pytest.approx(0.6 + ALONE_S, rel=1e-12)
    costed = with_costs(parse_scenario(BASE + f"events: [{events}]\n", "leaf-spine.yaml"), results)
    (block,) = failure_blocks(costed)
    assert block[0] == "1.00 s  switch_down spine1, repaired 3.00 s"
    assert block[-1] == "  t1: its connection black-holed 600 ms, 1 moved; ends 6.84 s, +600 ms (6.24 s without it)"
    (hit,) = costed.failures[0].hits
    assert hit.end_without_s == pytest.approx(ALONE_S, rel=1e-12)


def test_with_bfd_off_a_silent_failure_waits_for_the_hold_time() -> None:
    """The same black hole on a leaf uplink at 1 s: BFD sees it at 1.9 s; without BFD the routing
    protocol's hold time (90 s) does, at 91 s: 89.1 s more black-holed, 89.1 s later done."""
    hole = "{at: 1s, action: port_blackhole, target: leaf1/3}"
    (fast,) = run(hole).traffic
    slow = simulate(parse_scenario(BASE + "fabric: {bfd: false}\n" + f"events: [{hole}]\n", "x.yaml")).traffic[0]
    assert fast.blackholed_s == pytest.approx(0.9 + 0.5)
    assert slow.blackholed_s == pytest.approx(90 + 0.5)
    assert fast.end_s is not None and slow.end_s == pytest.approx(fast.end_s + 89.1, rel=1e-12)


def test_a_spanning_tree_uses_one_spine_and_takes_thirty_seconds_to_use_the_other() -> None:
    """STP: the tree from leaf1 reaches leaf2 over spine1 only; spine1 down at 0 s is seen at 0.1 s
    and the blocked ports forward after listening and learning, 2 × 15 s: black-holed 30.1 s."""
    text = BASE + "fabric: {forwarding: stp}\nevents: [{at: 0s, action: switch_down, target: spine1}]\n"
    (t1,) = simulate(parse_scenario(text, "stp.yaml")).traffic
    assert t1.blackholed_s == pytest.approx(30.1)
    assert t1.end_s == pytest.approx(30.1 + ALONE_S, rel=1e-12)
