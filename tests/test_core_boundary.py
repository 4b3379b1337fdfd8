"""The typed boundary to the Rust core: `_core.run` reads `hvnet.lower.specs`
and answers with frozen reports; a spec the core refuses raises CoreError."""

from __future__ import annotations

import dataclasses

import pytest

from hvnet import _core
from hvnet.lower import specs


def _spec(amount: float = 100.0) -> specs.RunSpec:
    """Two NICs of 10 bytes/s each way (resources 0-3), one connection from NIC 0's host to NIC 1's."""
    none = specs.Cores("none", ())

    def endpoint(nic: int, last: int) -> specs.Endpoint:
        return specs.Endpoint(
            uplink=specs.Uplink("nic", nic),
            port=0,
            address=f"10.0.0.{last}",
            mac=(0, 0x15, 0x5D, 0, 0, last),
            send_cores=none,
            receive_cores=none,
            host_cores=(),
            queue_cores=(),
            guest_send_cores=none,
            guest_receive_cores=none,
        )

    network = specs.NetworkSpec(
        resources=tuple(specs.Resource(10.0, False) for _ in range(4)),
        nics=(specs.Nic(0, 1), specs.Nic(2, 3)),
        teams=(),
        endpoints=(endpoint(0, 1), endpoint(1, 2)),
        paths=(specs.Path(0, 1, (specs.Routes(0.0, (((0, 1.0), (3, 1.0)),)),), 0.0, 0.0, 0.0, 0.0),),
        lacp_timeout_s=3.0,
        nic_lacp_timeouts_s=(),
        rebalance_interval_s=None,
        dynamic_vmq=None,
        shared_queue_overhead=0.0,
    )
    connection = specs.Connection(0, 1, (49152, 5001), amount, 0.0, None)
    return specs.RunSpec(network, (connection,), (), (), (), False)


def test_a_run_returns_typed_reports() -> None:
    report = _core.run(_spec())
    assert isinstance(report, _core.RunReport)
    assert report.end_s == pytest.approx(10.0)
    (connection,) = report.connections
    assert connection.end_s == pytest.approx(10.0)
    assert connection.members == [(0.0, 0, 1)]
    assert connection.sent_bytes == 100.0
    assert connection.send_core_s == connection.receive_core_s == 0.0
    assert report.migrations == [] and report.series is None


def test_connection_reports_are_a_sequence_made_when_read() -> None:
    spec = _spec()
    spec = dataclasses.replace(
        spec, connections=(*spec.connections, specs.Connection(0, 1, (49153, 5001), 50.0, 0.0, None))
    )
    reports = _core.run(spec).connections
    assert isinstance(reports, _core.ConnectionReports) and len(reports) == 2
    by_index = [reports[0], reports[1]]
    assert [r.sent_bytes for r in by_index] == [r.sent_bytes for r in reports] == [100.0, 50.0]
    assert reports[-1].end_s == by_index[1].end_s and reports[-2].members == by_index[0].members
    for k in (2, -3):
        with pytest.raises(IndexError):
            reports[k]


def test_a_recorded_run_returns_each_resources_change_points() -> None:
    spec = dataclasses.replace(_spec(), record=True)
    report = _core.run(spec)
    # The connection crosses resources 0 and 3 at 10 bytes/s from 0 to its end.
    assert report.series == [([0.0], [10.0]), ([], []), ([], []), ([0.0], [10.0])]


def test_a_spec_the_core_refuses_raises_core_error() -> None:
    assert issubclass(_core.CoreError, ValueError)
    with pytest.raises(_core.CoreError, match="amount -1 and start 0 must be finite and >= 0"):
        _core.run(_spec(amount=-1.0))
    spec = _spec()
    bad_path = dataclasses.replace(
        spec.network, paths=(specs.Path(0, 1, (specs.Routes(0.0, (((7, 1.0),),)),), 0.0, 0.0, 0.0, 0.0),)
    )
    with pytest.raises(_core.CoreError, match="resource 7 does not exist"):
        _core.run(dataclasses.replace(spec, network=bad_path))
    late = dataclasses.replace(
        spec.network, paths=(specs.Path(0, 1, (specs.Routes(1.0, (((0, 1.0),),)),), 0.0, 0.0, 0.0, 0.0),)
    )
    with pytest.raises(_core.CoreError, match="routes must start at 0"):
        _core.run(dataclasses.replace(spec, network=late))
    bad_mode = dataclasses.replace(spec.network, teams=(specs.Team((0, 1), None, "lacp2", "dynamic", "ip_addresses"),))
    with pytest.raises(_core.CoreError, match='unknown teaming mode "lacp2"'):
        _core.run(dataclasses.replace(spec, network=bad_mode))


def test_a_path_given_by_its_middle_is_the_path_its_cables_make_around_it() -> None:
    """A path may name a middle (`NetworkSpec.middles`) instead of giving its routes: the core puts
    the cable out of its source NIC and into its target NIC around each route of it, a route a
    switch drops being the middle's `dropped` route whole; it refuses a middle it does not have,
    no cable out, and routes and a middle at once."""
    spec = _spec()
    middle = specs.Middle(((0.0, ((), None)), (2.0, (((2, 0.5),),))), 1.0, ((1, 1.0),))
    by_middle = specs.Path(0, 1, (), 0.0, 0.0, 0.0, 0.0, middle=0, out_cable=0, in_cable=3)
    network = dataclasses.replace(spec.network, paths=(by_middle,), middles=(middle,))
    composed = (
        specs.Routes(0.0, (((0, 1.0), (3, 1.0)), ((1, 1.0),))),
        specs.Routes(2.0, (((0, 1.0), (2, 0.5), (3, 1.0)),)),
    )
    explicit = dataclasses.replace(spec.network, paths=(specs.Path(0, 1, composed, 0.0, 0.0, 0.0, 0.0),))
    assert _core.read_paths(network) == _core.read_paths(explicit)
    assert _core.read_paths(network)[0][3] == [
        (0.0, [[(0, 1.0), (3, 1.0)], [(1, 1.0)]]),
        (2.0, [[(0, 1.0), (2, 0.5), (3, 1.0)]]),
    ]
    one_cable = dataclasses.replace(by_middle, in_cable=None)
    assert _core.read_paths(dataclasses.replace(network, paths=(one_cable,)))[0][3][0] == (
        0.0,
        [[(0, 1.0)], [(1, 1.0)]],
    )
    for wrong, message in [
        (dataclasses.replace(by_middle, middle=1), "path from NIC 0 to NIC 1: middle 1 does not exist"),
        (dataclasses.replace(by_middle, out_cable=None), "a middle needs the cable out of NIC 0"),
        (dataclasses.replace(by_middle, routing=spec.network.paths[0].routing), "its routes or a middle, not both"),
    ]:
        with pytest.raises(_core.CoreError, match=message):
            _core.run(dataclasses.replace(spec, network=dataclasses.replace(network, paths=(wrong,))))


def test_a_path_table_is_the_paths_of_its_rows_and_a_malformed_one_is_refused() -> None:
    """`NetworkSpec.pair_paths`: each row is the path its columns name (a middle around its cables,
    or one of the table's routings), the same as a `Path` per row; the core refuses columns of
    different lengths and an index out of range."""
    spec = _spec()
    middle = specs.Middle(((0.0, ((), None)),), 1.0, ((1, 1.0),))
    unreachable = (specs.Routes(0.0, (((2, 1.0),),)),)
    table = specs.PathTable(
        out_nic=(0, 1),
        in_nic=(1, 0),
        middle=(0, None),
        routing=(None, 0),
        out_cable=(0, None),
        in_cable=(3, None),
        cost=(0, 1),
        routings=(unreachable,),
        costs=((1.0, 2.0, 3.0, 4.0), (0.0, 0.0, 0.0, 0.0)),
    )
    network = dataclasses.replace(spec.network, paths=(), middles=(middle,), pair_paths=table)
    rows = (
        specs.Path(0, 1, (), 1.0, 2.0, 3.0, 4.0, middle=0, out_cable=0, in_cable=3),
        specs.Path(1, 0, unreachable, 0.0, 0.0, 0.0, 0.0),
    )
    assert _core.read_paths(network) == _core.read_paths(dataclasses.replace(network, paths=rows, pair_paths=None))
    assert _core.run(dataclasses.replace(spec, network=network)).end_s == pytest.approx(10.0)
    for wrong, message in [
        (dataclasses.replace(table, in_nic=(1,)), "path table: column in_nic has 1 rows, out_nic 2"),
        (dataclasses.replace(table, cost=(0,)), "path table: column cost has 1 rows, out_nic 2"),
        (dataclasses.replace(table, cost=(0, 2)), "path from NIC 1 to NIC 0: cost 2 does not exist"),
        (dataclasses.replace(table, middle=(1, None)), "path from NIC 0 to NIC 1: middle 1 does not exist"),
        (dataclasses.replace(table, routing=(None, 1)), "path from NIC 1 to NIC 0: routing 1 does not exist"),
        (dataclasses.replace(table, routing=(0, 0)), "give one of a routing and a middle"),
        (dataclasses.replace(table, out_cable=(None, None)), "a middle needs the cable out of NIC 0"),
    ]:
        with pytest.raises(_core.CoreError, match=message):
            _core.run(dataclasses.replace(spec, network=dataclasses.replace(network, pair_paths=wrong)))


def test_a_migration_table_is_the_migrations_of_its_rows_and_a_malformed_one_is_refused() -> None:
    """`RunSpec.migration_table`: each row is the `Migration` its route, memory and compression make
    (`MigrationTable.migrations`), after the explicit ones; the core refuses columns of different
    lengths and a route, memory or compression the table does not have."""
    spec = _spec()
    memory = specs.GuestMemory(20.0, 20.0, 0.0, 0.0, 0.0)
    route = specs.MigrationRoute(0, 1, (0, 1), (1, 1), (), None, specs.Precopy(2, 1.0, 0.0))
    compression = specs.Compression(0.5, 0.1, 0.0, 0.0, 0.0, 1.0)
    table = specs.MigrationTable(
        routes=(route,),
        memories=(memory,),
        compressions=(compression,),
        route=(0, 0),
        memory=(0, 0),
        ports=((64000, 6600), (64001, 6600)),
        prepare_bytes_per_s=(None, None),
        at_s=(0.0, 1.0),
        after=((), (0,)),
        delay_s=(0.0, 0.5),
        compression=(None, 0),
    )
    run = dataclasses.replace(spec, connections=(), migration_table=table)
    rows = table.migrations()
    assert rows[1] == specs.Migration(
        0, 1, (64001, 6600), memory, route.precopy, None, 1.0, (0, 1), (1, 1), (), compression, (0,), 0.5, None
    )
    explicit = dataclasses.replace(run, migrations=rows, migration_table=None)
    ran, expected = _core.run(run), _core.run(explicit)
    assert [(m.start_s, m.end_s, m.bytes_sent) for m in ran.migrations] == [
        (m.start_s, m.end_s, m.bytes_sent) for m in expected.migrations
    ]
    assert len(ran.migrations) == 2 and ran.end_s == expected.end_s
    split = dataclasses.replace(
        run,
        migrations=rows[:1],
        migration_table=dataclasses.replace(
            table,
            **{
                name: getattr(table, name)[1:]
                for name in (
                    "route",
                    "memory",
                    "ports",
                    "prepare_bytes_per_s",
                    "at_s",
                    "after",
                    "delay_s",
                    "compression",
                )
            },
        ),
    )
    assert [m.end_s for m in _core.run(split).migrations] == [m.end_s for m in expected.migrations]
    assert run.all_migrations() == rows and split.all_migrations() == rows
    for wrong, message in [
        (dataclasses.replace(table, memory=(0,)), "migration table: column memory has 1 rows, route 2"),
        (dataclasses.replace(table, after=((),)), "migration table: column after has 1 rows, route 2"),
        (dataclasses.replace(table, route=(0, 1)), r"row 1: route 1 does not exist \(the table has 1\)"),
        (dataclasses.replace(table, memory=(2, 0)), r"row 0: memory 2 does not exist \(the table has 1\)"),
        (dataclasses.replace(table, compression=(None, 3)), "row 1: compression 3 does not exist"),
    ]:
        with pytest.raises(_core.CoreError, match=message):
            _core.run(dataclasses.replace(run, migration_table=wrong))


def test_reports_are_frozen() -> None:
    report = _core.run(_spec())
    with pytest.raises(AttributeError):
        report.end_s = 1.0  # type: ignore[misc]


def test_a_core_failure_reaches_the_user_as_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec the core refuses or a panic in it (a bug in hvnet, not the user's input) is an
    HvnetError, so every face prints it as one line instead of a traceback (issue 15)."""
    import hvnet
    from hvnet import _core
    from hvnet.errors import CoreFailure, HvnetError

    def refuse(spec: object) -> object:
        raise _core.CoreError("migration 0: endpoint does not exist")

    monkeypatch.setattr(_core, "run", refuse)
    scenario = hvnet.parse_scenario("name: x\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]\n", "x.yaml")
    with pytest.raises(CoreFailure) as failure:
        hvnet.simulate(scenario)
    assert isinstance(failure.value, HvnetError)
    assert str(failure.value).startswith("x.yaml: hvnet's core could not simulate this scenario (migration 0:")
    assert "\n" not in str(failure.value)


def test_the_series_helpers_refuse_what_is_not_a_step_function() -> None:
    """The per-point helpers the faces call (`hvnet.series`, `report.resample`) take a step
    function's change points: a value missing, or times out of order, is a ValueError, never a
    panic; a grid's bins come back one per bin."""
    for helper in (
        lambda t, v: _core.scaled_points(t, v, 1.0, 1e-12),
        lambda t, v: _core.bin_integrals(t, v, 1.0, 3.0, 3),
        lambda t, v: _core.bin_means(t, v, 1.0, 3.0, 3.0, 3, 1.0),
        lambda t, v: _core.percentiles_and_busy(t, v, 3.0, [50.0], 0.0),
    ):
        with pytest.raises(ValueError, match="each time its value"):
            helper([0.0, 1.0], [1.0])
        with pytest.raises(ValueError, match="in time order"):
            helper([1.0, 0.0], [1.0, 2.0])
        with pytest.raises(ValueError, match="in time order"):
            helper([float("nan"), 1.0], [1.0, 2.0])
    # 2 then 4 from 1 s, to 2.5 s, halved: the last bin is the mean over its half second.
    assert _core.bin_means([0.0, 1.0], [2.0, 4.0], 1.0, 2.5, 2.5, 3, 0.5) == [1.0, 2.0, 2.0]
    # 2 for 1 s, then 4: the median over 3 s is 4, and it is above 3 for 2 s.
    assert _core.percentiles_and_busy([0.0, 1.0], [2.0, 4.0], 3.0, [50.0, 99.0], 3.0) == ([4.0, 4.0], 2.0)
