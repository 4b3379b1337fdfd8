"""Configuration dumps -> scenario (issue 13, part 1): `hvnet.importers.config`.

The fixtures (fixtures/*.json, see fixtures/README.md) are dumps written by hand
from the documented shapes of the cmdlets collect.ps1 runs, one per design.
This module: the collection script, one fixture per design, and the imports end
to end (simulated, golden, stable). Odd dumps and the importer's errors:
test_odd_dumps.py.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import hvnet
from hvnet.importers.config import DUMP_FORMAT, ImportedConfig, collect_script, import_config
from hvnet.model import Scenario
from tests.importers.config.dumps import FIXTURES, LBFO_PAIR, dump, write_dump

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
ALL = sorted(FIXTURES.glob("*.json"))


def imported(*names: str) -> tuple[ImportedConfig, Scenario]:
    result = import_config([FIXTURES / name for name in names])
    assert result.problems == []
    return result, hvnet.parse_scenario(result.yaml, "imported.yaml")


# --- the collection script -------------------------------------------------------------------


def test_the_collection_script_is_shipped_and_writes_what_the_importer_reads() -> None:
    script = collect_script()
    assert script.startswith("<#") and "ConvertTo-Json -Depth 6" in script
    assert f"$FormatName = '{DUMP_FORMAT}'" in script
    sections = set(re.findall(r"^\$dump\.(\w+) =", script, re.MULTILINE))
    version_1_0 = {
        "Header",
        "NetAdapter",
        "NetAdapterJumboPacket",
        "NetAdapterRss",
        "NetAdapterVmq",
        "NetAdapterRdma",
        "NetAdapterRsc",
        "NetIPAddress",
        "NetLbfoTeam",
        "NetLbfoTeamMember",
        "VMSwitch",
        "VMSwitchTeam",
        "VMNetworkAdapterManagementOS",
        "VM",
        "VMNetworkAdapter",
        "VMHost",
        "VMMigrationNetwork",
        "SmbClientConfiguration",
        "SmbBandwidthLimit",
        "PowerPlan",
        "Processor",
        "Errors",
    }
    # the sections each version of collect.ps1 writes: 1.1.0 added ProcessorGroup (issue 24)
    by_version = {"1.0.0": version_1_0, "1.1.0": version_1_0 | {"ProcessorGroup"}}
    script_version = re.search(r"^\$ScriptVersion = '([\d.]+)'", script, re.MULTILINE)
    assert script_version is not None and sections == by_version[script_version.group(1)]
    # every fixture has the sections its version of the script wrote (and a comment saying which shapes it follows)
    for path in ALL:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert set(data) - {"_comment"} == by_version[data["Header"]["ScriptVersion"]], path.name
        assert data["_comment"]


def test_the_script_is_package_data_that_a_wheel_carries() -> None:
    """maturin puts every file of python/hvnet into the wheel that git does not ignore."""
    script = Path(hvnet.__file__).parent / "importers" / "config" / "collect.ps1"
    assert script.read_text(encoding="utf-8") == collect_script()
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git")
    ignored = subprocess.run([git, "check-ignore", "-q", str(script)], cwd=script.parent, check=False)
    assert ignored.returncode == 1  # 1: not ignored


# --- one fixture per design ---------------------------------------------------------------------


def test_lbfo_switch_independent_dynamic_two_hosts() -> None:
    result, scenario = imported("lbfo_dynamic_hv1.json", "lbfo_dynamic_hv2.json")
    assert [h.name for h in scenario.hosts] == ["hv1", "hv2"]
    hv1 = scenario.host("hv1")
    assert [(n.name, n.speed, n.mtu, n.rss_queues, n.rss_base_core) for n in hv1.nics] == [
        ("NIC1", 10e9, 1500, 8, 1),  # BaseProcessorNumber 2 is core 1 with Hyper-Threading
        ("NIC2", 10e9, 1500, 8, 9),
    ]
    team = hv1.team("Team1")
    assert (team.kind.value, team.members, team.mode.value, team.load_balancing.value) == (
        "lbfo",
        ("NIC1", "NIC2"),
        "switch_independent",
        "dynamic",
    )
    assert hv1.vswitch("vSwitch").uplink == "Team1"
    assert (hv1.cpu.sockets, hv1.cpu.cores_per_socket, hv1.cpu.ghz, hv1.cpu.smt) == (2, 8, 2.6, True)
    assert hv1.power_plan.value == "high_performance"
    assert (hv1.live_migration.option.value, hv1.live_migration.simultaneous) == ("compression", 2)
    assert [(v.name, v.host, v.vcpus, v.memory, v.vswitch) for v in scenario.vms] == [
        ("sql1", "hv1", 8, 64 * 2**30, "vSwitch"),
        ("web1", "hv1", 2, 4 * 2**30, "vSwitch"),  # dynamic memory: MemoryAssigned, not MemoryStartup
        ("app1", "hv2", 4, 16 * 2**30, "vSwitch"),
    ]
    assert any("old1 (Off)" in a for a in result.assumptions)
    # integers (PowerShell 5.1, hv1) and names (PowerShell 7, hv2) give the same host
    assert scenario.host("hv2").teams == hv1.teams and scenario.host("hv2").nics == hv1.nics


def test_lbfo_lacp_address_hash_on_a_host_without_hyper_v() -> None:
    result, scenario = imported("lbfo_lacp.json")
    host = scenario.host("hv3")
    team = host.team("LacpTeam")  # written as one object, not a list of one
    assert (team.mode.value, team.load_balancing.value, team.address_hash.value) == (
        "lacp",
        "address_hash",
        "ip_addresses",
    )
    assert [n.mtu for n in host.nics] == [9000, 9000]  # Jumbo Packet 9014
    assert host.vswitches == () and scenario.vms == ()
    # the members go to tor1 and tor2, which must then be one stack (as Windows needs for LACP)
    assert {s.stack for s in scenario.switches} == {"tor-stack"}
    assert any("stack" in a and "hv3/LacpTeam" in a for a in result.assumptions)
    assert any("VMHost is null (The term 'Get-VMHost' is not recognized" in a for a in result.assumptions)


def test_lbfo_static_with_a_standby_member() -> None:
    result, scenario = imported("lbfo_static.json")
    host = scenario.host("hv4")
    team = host.team("StaticTeam")
    assert (team.mode.value, team.load_balancing.value, team.address_hash.value) == (
        "static",
        "address_hash",
        "transport_ports",
    )
    assert team.standby == "Ethernet 3"
    assert [n.name for n in host.nics] == ["Ethernet", "Ethernet 2", "Ethernet 3"]  # Ethernet 4 had no link
    assert all(not n.vmq for n in host.nics)
    assert [v.name for v in host.vswitches] == ["External"]  # the internal switch Lab is left out
    assert (host.live_migration.option.value, host.live_migration.simultaneous) == ("tcp_ip", 4)
    assert host.power_plan.value == "balanced"  # by GUID: the name is German ("Ausbalanciert")
    assert any("Ethernet 4 had no link" in a for a in result.assumptions)
    assert any("Lab is internal" in a for a in result.assumptions)


def test_set_with_hyperv_port_rdma_and_smb_live_migration() -> None:
    _, scenario = imported("set_rdma.json")
    host = scenario.host("hv5")
    [team] = host.teams
    assert (team.kind.value, team.members, team.load_balancing.value) == ("set", ("pNIC1", "pNIC2"), "hyperv_port")
    assert all(n.rdma and n.mtu == 9000 and n.speed == 25e9 for n in host.nics)
    assert host.vswitch("ConvergedSwitch").uplink == team.name
    migration = host.live_migration
    assert migration.option.value == "smb" and migration.simultaneous == 4
    assert migration.networks == ("ConvergedSwitch",)  # subnets of the host vNICs SMB1, SMB2 on that switch
    assert migration.smb_bandwidth_limit == 8 * 2**30  # 1 GiB/s, in bits per second
    assert [n.name for n in host.nics] == ["pNIC1", "pNIC2"]  # host vNICs are not NICs


def test_separate_nics_without_a_team() -> None:
    _, scenario = imported("no_team.json")
    host = scenario.host("hv6")
    assert host.teams == ()
    assert [(n.name, n.speed, n.mtu, n.rss_queues, n.vmq) for n in host.nics] == [
        ("LM", 10e9, 9000, 8, False),
        ("Mgmt", 1e9, 1500, 2, False),
        ("VMs", 10e9, 1500, 1, True),  # RSS disabled: one queue
    ]
    assert host.vswitch("VMs").uplink == "VMs"
    assert host.live_migration.networks == ("LM",) and host.live_migration.option.value == "tcp_ip"
    assert (host.cpu.sockets, host.cpu.cores_per_socket, host.cpu.smt, host.cpu.ghz) == (1, 8, False, 3.7)
    assert host.power_plan.value == "power_saver"
    assert scenario.vm("file1").vswitch == "VMs"


def test_jumbo_frames_as_drivers_report_them() -> None:
    result, scenario = imported("jumbo.json")
    host = scenario.host("hv7")
    assert [(n.name, n.mtu) for n in host.nics] == [
        ("NIC1", 9000),
        ("NIC2", 4074),
        ("NIC3", 9216),
        ("NIC4", 1500),
        ("NIC5", 1500),
    ]
    assert host.nic("NIC5").speed == 2.5e9
    assert any("Jumbo Packet 9614" in a for a in result.assumptions)
    assert any("no RSS settings (NetAdapterRss is null (Access is denied.))" in a for a in result.assumptions)


def test_a_vm_with_vrss() -> None:
    result, scenario = imported("vm_vrss.json")
    assert scenario.vm("analytics").vcpus == 8
    assert re.search(r"name: analytics,.*# vRSS on$", result.yaml, re.MULTILINE)
    [team] = scenario.host("hv8").teams
    assert (team.kind.value, team.load_balancing.value) == ("set", "dynamic")
    legacy = [a for a in result.assumptions if "legacy" in a]
    assert len(legacy) == 2 and "vRSS off" in legacy[0] and "VmqWeight 0" in legacy[1]


# --- end to end, golden, stability ------------------------------------------------------------------


def test_dumps_to_yaml_to_simulate() -> None:
    """Every fixture together is one cluster; a live migration and a copy run on the imported design."""
    result = import_config(ALL)
    assert result.problems == []
    text = result.yaml + (
        "traffic:\n"
        "  - {name: copy, from: hv5, to: hv6, size: 10GB, connections: 4}\n"
        "events:\n"
        "  - {at: 1s, action: migrate, target: sql1, to: hv2}\n"
    )
    results = hvnet.simulate(hvnet.parse_scenario(text, "imported.yaml"))
    [copy_flow] = results.traffic
    assert copy_flow.end_s is not None and copy_flow.end_s > 0
    assert results.migrations and results.migrations[0].vm == "sql1"


def test_the_imported_yaml_is_the_golden_one(request: pytest.FixtureRequest) -> None:
    actual = import_config(LBFO_PAIR).yaml
    golden = GOLDEN / "lbfo_dynamic.yaml"
    if request.config.getoption("--update-golden"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
        return
    expected = golden.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "actual"))
        pytest.fail(
            f"the imported YAML differs from {golden.name}; if intended, run pytest --update-golden\n{diff}",
            pytrace=False,
        )


def test_the_same_dumps_give_the_same_bytes_in_any_order() -> None:
    first = import_config(ALL)
    again = import_config(list(reversed(ALL)))
    assert first.yaml == again.yaml and first.assumptions == again.assumptions


def test_every_assumption_is_marked_in_the_yaml() -> None:
    result = import_config(ALL)
    assert result.assumptions
    marked = result.yaml.count("ASSUMED")
    assert marked >= len({a for a in result.assumptions if not a.startswith("fabric:")})
    assert all(line.rstrip().endswith("# ASSUMED") for line in result.yaml.splitlines() if line.startswith("  - {a: "))


def test_a_design_hvnet_refuses_is_returned_with_its_problems(tmp_path: Path) -> None:
    data = dump("set_rdma.json")
    data["NetAdapterRdma"][1]["Enabled"] = False  # SET members must be identical NICs
    result = import_config([write_dump(tmp_path, "hv5.json", data)])
    assert result.problems and "identical" in result.problems[0]
