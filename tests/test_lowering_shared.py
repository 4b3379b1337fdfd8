"""What lowering and read-back make once and share (issue 25) is what they made one by one.

Lowering a 64-host rolling update records thousands of NIC pairs, SMB
transports and VM core sets that differ only in a few indices; the pipeline
makes the shared parts once (`lower/paths.py`, `Routing.switch_routes`,
`interfaces.smb_channels`' `Known`, `CpuModel.vm_cores`), lets the core put
each NIC pair's cables around the routes between switches it shares
(`specs.Middle`, `_core.read_paths`), and reads the recording back in one
call into the core (`RunReport.scaled_series`; with the NICs' and cores'
utilisation figures, `RunReport.figured_series`; `_core.series_figures` for
series made in Python). Each test here computes the same thing the direct
way, as the pipeline did before, and asks for equality, exactly.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import math
import textwrap
from pathlib import Path

import pytest

from hvnet import Calibration, _core, parse_scenario
from hvnet.lower import frames, lower, specs
from hvnet.lower.cpu import CpuModel
from hvnet.lower.endpoints import _address
from hvnet.lower.fabric import NicRoute, Port, build_fabric
from hvnet.lower.interfaces import Known, smb_channels
from hvnet.lower.network import NetworkModel
from hvnet.lower.routing import Routing
from hvnet.model import Scenario, load_scenario
from hvnet.readback import figured_adapters, figured_cores
from hvnet.run import run
from hvnet.series import ROUNDING, Series
from hvnet.topology import leaf_spine
from hvnet.utilisation import (
    BUSY_SHARE,
    PERCENTILES,
    _all_figures,
    _figures,
    core_utilisation,
    figures,
    nic_utilisation,
)

EXAMPLES = sorted((Path(__file__).parents[1] / "python" / "hvnet" / "examples").glob("**/*.yaml"))


def cluster(hosts: int, option: str, failure: bool = False) -> Scenario:
    """Hosts with a SET team of two NICs on two switches that no cable joins (so half the NIC pairs
    have no cabled path), VMs of two sizes and a rolling update; `failure`: tor1 down for a while."""
    rdma = ", rdma: true" if option == "smb_direct" else ""
    lines = ["name: cluster", "hosts:"]
    for h in range(1, hosts + 1):
        lines += [
            f"  - name: hv{h}",
            "    cpu: {sockets: 1, cores_per_socket: 4, ghz: 2.6}",
            f"    nics: [{{name: nic1, speed: 10Gbps, mtu: 9000{rdma}}},",
            f"           {{name: nic2, speed: 10Gbps, mtu: 9000{rdma}}}]",
            "    teams: [{name: team1, kind: set, members: [nic1, nic2]}]",
            "    vswitches: [{name: vSwitch, uplink: team1}]",
            f"    live_migration: {{option: {option}, simultaneous: 2}}",
        ]
    lines += [f"switches: [{{name: tor1, ports: {hosts}}}, {{name: tor2, ports: {hosts}}}]", "cables:"]
    lines += [f"  - {{a: hv{h}/nic{n}, b: tor{n}/{h}}}" for h in range(1, hosts + 1) for n in (1, 2)]
    lines += ["vms:"] + [
        f"  - {{name: vm{i}, host: hv{i % hosts + 1}, vcpus: {1 + i % 3}, memory: {4 + 4 * (i % 2)}GiB, "
        "vswitch: vSwitch}"
        for i in range(2 * hosts)
    ]
    lines += ["events:", "  - {at: 0s, action: rolling_update, patch_time: 1min}"]
    if failure:
        lines += ["  - {at: 10s, action: switch_down, target: tor1}", "  - {at: 40s, action: switch_up, target: tor1}"]
    return parse_scenario("\n".join(lines) + "\n")


def jumbo_spine() -> Scenario:
    """Hosts at MTU 9000 over two spines, one of them at 1500: some routes drop full-size frames."""
    text = leaf_spine(hosts=4, nic="10Gbps", leaves=2, spines=2, uplink="40Gbps")
    text = text.replace("name: spine2", "name: spine2, mtu: 1500").replace(
        "speed: 10Gbps}", "speed: 10Gbps, mtu: 9000}"
    )
    return parse_scenario(text + "traffic: [{name: t, from: hv1, to: hv3, size: 8GB, connections: 8}]\n")


def one_spine_down() -> Scenario:
    """Two leaves under one spine that fails for a while: no route is left between the leaves."""
    text = leaf_spine(hosts=4, nic="10Gbps", leaves=2, spines=1, uplink="40Gbps")
    text += "traffic: [{name: t, from: hv1, to: hv3, size: 8GB, connections: 2}]\n"
    text += "events: [{at: 1s, action: switch_down, target: spine1}, {at: 5s, action: switch_up, target: spine1}]\n"
    return parse_scenario(text)


def back_to_back() -> Scenario:
    return parse_scenario(
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


def scenarios() -> list[Scenario]:
    made = [load_scenario(path) for path in EXAMPLES]
    made += [cluster(4, option) for option in ("smb", "smb_direct", "tcp_ip", "compression")]
    return [*made, cluster(4, "smb", failure=True), jumbo_spine(), one_spine_down(), back_to_back()]


def nic_routes_one_by_one(
    routing: Routing, source: Port, target: Port
) -> list[tuple[float, tuple[NicRoute, ...]]] | None:
    """`Routing.nic_routes` as it was before the routes between switches were shared."""
    fabric = routing.fabric
    ends = fabric.ends(source, target)
    if ends is None:
        return None
    first, last = ends
    if first.target == target:
        return [(0.0, (NicRoute((first.resource,), ()),))]
    ingress, egress = first.target.node, last.source.node
    if ingress not in fabric.switches or egress not in fabric.switches or not routing.connected(ingress, egress):
        return None
    return [
        (
            at,
            tuple(
                NicRoute(
                    (first.resource, *fabric.between(ingress, hops), last.resource),
                    (ingress, *(d.target.node for d in hops)),
                )
                for hops in routes
            ),
        )
        for at, routes in routing.routes(ingress, egress)
    ]


def routing_one_by_one(
    model: NetworkModel, a: int, b: int, packet: int, coefficient: float, black_holes: set[int]
) -> tuple[specs.Routes, ...]:
    """A NIC pair's routes for the core as lowering made them before (`network.py`'s `_routing`)."""
    timeline = nic_routes_one_by_one(model.routing, model.nic_ports[a], model.nic_ports[b])
    if timeline is None:
        return (specs.Routes(0.0, (((model.unreachable_resource, coefficient),),)),)
    out = []
    for at, routes in timeline:
        ecmp: tuple[specs.Route, ...] = ()
        for route in routes:
            if any(model.fabric.switch_mtu[s] < packet for s in route.switches):
                black_holes.add(model.frames_dropped)
                ecmp += (((model.frames_dropped, 1.0),),)
            else:
                ecmp += (tuple((r, coefficient) for r in route.resources),)
        if not ecmp:
            black_holes.add(model.no_route)
            ends = model.fabric.ends(model.nic_ports[a], model.nic_ports[b])
            assert ends is not None
            ecmp = (((ends[0].resource, coefficient), (model.no_route, 1.0), (ends[1].resource, coefficient)),)
        out.append(specs.Routes(at, ecmp))
    return tuple(out)


def spelled_out(model: NetworkModel, path: specs.Path, black_holes: set[int]) -> specs.Path:
    """A path given to the core with its routes composed as lowering composed them before the core
    put each pair's cables around a shared middle (`Path.middle`)."""
    a, b = path.out_nic, path.in_nic
    if a >= len(model.nic_ports):  # a virtual switch's internal pair: no link, its route as it is
        return path
    packet = min(model.paths.negotiated_mtu(a, b), path.endpoint_mtu or math.inf)
    mss = frames.mss(int(packet))
    coefficient = 1.0 if model.links_only else frames.wire_bytes_per_payload_byte(mss)
    routing = routing_one_by_one(model, a, b, int(packet), coefficient, black_holes)
    return dataclasses.replace(path, routing=routing, middle=None, out_cable=None, in_cable=None)


def table_rows(table: specs.PathTable | None) -> tuple[specs.Path, ...]:
    """The paths of a path table's rows, one `specs.Path` each."""
    if table is None:
        return ()

    def row(a: int, b: int, m: int | None, r: int | None, out: int | None, into: int | None, c: int) -> specs.Path:
        send, receive, guest_send, guest_receive = table.costs[c]
        routing = () if r is None else table.routings[r]
        return specs.Path(a, b, routing, send, receive, guest_send, guest_receive, None, m, out, into)

    return tuple(
        row(a, b, m, r, out, into, c)
        for a, b, m, r, out, into, c in zip(
            table.out_nic,
            table.in_nic,
            table.middle,
            table.routing,
            table.out_cable,
            table.in_cable,
            table.cost,
            strict=True,
        )
    )


@pytest.mark.parametrize("links_only", [False, True])
def test_each_nic_pairs_path_is_the_one_composed_route_by_route(links_only: bool) -> None:
    """Every path the core reads (failures, frames a spine drops, no cabled path, NIC to NIC, VMs'
    own MTUs) is the one composed pair by pair in Python, and the black holes held down are the same."""
    checked, by_middle, held = 0, 0, set()
    for scenario in scenarios():
        lowered = lower(scenario, links_only=links_only)
        model, network = lowered.model, lowered.spec.network
        black_holes: set[int] = set()
        given = table_rows(network.pair_paths) + network.paths
        explicit = tuple(spelled_out(model, path, black_holes) for path in given)
        read = _core.read_paths(network)
        assert read == _core.read_paths(dataclasses.replace(network, paths=explicit, middles=(), pair_paths=None))
        assert read == _core.read_paths(dataclasses.replace(network, paths=given, pair_paths=None))
        assert len(read) == len(given)  # no pair given twice
        assert model.paths.black_holes == black_holes
        checked += len(read)
        by_middle += sum(path.middle is not None for path in given)
        held |= {
            name for name, r in (("frames", model.frames_dropped), ("no route", model.no_route)) if r in black_holes
        }
    assert checked > 200 and by_middle > 100 and held == {"frames", "no route"}


@pytest.mark.parametrize("option", ["smb", "smb_direct", "tcp_ip", "compression"])
def test_a_migration_table_runs_as_its_migrations_one_by_one(option: str) -> None:
    """The migrations lowering gives as a table (`RunSpec.migration_table`: a row each naming its
    shared route) run exactly as the same migrations given one by one (`RunSpec.all_migrations`)."""
    lowered = lower(cluster(4, option, failure=option == "smb"))
    spec = lowered.spec
    assert spec.migration_table is not None and len(spec.migration_table.routes) < len(spec.migration_table.route)
    explicit = dataclasses.replace(spec, migrations=spec.all_migrations(), migration_table=None)

    def outcome(report: _core.RunReport) -> list[tuple[object, ...]]:
        return [
            (m.queued_s, m.start_s, m.end_s, m.passes, m.blackout_s, m.bytes_sent, m.connections)
            for m in report.migrations
        ] + [(report.end_s, report.events)]

    assert outcome(_core.run(spec)) == outcome(_core.run(explicit))


def test_nic_routes_are_those_composed_route_by_route() -> None:
    """`Routing.nic_routes`, from the routes between switches made once, for every pair of NICs."""
    for scenario in scenarios():
        fabric = build_fabric(scenario)
        routing = Routing(scenario, fabric, Calibration().fabric)
        ports = [Port(h.name, n.name) for h in scenario.hosts for n in h.nics]
        for source, target in itertools.product(ports, ports):
            assert routing.nic_routes(source, target) == nic_routes_one_by_one(routing, source, target)


def test_smb_channels_are_the_same_made_once_per_kind_of_host() -> None:
    """What `Known` keeps (each host's SMB side, the channels of two kinds of hosts) changes no
    transport: each pair of hosts, in any order, gets what a fresh call gives."""
    for scenario in [*scenarios(), cluster(3, "smb_direct")]:
        names = [h.name for h in scenario.hosts]
        known = Known()
        for source, target in [*itertools.permutations(names, 2), *reversed(list(itertools.permutations(names, 2)))]:
            smb = Calibration().smb
            assert smb_channels(scenario, source, target, smb, known) == smb_channels(scenario, source, target, smb)


def test_a_vms_core_sets_do_not_depend_on_the_vms_made_before() -> None:
    """`CpuModel.vm_cores` (made once per host, NICs, queue and vCPUs) gives each VM what a model
    that saw only that VM gives (`vm_set`, `vm_queue_cores`)."""
    text = textwrap.dedent(
        """\
        name: mixed
        hosts:
          - name: hv1
            cpu: {sockets: 1, cores_per_socket: 6}
            nics:
              - {name: fast, speed: 25Gbps}
              - {name: slow, speed: 1Gbps}
              - {name: novmq, speed: 10Gbps, vmq: false}
              - {name: static, speed: 10Gbps, dynamic_vmq: false}
            vswitches:
              - {name: a, uplink: fast}
              - {name: b, uplink: slow}
              - {name: c, uplink: novmq}
              - {name: d, uplink: static}
        """
    )
    vms = [
        f"  - {{name: vm{i}, host: hv1, vcpus: {1 + i % 4}, memory: 2GiB, vswitch: {'abcd'[i % 4]}}}" for i in range(24)
    ]
    scenario = parse_scenario(text + "vms:\n" + "\n".join(vms) + "\n")
    shared = NetworkModel(scenario)
    assert shared.cpu is not None
    for vm in scenario.vms:
        alone = CpuModel(scenario, build_fabric(scenario).add, Calibration().cpu)
        host = scenario.host(vm.host)
        names = [shared.nic_ports[n].port for n in shared.uplink(vm.name)[2]]
        expected = (alone.vm_set(vm.name, host, names), alone.vm_queue_cores(vm.name, host, names))
        assert shared.cpu.vm_cores(vm.name, host, names) == expected


def test_an_endpoints_address_is_the_networks_address_of_its_index() -> None:
    network = ipaddress.IPv4Network("10.0.0.0/8")
    for index in [1, 2, 255, 256, 257, 65535, 65536, 65537, 10_064, 2**24 - 2, 2**24 - 1]:
        assert _address(index) == str(network[index])
    with pytest.raises(IndexError):
        _address(2**24)


def test_a_nic_named_by_host_and_name_is_the_nic_its_port_names() -> None:
    """`nic_of` (what an SMB channel, named without its hosts, is looked up by) agrees with `nic_index`."""
    model = NetworkModel(cluster(3, "smb"))
    assert len(model.nic_index) > 3
    for port, index in model.nic_index.items():
        assert model.nic_of(port.node, port.port) == index
    with pytest.raises(KeyError):
        model.nic_of("hv1", "no-such-nic")


def test_the_recording_read_back_in_one_call_is_each_series_as_series_of_makes_it() -> None:
    """`RunReport.scaled_series` is `Series.of` of `series` for each resource and scale; it refuses
    lists of different lengths, a resource the run does not have, and a run that did not record."""
    lowered = lower(cluster(4, "smb", failure=True))
    ran = run(lowered)
    assert ran.series is not None and ran.recorded
    resources = list(range(len(ran.series)))
    scales = [0.5 + r % 3 for r in resources]
    for r, (t_s, values) in zip(resources, ran.scaled_series(resources, scales, ROUNDING)):
        expected = Series.of(*ran.series[r], scales[r])
        assert (t_s, values) == (expected.t_s, expected.values)
    with pytest.raises(ValueError, match="give each resource its scale"):
        ran.report.scaled_series([0, 1], [1.0], ROUNDING)
    with pytest.raises(ValueError, match="not one of the run's"):
        ran.report.scaled_series([len(resources)], [1.0], ROUNDING)
    unrecorded = run(lower(cluster(3, "smb"), record=False))
    assert not unrecorded.recorded and unrecorded.series is None
    with pytest.raises(ValueError, match="did not record"):
        unrecorded.report.scaled_series([0], [1.0], ROUNDING)


def test_the_figures_of_many_series_are_each_series_own() -> None:
    """`_core.series_figures` is `percentiles_and_busy` and the peak of each series; `_all_figures`
    is `_figures` of each, idle series and a speed of 0 included."""
    import random

    rng = random.Random(25)
    many: list[Series] = []
    for _ in range(300):
        times = sorted({round(rng.uniform(0, 10), 1) for _ in range(rng.randint(1, 8))})
        many.append(Series(t_s=times, values=[rng.choice([0.0, 0.5, 2.0, rng.random()]) for _ in times]))
    many.append(Series())
    thresholds = [rng.choice([0.0, 0.01, 0.5]) for _ in many]
    computed = _core.series_figures([(s.t_s, s.values) for s in many], 9.0, [50.0, 90.0, 99.0], thresholds)
    for series, threshold, (shares, busy_s, peak) in zip(many, thresholds, computed):
        assert (shares, busy_s) == _core.percentiles_and_busy(
            series.t_s, series.values, 9.0, [50.0, 90.0, 99.0], threshold
        )
        assert peak == series.peak()
    with pytest.raises(ValueError, match="each series its threshold"):
        _core.series_figures([([0.0], [1.0])], 1.0, [50.0], [])
    scales = [rng.choice([0.0, 1.0, 1e-9, 0.25]) for _ in many]
    for end in (0.0, 3.0, 12.0):
        assert _all_figures(many, scales, end) == [figures_one_by_one(s, scale, end) for s, scale in zip(many, scales)]


def test_the_figures_read_with_the_series_are_the_series_own() -> None:
    """`RunReport.figured_series` gives each series as `scaled_series` does and, from its points in the
    same call, what `Series.percentile`, `peak`, `busy_time` and `integral` give of them times its share:
    all 0 for a share of 0 (a resource of no capacity, a NIC of no speed), and None for a resource never
    used (no points: read-back shares one idle series for all of them).
    Read-back's NIC and core utilisation from it are `nic_utilisation` and `core_utilisation` of its
    series, for a run that recorded and for one that did not."""
    lowered = lower(cluster(4, "smb", failure=True))
    ran = run(lowered)
    assert ran.series is not None
    capacities = lowered.model.fabric.capacities
    wanted = [
        (r, 1 / cap if cap > 0 else 1.0, (1.0, 1e-9, 0.25)[r % 3] if cap > 0 else 0.0)
        for r, cap in enumerate(capacities)
    ]
    used = next(r for r, (t_s, _) in enumerate(ran.series) if len(t_s) > 3)
    wanted.append((used, 2.0, 0.0))
    assert any(not t_s for t_s, _ in ran.series) and 0.0 in capacities
    for end in (ran.end_s, ran.end_s / 3, 0.0):
        computed = ran.report.figured_series(wanted, ROUNDING, end, list(PERCENTILES), BUSY_SHARE)
        assert any(got is None for got in computed) and any(got is not None for got in computed)
        for (r, scale, share), got in zip(wanted, computed, strict=True):
            series = Series.of(*ran.series[r], scale)
            if got is None:
                assert series.t_s == [] and ran.series[r] == ([], [])
                continue
            t_s, values, shares, busy_s, peak, integral = got
            assert t_s, "a resource with points is never None"
            assert (t_s, values, integral) == (series.t_s, series.values, series.integral(0.0, end))
            if share > 0 and end > 0 and series.nonzero():
                assert shares == [series.percentile(p, 0.0, end) * share for p in PERCENTILES]
                assert (peak, busy_s) == (series.peak() * share, series.busy_time(BUSY_SHARE / share, end))
            else:
                assert (shares, busy_s, peak) == ([0.0] * len(PERCENTILES), 0.0, 0.0)
            assert figures(shares, busy_s, peak) == _figures(series, share, end)
    with pytest.raises(ValueError, match="not one of the run's"):
        ran.figured_series([(len(capacities), 1.0, 1.0)], ROUNDING, PERCENTILES, BUSY_SHARE)
    for recorded in (ran, run(lower(cluster(3, "smb"), record=False))):
        adapters, nics = figured_adapters(recorded.lowered.scenario, recorded)
        assert nics == nic_utilisation(adapters, recorded.end_s)
        cores, busy = figured_cores(recorded.lowered.model, recorded)
        assert len(cores) > 0 and busy == core_utilisation(cores, recorded.end_s)
    with pytest.raises(ValueError, match="did not record"):
        recorded.report.figured_series([(0, 1.0, 1.0)], ROUNDING, 1.0, list(PERCENTILES), BUSY_SHARE)


def figures_one_by_one(series: Series, scale: float, end_s: float) -> dict[str, float]:
    """`utilisation._figures` as it was: one call into the core per series, the peak in Python."""
    if not scale > 0 or not end_s > 0 or not any(v != 0.0 for v in series.values):
        return {
            "p50_share": 0.0,
            "p90_share": 0.0,
            "p99_share": 0.0,
            "max_share": 0.0,
            "busy_s": 0.0,
            "headroom_share": 1.0,
        }
    shares, busy_s = _core.percentiles_and_busy(
        series.t_s, series.values, end_s, [50.0, 90.0, 99.0], BUSY_SHARE / scale
    )
    out = {name: share * scale for name, share in zip(("p50_share", "p90_share", "p99_share"), shares)}
    out["busy_s"] = busy_s
    out["max_share"] = max(0.0, max(series.values, default=0.0)) * scale
    out["headroom_share"] = 1.0 - out["p99_share"]
    return out
