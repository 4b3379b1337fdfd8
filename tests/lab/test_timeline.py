"""What happens in the lab and when: each connection pinned to the NICs hvnet chose, failures and moves in time."""

from __future__ import annotations

from pathlib import Path

import hvnet
from hvnet.lab import names
from hvnet.lab.plan import Topology, plan_topology
from hvnet.lab.prediction import Prediction, predict
from hvnet.lab.scaling import Scale, scaled_scenario
from hvnet.lab.timeline import agent_jobs, plan_timeline
from hvnet.model import parse_scenario

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
LAB = ROOT / "python" / "hvnet" / "lab" / "scenarios"
RUN = "a1b2c3"
H0, H1, S0 = (f"hvlab-{RUN}-{x}" for x in ("h0", "h1", "s0"))


def _failover() -> tuple[Topology, Prediction]:
    scaled = scaled_scenario(hvnet.load(FAILOVER), Scale(0.01, 0.25))
    prediction = predict(scaled)
    return plan_topology(scaled, RUN), prediction


def test_each_connection_has_its_own_addresses_rule_and_table_on_both_hosts() -> None:
    """copy-2 (connection 1) leaves hv1 by nic2 and arrives on hv2's nic1 (its switch-independent team receives
    on one member): its route and neighbour say so on both sides."""
    topology, prediction = _failover()
    timeline = plan_timeline(topology, prediction)
    source, target = names.addresses(1)
    assert (source, target, names.table(1)) == ("10.1.0.2", "10.2.0.2", 1001)
    assert f"address add {source}/32 dev lo" in timeline.setup[H0]
    assert f"rule add from {source} lookup 1001 pref 1001" in timeline.setup[H0]
    assert f"route replace {target}/32 dev nic2 table 1001" in timeline.setup[H0]
    assert f"neigh replace {target} lladdr {names.mac(1, 0)} dev nic2 nud permanent" in timeline.setup[H0]
    assert f"route replace {source}/32 dev nic1 table 1001" in timeline.setup[H1]
    assert f"neigh replace {source} lladdr {names.mac(0, 1)} dev nic1 nud permanent" in timeline.setup[H1]


def test_a_failure_and_its_repair_come_at_their_scaled_times_with_the_twins_moves() -> None:
    """hv1/nic2 fails at 5 s (1.25 s at times 1/4): the interface goes down and copy-2 moves to nic1, as the team
    moved it; at 3 s it comes back and copy-2 returns to nic2."""
    topology, prediction = _failover()
    down, up = plan_timeline(topology, prediction).actions
    assert (down.at_s, up.at_s) == (1.25, 3.0)
    assert down.lines[H0][0] == "link set nic2 down"
    assert "route replace 10.2.0.2/32 dev nic1 table 1001" in down.lines[H0]
    assert up.lines[H0][0] == "link set nic2 up"
    assert "route replace 10.2.0.2/32 dev nic2 table 1001" in up.lines[H0]
    assert "neigh replace 10.1.0.2 lladdr 02:68:76:00:00:01 dev nic1 nud permanent" in up.lines[H1]


def test_a_lone_nic_that_comes_back_gets_its_connections_routes_again() -> None:
    """Setting an interface down removes its routes; at nic_up the connection pinned to it is routed again (no move)."""
    scaled = scaled_scenario(hvnet.load(LAB / "nic-down.yaml"), Scale())
    topology = plan_topology(scaled, RUN)
    down, up = plan_timeline(topology, predict(scaled)).actions
    assert down.lines == {H0: ("link set nic1 down",)}
    assert up.lines[H0][:2] == ("link set nic1 up", "route replace 10.2.0.1/32 dev nic1 table 1000")


def test_cable_switch_and_port_failures_act_on_the_switch() -> None:
    """A cable's failure takes down its switch end (the host sees its carrier go); a switch's, every port and
    its bridge; a port's black hole stops the bridge port forwarding with its link up."""
    text = (LAB / "two-hosts.yaml").read_text() + (
        "events:\n"
        "  - {at: 0.2s, action: cable_down, target: hv1/nic1}\n"
        "  - {at: 0.4s, action: cable_up, target: tor1/1}\n"
        "  - {at: 0.6s, action: switch_down, target: tor1}\n"
        "  - {at: 0.8s, action: switch_up, target: tor1}\n"
        "  - {at: 1.0s, action: port_blackhole, target: tor1/2}\n"
        "  - {at: 1.2s, action: port_restore, target: tor1/2}\n"
    )
    scaled = scaled_scenario(parse_scenario(text), Scale())
    topology = plan_topology(scaled, RUN)
    actions = plan_timeline(topology, predict(scaled)).actions
    assert [a.lines.get(S0, ())[:1] for a in actions] == [
        ("link set p1 down",),
        ("link set p1 up",),
        ("link set p1 down",),
        ("link set br0 up",),
        ("link set dev p2 type bridge_slave state 0",),
        ("link set dev p2 type bridge_slave state 3",),
    ]
    assert actions[2].lines[S0][-1] == "link set br0 down"


def test_each_agent_receives_its_connections_and_sends_its_transfers() -> None:
    topology, prediction = _failover()
    jobs = agent_jobs(topology, prediction)
    assert jobs["hv1"]["interfaces"] == {"nic1": "nic1", "nic2": "nic2"}
    assert [r["id"] for r in jobs["hv2"]["receive"]] == [0, 1]
    assert [s["id"] for s in jobs["hv1"]["send"]] == ["x0", "x1"]
    (step,) = jobs["hv1"]["send"][1]["steps"]
    assert step == [
        {
            "id": 1,
            "src": "10.1.0.2",
            "dst": "10.2.0.2",
            "port": names.PORT,
            "bytes": 50_000_000,
            "rate_bytes_per_s": None,
            "stop_s": None,
        }
    ]


def test_a_queued_migration_waits_for_the_one_whose_slot_it_takes() -> None:
    """drain.yaml: two at a time; vm3 and vm4 wait in the host's queue for a slot that vm1 or vm2 frees (each for
    the one that ended as it started), after the twin's pause (switch-over and set-up before the first byte);
    each migration is its pre-copy pass, then the blackout's copy."""
    prediction = predict(scaled_scenario(hvnet.load(LAB / "drain.yaml"), Scale()))
    vm1, vm2, vm3, vm4 = prediction.transfers
    assert (vm1.after, vm2.after) == ((), ())
    assert vm3.after and vm4.after and set(vm3.after) | set(vm4.after) == {0, 1}
    migrations = prediction.results.migrations
    for waiting in (vm3, vm4):
        started = migrations[waiting.item].start_s
        assert any(migrations[prediction.transfers[a].item].end_s == started for a in waiting.after)
        assert waiting.gap_s > 2.0
    assert [len(step) for step in vm1.steps] == [1, 1]
    assert vm1.steps[0][0].bytes == round(2**30 / 100)
