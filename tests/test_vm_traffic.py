"""VM traffic: inside one virtual switch, and the MTU set inside a VM (issue 16, items 1 and 2).

Two VMs on one virtual switch exchange data without a NIC: only the cores and vCPUs at both ends bound
them. A VM's own MTU (default 1500, Windows' default) caps its packets whatever its host's NICs allow.
Each test states the direction the documentation gives (docs/model.md, "Traffic inside a virtual switch"
and "Frames and the MTU"), and checks the model moves that way.
"""

from __future__ import annotations

import pytest

import hvnet
from hvnet.lower import frames
from hvnet.results import Results

HOSTS = """
name: {name}
hosts:
  - name: hv1
    cpu: {{sockets: 1, cores_per_socket: 8, ghz: 2.9}}
    nics:
      - {{name: nic1, speed: 10Gbps, mtu: {nic_mtu}, vmq: {vmq}}}
      - {{name: nic2, speed: 10Gbps, mtu: {nic_mtu}, vmq: {vmq}}}
    vswitches:
      - {{name: vs, uplink: nic1}}
      - {{name: other, uplink: nic2}}
  - name: hv2
    cpu: {{sockets: 1, cores_per_socket: 8, ghz: 2.9}}
    nics:
      - {{name: nic1, speed: 10Gbps, mtu: {nic_mtu}, vmq: {vmq}}}
    vswitches:
      - {{name: vs, uplink: nic1}}
switches:
  - {{name: sw, ports: 8, port_speed: 10Gbps, mtu: {switch_mtu}}}
cables:
  - {{a: hv1/nic1, b: sw/1}}
  - {{a: hv1/nic2, b: sw/2}}
  - {{a: hv2/nic1, b: sw/3}}
vms:
  - {{name: a, host: hv1, vcpus: {vcpus}, memory: 4GiB, vswitch: vs, mtu: {vm_mtu}}}
  - {{name: b, host: hv1, vcpus: {vcpus}, memory: 4GiB, vswitch: vs, mtu: {vm_mtu}}}
  - {{name: c, host: hv1, vcpus: {vcpus}, memory: 4GiB, vswitch: other, mtu: {vm_mtu}}}
  - {{name: d, host: hv2, vcpus: {vcpus}, memory: 4GiB, vswitch: vs, mtu: {vm_mtu}}}
traffic:
  - {{name: t, from: {source}, to: {target}, size: 10GB, connections: {connections}}}
{events}"""


def run(
    source: str = "a",
    target: str = "b",
    *,
    vcpus: int = 4,
    vm_mtu: int = 1500,
    nic_mtu: int = 9000,
    switch_mtu: int = 9216,
    vmq: bool = True,
    connections: int = 4,
    events: str = "",
) -> Results:
    text = HOSTS.format(
        name="vm traffic",
        source=source,
        target=target,
        vcpus=vcpus,
        vm_mtu=vm_mtu,
        nic_mtu=nic_mtu,
        switch_mtu=switch_mtu,
        vmq=str(vmq).lower(),
        connections=connections,
        events=events,
    )
    return hvnet.simulate(hvnet.parse_scenario(text, "vm-traffic.yaml"))


def rate(results: Results) -> float:
    (flow,) = results.traffic
    assert flow.end_s is not None, "the transfer must complete"
    assert flow.mean_bps is not None
    return flow.mean_bps


def nic_bits(results: Results) -> float:
    return sum(
        a.send_bps.integral(0, results.end_s) + a.receive_bps.integral(0, results.end_s) for a in results.adapters
    )


def guest_core_s(results: Results, vm: str) -> float:
    return sum(v.busy.integral(0, results.end_s) for v in results.vcpus if v.vm == vm)


# --- inside one virtual switch --------------------------------------------------------------------------------


def test_two_vms_on_one_virtual_switch_never_touch_a_nic() -> None:
    """Their traffic crosses the virtual switch only: no NIC sends or receives a bit, and the connections
    report the switch's internal pair (`hv1/vs`) rather than a NIC."""
    results = run()
    assert nic_bits(results) == 0.0
    (flow,) = results.traffic
    assert {(c.nics[0].out_nic, c.nics[0].in_nic) for c in flow.connection_results} == {("hv1/vs", "hv1/vs")}


def test_inside_a_virtual_switch_a_vm_pair_can_exceed_the_uplink() -> None:
    """No link bounds it: with jumbo frames in the guests (4 vCPUs each, vRSS) the pair goes past the 10 Gbps
    uplink, as the measured same-host figures do (about 30 Gbps in docs/validation.md's V1)."""
    assert rate(run(vm_mtu=9000)) > 10e9


def test_a_nic_failure_does_not_stop_traffic_inside_a_virtual_switch() -> None:
    """The uplink going down cuts the VMs off from the network, not from each other."""
    up = run()
    down = run(events="events:\n  - {at: 1s, action: nic_down, target: hv1/nic1}\n")
    assert rate(down) == pytest.approx(rate(up), rel=1e-12)
    assert down.traffic[0].blackholed_s == 0.0


def test_vrss_spreads_vm_to_vm_traffic_and_goes_faster() -> None:
    """vRSS (2 or more vCPUs on 10 Gbps VMQ NICs) spreads the receiving VM's work over its vCPUs and its
    queue's cores: 4 vCPUs go faster than 1, whose single receiving vCPU and core bound every connection."""
    spread, single = rate(run(vcpus=4)), rate(run(vcpus=1))
    assert spread > 1.3 * single


def test_without_vmq_vm_to_vm_traffic_lands_on_core_0_and_is_slower() -> None:
    """Without VMQ every VM's host-side work lands on the default queue's core 0."""
    assert rate(run(vmq=False)) < rate(run(vmq=True))


def test_a_host_and_its_own_vm_on_the_switch_of_its_vnic_talk_inside_it() -> None:
    """The host's vNIC is a port of its first virtual switch: host-to-VM traffic there stays inside."""
    results = run(source="hv1", target="b")
    assert nic_bits(results) == 0.0


def test_two_vms_on_different_virtual_switches_of_one_host_go_out_and_back_through_the_fabric() -> None:
    """Two external virtual switches are joined only by the physical network: out one NIC, back in the other."""
    results = run(source="a", target="c")
    assert nic_bits(results) > 0.0
    (flow,) = results.traffic
    assert {c.nics[0].out_nic for c in flow.connection_results} == {"hv1/nic1"}
    assert {c.nics[0].in_nic for c in flow.connection_results} == {"hv1/nic2"}


# --- the MTU inside a VM --------------------------------------------------------------------------------------


def test_jumbo_frames_in_the_vm_lower_its_cpu_per_byte() -> None:
    """Fewer, larger packets: the receiving guest spends fewer vCPU-seconds per byte at MTU 9000."""
    small, jumbo = run(vm_mtu=1500), run(vm_mtu=9000)
    assert guest_core_s(jumbo, "b") < 0.8 * guest_core_s(small, "b")


def test_jumbo_frames_in_the_vm_raise_vm_to_vm_throughput() -> None:
    """Same host, 4 vCPUs each: the cores bound the pair, and a byte costs them less in larger packets."""
    assert rate(run(vm_mtu=9000)) > 1.3 * rate(run(vm_mtu=1500))


def test_jumbo_nics_do_not_make_a_vms_traffic_jumbo() -> None:
    """Between hosts, one stream from a VM of MTU 1500 over NICs of MTU 9000 runs at MTU 1500: exactly as
    fast as with every NIC at 1500; with the VM at 9000 too it is faster (its receiving core costs less per byte)."""
    vm_small = rate(run("a", "d", connections=1, vm_mtu=1500, nic_mtu=9000))
    all_small = rate(run("a", "d", connections=1, vm_mtu=1500, nic_mtu=1500))
    all_jumbo = rate(run("a", "d", connections=1, vm_mtu=9000, nic_mtu=9000))
    assert vm_small == pytest.approx(all_small, rel=1e-12)
    assert all_jumbo > 1.3 * vm_small


def test_a_jumbo_vm_behind_standard_nics_sends_standard_frames() -> None:
    """The smallest MTU on the way wins: a VM at 9000 behind NICs at 1500 runs at 1500."""
    jumbo_vm = rate(run("a", "d", connections=1, vm_mtu=9000, nic_mtu=1500))
    small_vm = rate(run("a", "d", connections=1, vm_mtu=1500, nic_mtu=1500))
    assert jumbo_vm == pytest.approx(small_vm, rel=1e-12)


def test_a_vm_at_1500_crosses_a_switch_that_drops_the_nics_jumbo_frames() -> None:
    """A switch at MTU 1500 between NICs at 9000 drops the hosts' full-size frames (their traffic is
    black-holed), but a VM at MTU 1500 sends packets it carries: the VM's transfer completes."""
    results = run("a", "d", connections=1, vm_mtu=1500, nic_mtu=9000, switch_mtu=1500)
    assert results.traffic[0].end_s is not None and results.traffic[0].blackholed_s == 0.0
    hosts = run("hv1", "hv2", connections=1, vm_mtu=1500, nic_mtu=9000, switch_mtu=1500)
    assert hosts.traffic[0].end_s is None


def test_a_vm_at_1500_pays_the_frame_overhead_of_1500_on_the_wire() -> None:
    """Line-rate bound: several streams between hosts fill the 10 GbE link with frames of the VM's MTU, so the
    payload rate is the link's goodput at 1500 (9.49 Gbps), not at the NICs' 9000 (9.91 Gbps)."""
    results = run("a", "d", connections=8, vm_mtu=1500, nic_mtu=9000, vcpus=8)
    assert rate(results) == pytest.approx(frames.goodput(10e9, 1500), rel=1e-9)
