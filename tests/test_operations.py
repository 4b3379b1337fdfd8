"""Host drains and rolling cluster updates: where the VMs go, what waits for
what, and each operation's window.

Three hosts, one 10 Gbps NIC each on one switch, cores fast enough that the
links limit; TCP/IP, two migrations at a time per host. hv1 runs vm1 (8 GiB),
vm2 and vm3 (4 GiB each); hv2 runs vm4 (4 GiB); hv3 runs nothing.
"""

from __future__ import annotations

import pytest

from hvnet import ScenarioError, parse_scenario, simulate
from hvnet.results import Results
from hvnet.units import human_duration

CLUSTER = """
name: operations
hosts:
%(hosts)s
switches: [{name: tor1, ports: 8}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv3/nic1, b: tor1/3}
vms:
  - {name: vm1, host: hv1, memory: 8GiB}
  - {name: vm2, host: hv1, memory: 4GiB}
  - {name: vm3, host: hv1, memory: 4GiB}
  - {name: vm4, host: hv2, memory: 4GiB}
events:
%(events)s
"""
HOST = (
    "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n"
    "    live_migration: {option: tcp_ip%s}\n    nics: [{name: nic1, speed: 10Gbps}]\n"
)


def cluster(events: str, live_migration: str = "") -> str:
    hosts = "".join(HOST % (name, live_migration) for name in ("hv1", "hv2", "hv3"))
    return CLUSTER % {"hosts": hosts, "events": events}


def run(events: str, live_migration: str = "") -> Results:
    return simulate(parse_scenario(cluster(events, live_migration)))


def test_a_balanced_drain_sends_each_vm_to_the_host_with_the_least_vm_memory() -> None:
    """vm1 (8 GiB) goes to the empty hv3; then hv2 (4 GiB) has less than hv3 (8 GiB): vm2 goes
    there; then both have 8 GiB and the tie goes to the first in file order, hv2."""
    results = run("  - {at: 10s, action: drain, target: hv1}\n")
    assert [(m.vm, m.source, m.destination) for m in results.migrations] == [
        ("vm1", "hv1", "hv3"),
        ("vm2", "hv1", "hv2"),
        ("vm3", "hv1", "hv2"),
    ]
    (drain,) = results.operations
    assert (drain.kind, drain.host, drain.start_s, drain.migrations) == ("drain", "hv1", 10.0, [0, 1, 2])
    assert drain.end_s == max(m.end_s or 0 for m in results.migrations)
    assert drain.duration_s == pytest.approx(drain.end_s - 10.0)
    assert drain.bytes_sent == sum(m.bytes_sent for m in results.migrations)
    assert drain.longest_blackout_s == max(m.blackout_s or 0 for m in results.migrations)
    assert all(m.operation == 0 for m in results.migrations)


def test_a_drain_goes_two_at_a_time_as_the_host_allows() -> None:
    """hv1 sends two migrations at once: the third starts when one of the first two ends."""
    first, second, third = run("  - {at: 0s, action: drain, target: hv1}\n").migrations
    assert first.start_s == second.start_s == 0.0
    assert third.start_s == pytest.approx(min(first.end_s or 0, second.end_s or 0))


def test_a_round_robin_drain_takes_the_other_hosts_in_turn() -> None:
    results = run("  - {at: 0s, action: drain, target: hv1, placement: round_robin}\n")
    assert [m.destination for m in results.migrations] == ["hv2", "hv3", "hv2"]


def test_a_drained_host_with_no_vms_is_empty_at_once() -> None:
    (drain,) = run("  - {at: 5s, action: drain, target: hv3}\n").operations
    assert (drain.migrations, drain.end_s, drain.duration_s) == ([], 5.0, 0.0)


def test_a_rolling_update_patches_node_after_node_and_fails_back() -> None:
    """Each node: drained, down for 60 s, back, its VMs back on it, then the next node. The
    parts follow each other without a gap, every VM ends where it began, and the window is
    the sum of the parts."""
    results = run("  - {at: 0s, action: rolling_update, nodes: [hv1, hv2, hv3], patch_time: 60s}\n")
    (update,) = results.operations
    hv1, hv2, hv3 = update.nodes
    assert [n.node for n in update.nodes] == ["hv1", "hv2", "hv3"]
    assert [n.vms for n in update.nodes] == [3, 1, 0]
    drained = [m for m in results.migrations if m.source == "hv1"]
    back = [m for m in results.migrations if m.destination == "hv1"]
    assert hv1.drain_start_s == 0.0
    assert hv1.down_s == pytest.approx(max(m.end_s or 0 for m in drained))
    assert hv1.back_s == pytest.approx((hv1.down_s or 0) + 60)
    assert all(m.queued_s == pytest.approx(hv1.back_s) for m in back)
    assert sorted(m.vm for m in back) == ["vm1", "vm2", "vm3"]
    assert hv1.end_s == pytest.approx(max(m.end_s or 0 for m in back))
    assert hv2.drain_start_s == pytest.approx(hv1.end_s)
    assert hv3.drain_start_s == pytest.approx(hv2.end_s)
    # hv3 has no VMs: down at once, back after its patch, and that ends the update.
    assert hv3.down_s == pytest.approx(hv3.drain_start_s)
    assert update.end_s == pytest.approx((hv3.drain_start_s or 0) + 60)
    assert update.duration_s == pytest.approx(update.end_s)
    where = {"vm1": "hv1", "vm2": "hv1", "vm3": "hv1", "vm4": "hv2"}
    for m in results.migrations:
        where[m.vm] = m.destination
    assert where == {"vm1": "hv1", "vm2": "hv1", "vm3": "hv1", "vm4": "hv2"}


def test_without_fail_back_the_next_node_starts_when_the_last_is_back() -> None:
    """No fail-back: hv1's VMs stay where they went, and hv2's drain starts as soon as hv1 is back;
    hv2 then also drains the VMs hv1's drain gave it."""
    results = run("  - {at: 0s, action: rolling_update, nodes: [hv1, hv2], patch_time: 60s, fail_back: false}\n")
    (update,) = results.operations
    hv1, hv2 = update.nodes
    assert hv2.drain_start_s == pytest.approx(hv1.back_s)
    assert hv1.end_s == pytest.approx(hv1.back_s)
    # Nothing moves back to hv1 as a fail-back: only hv2's drain sends VMs there, after hv2's drain starts.
    to_hv1 = [m for m in results.migrations if m.destination == "hv1"]
    assert to_hv1 and all(m.source == "hv2" and m.queued_s == pytest.approx(hv2.drain_start_s) for m in to_hv1)
    assert hv2.vms == 3  # vm4, and vm2 and vm3 from hv1


def test_every_host_in_file_order_when_nodes_are_not_given() -> None:
    (update,) = run("  - {at: 0s, action: rolling_update, patch_time: 1min}\n").operations
    assert [n.node for n in update.nodes] == ["hv1", "hv2", "hv3"]


def test_a_migration_after_a_drain_starts_where_the_drain_left_the_vm() -> None:
    results = run("  - {at: 0s, action: drain, target: hv1}\n  - {at: 100s, action: migrate, target: vm1, to: hv1}\n")
    assert (results.migrations[-1].source, results.migrations[-1].destination) == ("hv3", "hv1")
    assert [o.kind for o in results.operations] == ["drain", "migrate"]


def test_a_migration_to_where_a_drain_left_the_vm_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"events\[1\]\.to: vm1 already runs on hv3 then"):
        run("  - {at: 0s, action: drain, target: hv1}\n  - {at: 100s, action: migrate, target: vm1, to: hv3}\n")


def test_the_terminal_table_shows_the_window_and_each_node() -> None:
    from rich.console import Console

    from hvnet.tables import results_tables

    results = run("  - {at: 0s, action: rolling_update, nodes: [hv1, hv2], patch_time: 60s}\n")
    console = Console(width=200, record=True)
    for table in results_tables(results):
        console.print(table)
    text = console.export_text()
    assert "operations: maintenance windows" in text
    assert ": traffic" not in text and "traffic entries" not in text, "no traffic, no traffic table"
    assert "live migrations ended" in text
    assert "rolling update of 2 nodes" in text and "hv1 (3 VMs)" in text
    hv1 = results.operations[0].nodes[0]
    assert hv1.down_s is not None and hv1.back_s is not None
    assert f"{human_duration(hv1.down_s)} → {human_duration(hv1.back_s)}" in text


def test_each_operation_has_one_name_wherever_it_is_shown() -> None:
    """Tables, advice and verdicts name an operation the same way (OperationResult.title): the drained
    host, the number of nodes, the migrated VM's source (and the VM, when the caller knows it)."""
    results = run(
        "  - {at: 0s, action: drain, target: hv1}\n"
        "  - {at: 900s, action: migrate, target: vm4, to: hv1}\n"
        "  - {at: 1800s, action: rolling_update, nodes: [hv2, hv3], patch_time: 60s}\n"
    )
    drain, migrate, update = results.operations
    assert (drain.title(), drain.noun) == ("drain of hv1", "drain")
    assert (migrate.title(), migrate.title("vm4"), migrate.noun) == (
        "migration from hv2",
        "migration of vm4 from hv2",
        "migration",
    )
    assert (update.title(), update.noun) == ("rolling update of 2 nodes", "rolling update")


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            "{at: 0s, action: drain, target: hv9}",
            "events[0].target: 'hv9' is not a host of the scenario; hosts: hv1, hv2, hv3",
        ),
        ("{at: 0s, action: drain, target: vm1}", "events[0].target: 'vm1' is a VM; drain empties a host"),
        ("{at: 0s, action: drain}", "events[0].target: drain needs a target (a host)"),
        ("{at: 0s, action: rolling_update}", "events[0].patch_time: rolling_update needs patch_time"),
        (
            "{at: 0s, action: rolling_update, patch_time: 1min, nodes: [hv1, hv7]}",
            "events[0].nodes[1]: 'hv7' is not a host",
        ),
        (
            "{at: 0s, action: rolling_update, patch_time: 1min, nodes: [hv1, hv1]}",
            "events[0].nodes[1]: hv1 is listed twice",
        ),
        (
            "{at: 0s, action: rolling_update, patch_time: 1min, target: hv1}",
            "events[0].target: rolling_update takes nodes",
        ),
        (
            "{at: 0s, action: nic_down, target: hv1/nic1, placement: balanced}",
            "events[0].placement: only drain and rolling_update take placement",
        ),
        (
            "{at: 0s, action: drain, target: hv1, patch_time: 1min}",
            "events[0].patch_time: only rolling_update takes patch_time",
        ),
        (
            "{at: 0s, action: drain, target: hv1, placement: nearest}",
            "events[0].placement: 'nearest' is not allowed; choose one of balanced, round_robin",
        ),
    ],
)
def test_bad_operations_are_refused_with_the_rule(event: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenario(cluster(f"  - {event}\n"), "cluster.yaml")
    assert expected in str(raised.value)


def test_the_rolling_update_example_patches_three_nodes_and_every_vm_comes_home() -> None:
    """python/hvnet/examples/rolling-update.yaml: three nodes, four VMs each, 20 minutes a patch.
    The window is the three patches plus the migrations, every migration runs over SMB Direct
    (SET with RDMA), and every VM ends on the host it started on."""
    from importlib import resources

    from hvnet import load_scenario

    with resources.as_file(resources.files("hvnet.examples").joinpath("rolling-update.yaml")) as path:
        scenario = load_scenario(path)
    results = simulate(scenario)
    (update,) = results.operations
    assert [n.node for n in update.nodes] == ["hv1", "hv2", "hv3"] and [n.vms for n in update.nodes] == [4, 4, 4]
    assert update.duration_s is not None and 3 * 1200 < update.duration_s < 3 * 1200 + 600
    assert {m.option for m in results.migrations} == {"smb_direct"} and len(results.migrations) == 24
    where = {vm.name: vm.host for vm in scenario.vms}
    for m in results.migrations:
        where[m.vm] = m.destination
    assert where == {vm.name: vm.host for vm in scenario.vms}


def sized(events: str, memory: tuple[str, str, str]) -> Results:
    """The cluster with each host's memory for VMs stated."""
    text = cluster(events)
    for name, size in zip(("hv1", "hv2", "hv3"), memory):
        text = text.replace(f"  - name: {name}\n", f"  - name: {name}\n    memory: {size}\n")
    return simulate(parse_scenario(text, "cluster.yaml"))


def test_a_balanced_drain_sends_each_vm_where_most_memory_is_free() -> None:
    """hv2 has 64 GiB (4 used: 60 free), hv3 16 GiB: vm1 (8 GiB) to hv2 (60 > 16), vm2 to hv2
    (52 > 16), vm3 to hv2 (48 > 16): free memory, not assigned memory, decides."""
    results = sized("  - {at: 0s, action: drain, target: hv1}\n", ("32GiB", "64GiB", "16GiB"))
    assert [m.destination for m in results.migrations] == ["hv2", "hv2", "hv2"]


def test_a_vm_goes_only_where_it_fits() -> None:
    """hv2 has 8 GiB free (12 - 4), hv3 10 GiB: vm1 (8 GiB) fits both and goes to hv3 (more free);
    then hv3 has 2 GiB and hv2 8: vm2 (4 GiB) to hv2; vm3 (4 GiB) to hv2 (4 left there)."""
    results = sized("  - {at: 0s, action: drain, target: hv1}\n", ("32GiB", "12GiB", "10GiB"))
    assert [m.destination for m in results.migrations] == ["hv3", "hv2", "hv2"]


def test_a_drain_with_no_room_for_a_vm_is_refused_with_the_free_memory() -> None:
    with pytest.raises(ScenarioError, match=r"vm1 \(8 GiB\) fits on no other host \(free: hv2 4 GiB, hv3 6 GiB\)"):
        sized("  - {at: 0s, action: drain, target: hv1}\n", ("32GiB", "8GiB", "6GiB"))


def test_a_migration_to_a_host_without_room_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"vm1 \(8 GiB\) does not fit on hv3 then \(free: hv3 6 GiB\)"):
        sized("  - {at: 0s, action: migrate, target: vm1, to: hv3}\n", ("32GiB", "8GiB", "6GiB"))


def test_a_host_whose_vms_do_not_fit_its_memory_is_refused_where_it_is_written() -> None:
    with pytest.raises(ScenarioError) as raised:
        sized("  - {at: 0s, action: drain, target: hv1}\n", ("12GiB", "8GiB", "6GiB"))
    assert "hosts[0].memory: hv1 has 12 GiB for VMs, but its VMs (vm1, vm2 and vm3) are assigned 16 GiB" in str(
        raised.value
    )
