"""Frames on the wire and the MTU along a path (hvnet/frames.py).

A full frame of an IP packet of MTU bytes takes MTU + 38 bytes of line time
(Ethernet header 14, FCS 4, preamble 8, inter-frame gap 12) and carries
MTU - 52 bytes of payload (IPv4 20, TCP 20, timestamps option 12). The
simulations here use 1 Gbps NICs, so that the link, not a CPU core, limits
every transfer: 125 MB of payload takes 1 s of line time, times the frame
overhead.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet import Calibration, ScenarioError, parse_scenario, simulate
from hvnet.lower.fabric import Port, build_fabric
from hvnet.lower.frames import (
    FRAME_OVERHEAD_BYTES,
    PathMtu,
    goodput,
    mss,
    path_mtu,
    path_warnings,
    wire_bytes_per_payload_byte,
)
from hvnet.lower.routing import Routing
from hvnet.model import Scenario
from hvnet.topology import leaf_spine

MB = 10**6

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]


def test_a_frame_costs_38_bytes_of_line_time_beyond_its_mtu() -> None:
    """14 (Ethernet header) + 4 (FCS) + 8 (preamble and SFD) + 12 (inter-frame gap)."""
    assert FRAME_OVERHEAD_BYTES == 38


def test_the_mss_is_the_mtu_less_52_bytes_of_headers() -> None:
    """IPv4 20 + TCP 20 + timestamps 12 inside the MTU; without timestamps, 40."""
    assert mss(1500) == 1460
    assert mss(9000) == 8960
    assert mss(1500, tcp_options_bytes=0) == 1460


def test_wire_bytes_per_payload_byte() -> None:
    """A full frame at MTU 1500 is 1538 bytes of line time for 1460 of payload; at 9000, 9038 for 8960."""
    assert wire_bytes_per_payload_byte(1460) == pytest.approx(1538 / 1460)
    assert wire_bytes_per_payload_byte(1460) == pytest.approx(1.0534, abs=1e-4)
    assert wire_bytes_per_payload_byte(8960) == pytest.approx(9038 / 8960)
    assert wire_bytes_per_payload_byte(8960) == pytest.approx(1.0087, abs=1e-4)
    assert wire_bytes_per_payload_byte(1460, tcp_options_bytes=0) == pytest.approx(1538 / 1460)


def test_goodput_is_the_payload_rate_of_a_link() -> None:
    """10 Gbps carries 9.49 Gbps of payload at MTU 1500, 9.91 Gbps at MTU 9000."""
    assert goodput(10e9, 1500) == pytest.approx(10e9 * 1460 / 1538)
    assert goodput(10e9, 1500) == pytest.approx(9.4928e9, rel=1e-4)
    assert goodput(10e9, 9000) == pytest.approx(10e9 * 8960 / 9038)


def two_hosts_yaml(nic1_mtu: int, nic2_mtu: int, switch: str = "{name: tor1}", size: str = "125MB") -> str:
    """hv1/nic1 and hv2/nic1 (1 Gbps, the given MTUs) through one switch; hv1 sends `size` to hv2."""
    return textwrap.dedent(
        f"""\
        name: two hosts
        hosts:
          - {{name: hv1, nics: [{{name: nic1, speed: 1Gbps, mtu: {nic1_mtu}}}]}}
          - {{name: hv2, nics: [{{name: nic1, speed: 1Gbps, mtu: {nic2_mtu}}}]}}
        switches: [{switch}]
        cables:
          - {{a: hv1/nic1, b: tor1/1}}
          - {{a: hv2/nic1, b: tor1/2}}
        traffic: [{{from: hv1, to: hv2, size: {size}}}]
        """
    )


def two_hosts(nic1_mtu: int, nic2_mtu: int, switch: str = "{name: tor1}", size: str = "125MB") -> Scenario:
    return parse_scenario(two_hosts_yaml(nic1_mtu, nic2_mtu, switch, size))


def test_a_switch_carries_jumbo_frames_unless_told_otherwise() -> None:
    """Data-centre switches ship with jumbo frames up to 9216: the default switch carries MTU 9000.

    125 MB at 1 Gbps in 9000-byte frames: 1 s × 9038 / 8960.
    """
    scenario = two_hosts(9000, 9000)
    assert scenario.switch("tor1").mtu == 9216
    assert path_warnings(scenario) == []
    results = simulate(scenario)
    assert results.warnings == []
    assert results.traffic[0].end_s == pytest.approx(125 * MB * 8 / 1e9 * 9038 / 8960)


def test_a_1500_path_takes_its_frame_overhead() -> None:
    """125 MB at 1 Gbps in 1500-byte frames: 1 s × 1538 / 1460 = 1.0534 s, at 0.95 Gbps of payload."""
    (flow,) = simulate(two_hosts(1500, 1500)).traffic
    assert flow.end_s == pytest.approx(125 * MB * 8 / 1e9 * 1538 / 1460)
    assert flow.mean_bps == pytest.approx(goodput(1e9, 1500))


def test_the_link_shows_its_line_rate_used_not_the_payload_rate() -> None:
    """The adapter series count frames on the wire: a saturated 1 Gbps NIC shows 1 Gbps."""
    results = simulate(two_hosts(1500, 1500, size="1250MB"))
    assert results.adapters[0].send_bps.peak() == pytest.approx(1e9)


def test_nics_of_different_mtus_run_at_the_smaller_without_a_warning() -> None:
    """9000 and 1500: both ends negotiate MSS 1460; nothing is dropped, so nothing to warn about."""
    scenario = two_hosts(9000, 1500, switch="{name: tor1, mtu: 1500}")
    assert path_warnings(scenario) == []
    results = simulate(scenario)
    assert results.warnings == []
    assert results.traffic[0].end_s == pytest.approx(125 * MB * 8 / 1e9 * 1538 / 1460)


def test_a_jumbo_path_through_a_1500_switch_warns_and_is_black_holed() -> None:
    """Both NICs use 9000; tor1 drops every full-size frame, so the transfer never completes.

    The warning names the NICs, the switch and the numbers; the connection
    is black-holed from its start (a team does not see it: the links are up),
    and a second warning says the traffic never completes and why.
    """
    scenario = two_hosts(9000, 9000, switch="{name: tor1, mtu: 1500}")
    expected = (
        "hv1/nic1 → hv2/nic1: both NICs use MTU 9000 but switch tor1 carries at most 1500; "
        "full-size frames would be dropped (set the switch's mtu to 9216 or the NICs' mtu to 1500)"
    )
    assert path_warnings(scenario) == [expected]
    results = simulate(scenario)
    assert results.warnings == [
        expected,
        "traffic hv1 → hv2 never completes: its connection is black-holed from 0 s to the end of the run: "
        "a switch on its route drops its full-size frames (see the MTU warning); no path is left for it",
    ]
    (flow,) = results.traffic
    assert flow.end_s is None
    (connection,) = flow.connection_results
    assert connection.stalled_since_s == 0.0
    assert results.adapters[0].send_bps.peak() == 0.0


def test_the_warning_gives_both_nic_mtus_when_they_differ() -> None:
    """9000 and 4000 negotiate 4000, still too big for a 1500 switch."""
    (warning,) = path_warnings(two_hosts(9000, 4000, switch="{name: tor1, mtu: 1500}"))
    assert warning.startswith(
        "hv1/nic1 → hv2/nic1: the NICs (MTU 9000 and 4000) negotiate MTU 4000 but switch tor1 carries at most 1500"
    )


def route_mtus(scenario: Scenario, source: str, target: str) -> list[PathMtu]:
    """The MTUs along each equal-cost route between two NICs, with the fabric whole."""
    fabric = build_fabric(scenario)
    a, b = Port.parse(source), Port.parse(target)
    timeline = Routing(scenario, fabric, Calibration().fabric).nic_routes(a, b)
    assert timeline is not None
    return [path_mtu(fabric, a, b, route.switches) for route in timeline[0][1]]


def test_the_path_mtu_is_the_smallest_along_the_path() -> None:
    """hv1 on leaf1, hv3 on leaf2: the path crosses leaf1, a spine and leaf2; a 1500 spine limits it."""
    text = leaf_spine(hosts=4, nic="10Gbps", leaves=2, spines=1, uplink="40Gbps").replace(
        "name: spine1", "name: spine1, mtu: 1500"
    )
    scenario = parse_scenario(text)
    (path,) = route_mtus(scenario, "hv1/nic1", "hv3/nic1")
    assert path.switches == (("leaf1", 9216), ("spine1", 1500), ("leaf2", 9216))
    assert (path.negotiated_mtu, path.effective_mtu, path.breaks) == (1500, 1500, False)
    # Two hosts on one leaf do not cross the spine.
    (same_leaf,) = route_mtus(scenario, "hv1/nic1", "hv2/nic1")
    assert same_leaf.switches == (("leaf1", 9216),)


def test_a_spine_too_small_for_jumbo_frames_black_holes_only_the_flows_hashed_onto_it() -> None:
    """Two spines, spine2 left at MTU 1500, the hosts at 9000. ECMP spreads hv1's 8 connections
    to hv3 over both spines: those on spine1 complete, those on spine2 are black-holed from the
    start, and the warning names spine2."""
    text = leaf_spine(hosts=4, nic="10Gbps", leaves=2, spines=2, uplink="40Gbps")
    text = text.replace("name: spine2", "name: spine2, mtu: 1500").replace(
        "speed: 10Gbps}", "speed: 10Gbps, mtu: 9000}"
    )
    text += "traffic: [{name: t, from: hv1, to: hv3, size: 8GB, connections: 8}]\n"
    scenario = parse_scenario(text)
    first, second = route_mtus(scenario, "hv1/nic1", "hv3/nic1")
    assert (first.breaks, second.breaks) == (False, True)
    (warning,) = path_warnings(scenario)
    assert "switch spine2 carries at most 1500" in warning
    (flow,) = simulate(scenario).traffic
    done = [c.end_s is not None for c in flow.connection_results]
    assert 0 < sum(done) < 8
    assert all(c.stalled_since_s == 0.0 for c in flow.connection_results if c.end_s is None)


def test_back_to_back_nics_cross_no_switch() -> None:
    scenario = parse_scenario(
        textwrap.dedent(
            """\
            name: back to back
            hosts:
              - {name: hv1, nics: [{name: nic1, speed: 1Gbps, mtu: 9000}]}
              - {name: hv2, nics: [{name: nic1, speed: 1Gbps, mtu: 9000}]}
            cables: [{a: hv1/nic1, b: hv2/nic1}]
            traffic: [{from: hv1, to: hv2, size: 125MB}]
            """
        )
    )
    (path,) = route_mtus(scenario, "hv1/nic1", "hv2/nic1")
    assert (path.switches, path.effective_mtu, path.mss) == ((), 9000, 8960)
    assert path_warnings(scenario) == []


@pytest.mark.parametrize("mtu", [575, 9217])
def test_a_switch_mtu_is_576_to_9216(mtu: int) -> None:
    """The same range as a NIC's: the IPv4 minimum to the largest jumbo frame."""
    with pytest.raises(ScenarioError, match=r"switches\[0\]\.mtu"):
        two_hosts(1500, 1500, switch=f"{{name: tor1, mtu: {mtu}}}")


def test_simulate_prints_the_warning_after_the_tables(cli: Invoke, write: WriteFile) -> None:
    """The terminal shows `warning: ...` under the summary line; the JSON lists it in `warnings`."""
    path = write("mtu.yaml", two_hosts_yaml(9000, 9000, switch="{name: tor1, mtu: 1500}"))
    result = cli("simulate", path)
    assert result.exit_code == 0
    summary_line = "end 0 s  0 of 1 traffic entries completed"
    assert summary_line in result.stdout
    after = result.stdout.split(summary_line, 1)[1]
    after = " ".join(after.split("\n", 1)[1].split())  # the lines after the summary's; a warning wraps
    assert after.startswith("warning: hv1/nic1 → hv2/nic1: both NICs use MTU 9000 but switch tor1 carries at most 1500")
    document = json.loads(cli("simulate", path, "--json", "-").stdout)
    assert [w.split(":")[0] for w in document["warnings"]] == [
        "hv1/nic1 → hv2/nic1",
        "traffic hv1 → hv2 never completes",
    ]
