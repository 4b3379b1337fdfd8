"""The scenario fields live migration needs: VM memory behaviour, a host's
live migration settings, and the migrate event (docs/scenario.md, BEHAVIOUR.md
"Live migration"). Defaults, each refusal's exact line, and a valid scenario.
"""

from __future__ import annotations

import pytest

from hvnet.errors import ScenarioError
from hvnet.model import EventAction, MigrationOption, Scenario, parse_scenario, scenario_json_schema

GiB = 2**30
MiB = 2**20

HEAD = """\
name: t
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
"""


def with_vms(vms: list[str], events: tuple[str, ...] | list[str] = ()) -> str:
    """HEAD with these VM entries and event entries (flow mappings); a VM's line is 8 + its index."""
    text = HEAD + "vms:\n" + "".join(f"  - {vm}\n" for vm in vms)
    if events:
        text += "events:\n" + "".join(f"  - {event}\n" for event in events)
    return text


VM1 = "{name: vm1, host: hv1, memory: 8GiB}"
VM2 = "{name: vm2, host: hv2, memory: 4GiB}"


def valid(text: str) -> Scenario:
    return parse_scenario(text, "cluster.yaml")


def problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "cluster.yaml")
    return str(caught.value).splitlines()


# --- defaults ----------------------------------------------------------------------------


def test_vm_memory_behaviour_defaults() -> None:
    vm = valid(with_vms([VM1])).vm("vm1")
    assert vm.populated == vm.working_set == vm.memory == 8 * GiB
    assert vm.dirty_rate == 0.0
    assert vm.device_state == 32 * MiB


def test_vm_memory_behaviour_as_written() -> None:
    entry = "{name: vm1, host: hv1, memory: 8GiB, populated: 6GiB, dirty_rate: 200MBps, working_set: 1GiB,"
    vm = valid(with_vms([entry + " device_state: 64MiB}"])).vm("vm1")
    assert (vm.populated, vm.working_set, vm.device_state) == (6 * GiB, GiB, 64 * MiB)
    assert vm.dirty_rate == 1.6e9  # 200 MB/s in bits per second, the same as 1.6Gbps


def test_host_live_migration_defaults_and_settings() -> None:
    text = HEAD.replace("speed: 10Gbps}]}\n", "speed: 10Gbps}], live_migration: {option: tcp_ip}}\n", 1)
    text = text.replace("speed: 10Gbps}]}\n", "speed: 10Gbps}], live_migration: {simultaneous: 8}}\n", 1)
    scenario = valid(text)
    hv1, hv2 = scenario.host("hv1").live_migration, scenario.host("hv2").live_migration
    assert (hv1.option, hv1.simultaneous) == (MigrationOption.TCP_IP, 2)
    assert (hv2.option, hv2.simultaneous) == (MigrationOption.COMPRESSION, 8)


def test_defaults_survive_a_dump_and_the_schema_shows_no_false_default() -> None:
    scenario = valid(with_vms([VM1]))
    dumped = scenario.model_dump(mode="json")
    assert dumped["vms"][0]["populated"] == "8 GiB"
    assert Scenario.model_validate(dumped) == scenario
    assert "default" not in scenario_json_schema()["$defs"]["VM"]["properties"]["populated"]


# --- refusals ------------------------------------------------------------------------------


def test_populated_and_working_set_are_parts_of_memory() -> None:
    entry = "{name: vm1, host: hv1, memory: 8GiB, populated: 9GiB, working_set: 16GiB}"
    assert problems(with_vms([entry])) == [
        "cluster.yaml:8: vms[0].populated: 9 GiB is more than memory (8 GiB);"
        " populated is the memory that is not zero pages, at most memory",
        "cluster.yaml:8: vms[0].working_set: 16 GiB is more than memory (8 GiB);"
        " working_set is the memory the guest writes to, at most memory",
    ]


def test_dirty_rate_needs_a_unit() -> None:
    assert problems(with_vms(["{name: vm1, host: hv1, memory: 8GiB, dirty_rate: 200}"])) == [
        "cluster.yaml:8: vms[0].dirty_rate: 200 has no unit; write a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 200Gbps)"
    ]


def test_a_bad_memory_is_reported_once() -> None:
    """populated and working_set default to memory, but do not repeat its error."""
    lines = problems(with_vms(["{name: vm1, host: hv1, memory: 8Gb}"]))
    assert len(lines) == 1 and lines[0].startswith("cluster.yaml:8: vms[0].memory: ")


def test_live_migration_settings_are_bounded() -> None:
    text = HEAD.replace(
        "{name: hv2, nics: [{name: nic1, speed: 10Gbps}]}",
        "{name: hv2, nics: [{name: nic1, speed: 10Gbps}], live_migration: {option: rdma, simultaneous: 0}}",
    )
    assert problems(text) == [
        "cluster.yaml:4: hosts[1].live_migration.option: 'rdma' is not allowed;"
        " choose one of tcp_ip, compression, smb, smb_direct",
        "cluster.yaml:4: hosts[1].live_migration.simultaneous: 0 is too small; must be at least 1",
    ]


def test_migrate_needs_a_destination() -> None:
    assert problems(with_vms([VM1], ["{at: 10s, action: migrate, target: vm1}"])) == [
        "cluster.yaml:10: events[0].to: migrate needs a destination host (to: ...); hosts: hv1, hv2"
    ]


def test_migrate_to_an_unknown_host() -> None:
    assert problems(with_vms([VM1], ["{at: 10s, action: migrate, target: vm1, to: hv9}"])) == [
        "cluster.yaml:10: events[0].to: hv9 is not a host of the scenario; hosts: hv1, hv2"
    ]


def test_migrate_to_the_host_it_runs_on() -> None:
    events = ["{at: 10s, action: migrate, target: vm1, to: hv1}"]
    assert problems(with_vms([VM1], events)) == [
        "cluster.yaml:10: events[0].to: vm1 already runs on hv1; migrate it to another host"
    ]


def test_migrations_are_followed_in_time_order() -> None:
    """The event at 20s finds vm1 on hv2, where the one at 10s (listed later) moved it."""
    events = ["{at: 20s, action: migrate, target: vm1, to: hv2}", "{at: 10s, action: migrate, target: vm1, to: hv2}"]
    assert problems(with_vms([VM1], events)) == [
        "cluster.yaml:10: events[0].to: vm1 already runs on hv2; migrate it to another host"
    ]


def test_migrate_moves_a_vm() -> None:
    events = ["{at: 1s, action: migrate, target: hv1, to: hv2}", "{at: 2s, action: migrate, target: vm9, to: hv2}"]
    assert problems(with_vms([VM1], events)) == [
        "cluster.yaml:10: events[0].target: 'hv1' is a host; migrate moves a VM; VMs: vm1",
        "cluster.yaml:11: events[1].target: unknown VM 'vm9'; VMs: vm1",
    ]


def test_only_migrate_takes_a_destination() -> None:
    events = [
        "{at: 1s, action: migrate, target: vm1, to: hv2}",
        "{at: 2s, action: nic_down, target: hv1/nic1, to: hv2}",
    ]
    assert problems(with_vms([VM1], events)) == ["cluster.yaml:11: events[1].to: only migrate takes a destination"]


# --- a valid scenario ---------------------------------------------------------------------


def test_a_scenario_with_two_migrations_loads() -> None:
    events = [
        "{at: 10s, action: migrate, target: vm1, to: hv2}",
        "{at: 10s, action: migrate, target: vm2, to: hv1}",
        "{at: 5min, action: migrate, target: vm1, to: hv1}",
    ]
    scenario = valid(with_vms([VM1, VM2], events))
    moves = [(event.at, event.action, event.target, event.to) for event in scenario.events]
    assert moves == [
        (10.0, EventAction.MIGRATE, "vm1", "hv2"),
        (10.0, EventAction.MIGRATE, "vm2", "hv1"),
        (300.0, EventAction.MIGRATE, "vm1", "hv1"),
    ]


# --- the guest's CPU load -----------------------------------------------------------------


def test_cpu_load_defaults_to_idle_and_is_a_share_of_the_vcpus() -> None:
    assert valid(with_vms([VM1])).vm("vm1").cpu_load == 0.0
    assert valid(with_vms(["{name: vm1, host: hv1, vcpus: 4, memory: 8GiB, cpu_load: 0.5}"])).vm("vm1").cpu_load == 0.5
    schema = scenario_json_schema()["$defs"]["VM"]["properties"]["cpu_load"]
    assert (schema["minimum"], schema["maximum"], schema["default"]) == (0, 1, 0.0)
    assert "vCPUs" in schema["description"]


def test_cpu_load_is_between_0_and_1() -> None:
    """A percentage written as 50, a negative load and a word are refused, each on its line, saying what is allowed."""
    entries = [
        "{name: vm1, host: hv1, memory: 8GiB, cpu_load: 50}",
        "{name: vm2, host: hv2, memory: 4GiB, cpu_load: -0.1}",
        "{name: vm3, host: hv2, memory: 4GiB, cpu_load: busy}",
    ]
    share = (
        "is not a share from 0 to 1; it is the share of the VM's vCPUs the guest keeps busy (0.5: half of them, not 50)"
    )
    assert problems(with_vms(entries)) == [
        f"cluster.yaml:8: vms[0].cpu_load: 50 {share}",
        f"cluster.yaml:9: vms[1].cpu_load: -0.1 {share}",
        "cluster.yaml:10: vms[2].cpu_load: expected a number, got 'busy'",
    ]
