"""Simulating a scenario: transfers share the network max-min fairly, and events change it.

Each test states a small network and the answer worked out by hand. Speeds are
chosen so the arithmetic is short: a 10 Gbps NIC gives 1.25 GB of line time per
second. Every byte of payload takes FRAME bytes of line time (frames of MTU
1500, docs/model.md "Frames"), so 1.25 GB at 10 Gbps takes FRAME = 1.0534 s.
The hosts have 6 GHz cores on the high-performance plan, fast enough that the
link, not the receiving core, limits a stream: these tests are about the
network; the CPU model has its own (test_ntttcp.py, test_cpu.py).
"""

from __future__ import annotations

import re
import textwrap

import pytest

from hvnet import Results, ScenarioError, parse_scenario, simulate
from hvnet.model import Scenario

GB = 10**9
#: Line time per payload byte at MTU 1500: a 1538-byte frame on the wire for
#: 1460 bytes of payload (hvnet.lower.frames).
FRAME = 1538 / 1460
#: A CPU fast enough that one stream is never core-bound at 10 Gbps.
FAST_CPU = "cpu: {ghz: 6}, power_plan: high_performance, "


def fast(generated: str) -> str:
    """A generated topology with FAST_CPU hosts."""
    return re.sub(r"(?m)^- name: (hv\d+)$", r"- name: \1\n  cpu: {ghz: 6}\n  power_plan: high_performance", generated)


def scenario(body: str, hosts: int = 4, nic: str = "10Gbps", switch: str = "{name: sw}") -> Scenario:
    """`hosts` hosts h1..hN, one NIC each, on one switch; `body` adds traffic and events."""
    lines = ["name: test", "hosts:"]
    lines += [f"  - {{name: h{i}, {FAST_CPU}nics: [{{name: nic1, speed: {nic}}}]}}" for i in range(1, hosts + 1)]
    lines += ["switches:", f"  - {switch}", "cables:"]
    lines += [f"  - {{a: h{i}/nic1, b: sw/{i}}}" for i in range(1, hosts + 1)]
    return parse_scenario("\n".join(lines) + "\n" + textwrap.dedent(body))


def ends(results: Results) -> list[float | None]:
    return [t.end_s for t in results.traffic]


def test_one_flow_runs_at_the_nic_speed() -> None:
    """1.25 GB at 10 Gbps takes FRAME s; its mean rate is the NIC's speed less the frame overhead."""
    results = simulate(scenario("traffic: [{from: h1, to: h2, size: 1.25GB}]"))
    (flow,) = results.traffic
    assert flow.start_s == 0.0
    assert flow.end_s == pytest.approx(GB * 1.25 * 8 / 10e9 * FRAME)
    assert flow.duration_s == pytest.approx(FRAME)
    assert flow.mean_bps == pytest.approx(10e9 / FRAME)


def test_two_flows_share_one_nic() -> None:
    """Two 1.25 GB flows out of one 10 Gbps NIC get 5 Gbps each: both end at 2 × FRAME s."""
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 1.25GB}
              - {from: h1, to: h3, size: 1.25GB}
            """
        )
    )
    assert ends(results) == [pytest.approx(2 * FRAME), pytest.approx(2 * FRAME)]
    assert [t.mean_bps for t in results.traffic] == [pytest.approx(5e9 / FRAME)] * 2


def test_flows_on_different_nics_do_not_share() -> None:
    """h1→h2 and h3→h4 through a non-blocking switch each run at 10 Gbps: FRAME s."""
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 1.25GB}
              - {from: h3, to: h4, size: 1.25GB}
            """
        )
    )
    assert ends(results) == [pytest.approx(FRAME), pytest.approx(FRAME)]


def test_a_switch_backplane_is_shared_by_all_traffic_through_it() -> None:
    """The same two host pairs through a switch with a 10 Gbps backplane: 5 Gbps each, twice as long."""
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 1.25GB}
              - {from: h3, to: h4, size: 1.25GB}
            """,
            switch="{name: sw, backplane: 10Gbps}",
        )
    )
    # Frames cross the backplane too: it carries FRAME bytes per byte of payload.
    assert ends(results) == [pytest.approx(2 * FRAME), pytest.approx(2 * FRAME)]


def test_a_later_flow_takes_its_share_when_it_starts() -> None:
    """h1 sends 2.5 GB from 0 s and 0.625 GB from 1 s on one 10 Gbps NIC.

    From 1 s the two share the NIC, 5 Gbps each: the second's 0.625 GB takes
    FRAME s and ends at 1 + FRAME. The NIC is busy all along, so the first
    ends when all 3.125 GB have crossed it: 3.125 × FRAME / 1.25 = 2.5 × FRAME
    (without frame overhead: 2.0 s and 2.5 s).
    """
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 2.5GB}
              - {from: h1, to: h3, size: 625MB, start: 1s}
            """
        )
    )
    assert ends(results) == [pytest.approx(2.5 * FRAME), pytest.approx(1 + FRAME)]
    assert results.traffic[1].duration_s == pytest.approx(FRAME)


def test_connections_split_the_size_evenly() -> None:
    """`connections: 4` of a 5 GB flow: four connections of 1.25 GB, each at 2.5 Gbps, all end at 4 × FRAME s."""
    (flow,) = simulate(scenario("traffic: [{from: h1, to: h2, size: 5GB, connections: 4}]")).traffic
    assert len(flow.connection_results) == 4
    assert [c.end_s for c in flow.connection_results] == [pytest.approx(4 * FRAME)] * 4


def test_each_connection_gets_its_own_share() -> None:
    """A 4 GB flow in 4 connections and a 1 GB flow in 1 share a 10 Gbps NIC as five equals.

    Each connection gets 2 Gbps and carries 1 GB: all five end at 4 × FRAME s.
    (Had the size not been split evenly, the 4-connection flow would end later.)
    """
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 4GB, connections: 4}
              - {from: h1, to: h3, size: 1GB}
            """
        )
    )
    assert ends(results) == [pytest.approx(4 * FRAME), pytest.approx(4 * FRAME)]


def test_a_slower_switch_port_limits_the_cable() -> None:
    """10 Gbps NICs on a switch with 1 Gbps ports: 1.25 GB takes 10 × FRAME s."""
    results = simulate(scenario("traffic: [{from: h1, to: h2, size: 1.25GB}]", switch="{name: sw, port_speed: 1Gbps}"))
    assert ends(results) == [pytest.approx(10 * FRAME)]


def test_back_to_back_hosts() -> None:
    """Two hosts with their NICs cabled to each other, no switch: 1.25 GB at 10 Gbps in FRAME s."""
    results = simulate(
        parse_scenario(
            textwrap.dedent(
                """
                name: back to back
                hosts:
                  - {name: h1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
                  - {name: h2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
                cables:
                  - {a: h1/nic1, b: h2/nic1}
                traffic:
                  - {from: h1, to: h2, size: 1.25GB}
                  - {from: h2, to: h1, size: 1.25GB}
                """
            )
        )
    )
    # Full duplex: the two directions do not share.
    assert ends(results) == [pytest.approx(FRAME), pytest.approx(FRAME)]


# Failures. A 2.5 GB transfer on a 10 Gbps NIC needs 2 × FRAME = 2.11 s of link time.

TRANSFER = "traffic: [{from: h1, to: h2, size: 2.5GB}]\n"


@pytest.mark.parametrize(
    ("events", "why"),
    [
        ("[{at: 1s, action: nic_down, target: h1/nic1}, {at: 4s, action: nic_up, target: h1/nic1}]", "the NIC"),
        ("[{at: 1s, action: cable_down, target: h1/nic1}, {at: 4s, action: cable_up, target: h1/nic1}]", "cable"),
        ("[{at: 1s, action: cable_down, target: h1/nic1}, {at: 4s, action: cable_up, target: sw/1}]", "either end"),
        ("[{at: 1s, action: switch_down, target: sw}, {at: 4s, action: switch_up, target: sw}]", "the switch"),
        ("[{at: 1s, action: port_blackhole, target: sw/2}, {at: 4s, action: port_restore, target: sw/2}]", "port"),
        ("[{at: 1s, action: nic_down, target: h2/nic1}, {at: 4s, action: nic_up, target: h2/nic1}]", "receiver"),
    ],
    ids=["nic", "cable", "cable-by-the-other-end", "switch", "blackhole", "receiving-nic"],
)
def test_an_outage_from_1s_to_4s_delays_the_transfer_by_3s(events: str, why: str) -> None:
    """1 s of transfer, 3 s down, the rest after: it ends at 3 + 2 × FRAME s instead of 2 × FRAME s.

    A cable may be taken down by one end and brought back by the other.
    """
    results = simulate(scenario(TRANSFER + f"events: {events}\n"))
    assert ends(results) == [pytest.approx(3 + 2 * FRAME)], why


def test_a_resource_comes_back_only_when_every_cause_is_gone() -> None:
    """The NIC is down 1-3 s and its cable 2-4 s: the link is down from 1 s to 4 s; end at 3 + 2 × FRAME s."""
    results = simulate(
        scenario(
            TRANSFER
            + textwrap.dedent(
                """
                events:
                  - {at: 1s, action: nic_down, target: h1/nic1}
                  - {at: 2s, action: cable_down, target: sw/1}
                  - {at: 3s, action: nic_up, target: h1/nic1}
                  - {at: 4s, action: cable_up, target: h1/nic1}
                """
            )
        )
    )
    assert ends(results) == [pytest.approx(3 + 2 * FRAME)]


def test_an_unrelated_failure_changes_nothing() -> None:
    """h3's NIC failing does not slow h1→h2: 2 × FRAME s."""
    results = simulate(scenario(TRANSFER + "events: [{at: 1s, action: nic_down, target: h3/nic1}]\n"))
    assert ends(results) == [pytest.approx(2 * FRAME)]


def test_a_nic_that_never_comes_back_leaves_the_traffic_stalled() -> None:
    """h1's NIC fails at 1 s for good: the transfer never completes.

    Its end, duration and mean rate are None (null in JSON), it is listed as
    stalled, and the run ends at the failure, the last thing that happened.
    """
    results = simulate(scenario(TRANSFER + "events: [{at: 1s, action: nic_down, target: h1/nic1}]\n"))
    (flow,) = results.traffic
    assert (flow.end_s, flow.duration_s, flow.mean_bps) == (None, None, None)
    assert results.stalled == [flow]
    assert results.end_s == pytest.approx(1.0)


def test_a_stalled_connection_stalls_its_whole_traffic_entry() -> None:
    """A flow ends when its last connection ends; if one never does, neither does the flow.

    Here the flow has one connection and another flow on a healthy path completes.
    """
    results = simulate(
        scenario(
            """
            traffic:
              - {from: h1, to: h2, size: 2.5GB}
              - {from: h3, to: h4, size: 1.25GB}
            events: [{at: 1s, action: nic_down, target: h1/nic1}]
            """
        )
    )
    assert ends(results) == [None, pytest.approx(FRAME)]
    assert [t.name for t in results.stalled] == [None]


# Where the traffic goes: the adapters' time series.


def test_adapter_series_are_the_mean_rate_per_step() -> None:
    """2.5 GB from h1 to h2 at 10 Gbps for 2 × FRAME = 2.11 s, resampled every 0.5 s.

    h1/nic1 sends and h2/nic1 receives 10 Gbps of line rate (frames included)
    in each of the first four bins, and in the fifth for 0.12 s of its 0.5 s;
    nothing flows the other way, and h3 sees nothing.
    """
    results = simulate(scenario(TRANSFER))
    by_nic = {(a.host, a.nic): a for a in results.adapters}
    assert [(a.host, a.nic) for a in results.adapters] == [(f"h{i}", "nic1") for i in range(1, 5)]
    last = 10e9 * (2 * FRAME - 2.0) / 0.5
    end = results.end_s
    assert by_nic["h1", "nic1"].send_bps.resample(0.5, end) == [pytest.approx(10e9)] * 4 + [pytest.approx(last)]
    assert by_nic["h2", "nic1"].receive_bps.resample(0.5, end) == [pytest.approx(10e9)] * 4 + [pytest.approx(last)]
    assert by_nic["h1", "nic1"].receive_bps.peak() == 0.0
    assert by_nic["h3", "nic1"].send_bps.peak() == by_nic["h3", "nic1"].receive_bps.peak() == 0.0
    assert by_nic["h1", "nic1"].speed_bps == 10e9


def test_a_bin_holds_the_mean_over_the_step() -> None:
    """625 MB at 10 Gbps takes 0.5 × FRAME s: with 1 s steps, the single bin's mean is 5 × FRAME Gbps."""
    results = simulate(scenario("traffic: [{from: h1, to: h2, size: 625MB}]"))
    assert results.adapters[0].send_bps.resample(1.0, results.end_s) == [pytest.approx(5e9 * FRAME)]


VM_HOSTS = """
name: VM uplinks
hosts:
  - name: hv1
    cpu: {ghz: 6}
    power_plan: high_performance
    nics:
      - {name: mgmt, speed: 10Gbps}
      - {name: nic1, speed: 10Gbps}
    vswitches:
      - {name: vs-mgmt, uplink: mgmt}
      - {name: vs-vm, uplink: nic1}
  - name: hv2
    cpu: {ghz: 6}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps}]
switches: [{name: sw}]
cables:
  - {a: hv1/mgmt, b: sw/1}
  - {a: hv1/nic1, b: sw/2}
  - {a: hv2/nic1, b: sw/3}
vms:
  - {name: vm1, host: hv1, memory: 1GiB, vswitch: vs-vm}
"""


def test_a_vms_traffic_goes_through_its_vswitchs_uplink() -> None:
    """vm1 sits on vs-vm (uplink nic1), the host's own traffic on its first vswitch (uplink mgmt).

    Both send 1.25 GB to hv2 and each gets 5 Gbps of hv2's only NIC (2 × FRAME s),
    but they leave hv1 on different NICs.
    """
    results = simulate(
        parse_scenario(VM_HOSTS + "traffic: [{from: vm1, to: hv2, size: 1.25GB}, {from: hv1, to: hv2, size: 1.25GB}]\n")
    )
    assert ends(results) == [pytest.approx(2 * FRAME), pytest.approx(2 * FRAME)]
    peak_send = {a.nic: a.send_bps.peak() for a in results.adapters if a.host == "hv1"}
    assert peak_send == {"mgmt": pytest.approx(5e9), "nic1": pytest.approx(5e9)}


def test_a_vm_alone_uses_only_its_uplink() -> None:
    results = simulate(parse_scenario(VM_HOSTS + "traffic: [{from: vm1, to: hv2, size: 1.25GB}]\n"))
    peak_send = {a.nic: a.send_bps.peak() for a in results.adapters if a.host == "hv1"}
    assert peak_send == {"mgmt": 0.0, "nic1": pytest.approx(10e9)}


def test_leaf_spine_uplinks_are_shared() -> None:
    """4 hosts on 2 leaves and 1 spine, 10 Gbps everywhere: h1→h3 and h2→h4 both cross leaf1→spine1.

    They share that 10 Gbps uplink: 5 Gbps each, 1.25 GB in 2 × FRAME s. With a
    20 Gbps uplink they run at their NICs' 10 Gbps: FRAME s.
    """
    from hvnet.topology import leaf_spine

    traffic = "traffic: [{from: hv1, to: hv3, size: 1.25GB}, {from: hv2, to: hv4, size: 1.25GB}]\n"
    narrow = simulate(parse_scenario(fast(leaf_spine(4, "10Gbps", 2, 1, "10Gbps")) + traffic))
    wide = simulate(parse_scenario(fast(leaf_spine(4, "10Gbps", 2, 1, "20Gbps")) + traffic))
    assert ends(narrow) == [pytest.approx(2 * FRAME), pytest.approx(2 * FRAME)]
    assert ends(wide) == [pytest.approx(FRAME), pytest.approx(FRAME)]


def test_traffic_without_a_cabled_path_is_a_scenario_error() -> None:
    """h3 has a NIC but no cable: every such traffic entry is reported, with its position."""
    text = textwrap.dedent(
        """
        name: island
        hosts:
          - {name: h1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: h2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: h3, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
        cables: [{a: h1/nic1, b: h2/nic1}]
        traffic:
          - {from: h1, to: h2, size: 1GB}
          - {from: h1, to: h3, size: 1GB}
          - {from: h3, to: h2, size: 1GB}
        """
    )
    with pytest.raises(ScenarioError) as caught:
        simulate(parse_scenario(text, "island.yaml"), filename="island.yaml")
    assert [(p.file, p.field) for p in caught.value.problems] == [
        ("island.yaml", "traffic[1]"),
        ("island.yaml", "traffic[2]"),
    ]
    assert all("no cabled path" in p.message for p in caught.value.problems)


def test_results_name_the_scenario_and_count_engine_events() -> None:
    results = simulate(scenario(TRANSFER))
    assert results.scenario == "test"
    assert results.events > 0
    assert results.wall_s >= 0.0
    assert results.end_s == pytest.approx(2 * FRAME)


@pytest.mark.parametrize("enabled", [True, False])
def test_simulate_leaves_the_cycle_collector_as_it_found_it(enabled: bool) -> None:
    """simulate pauses Python's cycle collector while it lowers and reads back (hvnet.simulation); it
    must resume it only if it was running, after a run and after a refused one alike."""
    import gc

    was = gc.isenabled()
    try:
        if not enabled:
            gc.disable()
        simulate(scenario("traffic: [{from: h1, to: h2, size: 1GB}]"))
        assert gc.isenabled() is enabled
        island = """\
            name: island
            hosts:
              - {name: h1, nics: [{name: nic1, speed: 10Gbps}]}
              - {name: h2, nics: [{name: nic1, speed: 10Gbps}]}
            traffic: [{from: h1, to: h2, size: 1GB}]
            """
        with pytest.raises(ScenarioError):  # no cable joins them
            simulate(parse_scenario(textwrap.dedent(island), "island.yaml"))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
