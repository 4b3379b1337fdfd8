"""Dumps as Windows PowerShell 5.1 writes them, and Network ATC's names (issue 24, "Import").

Windows PowerShell 5.1 gives every array an extended Count, and its ConvertTo-Json writes an array wrapped in a
PSObject, as a calculated property of Select-Object returns it, as ``{"value": [...], "Count": n}``
(PowerShell/PowerShell#3163, #3222). collect.ps1 1.0.0 made its lists so; every dump it wrote under 5.1 was
refused (``NetLbfoTeam[0].TeamNics: expected text, not an object``). collect.ps1 1.1.0 removes that type data
under 5.1, and the importer reads the wrapped lists of the dumps already collected.

The 5.1 fixtures (``*_ps51.json``) are byte for byte what 5.1 writes (ps51.py, checked here against output
captured from 5.1): its layout, its escapes, CR LF.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import hvnet
from hvnet.errors import InputError
from hvnet.importers.config import collect_script, import_config
from hvnet.importers.config.dump import Node
from hvnet.importers.config.processors import import_cpu
from hvnet.importers.config.record import Assumptions
from hvnet.model import Host
from tests.importers.config.ps51 import convert_to_json

FIXTURES = Path(__file__).parent / "fixtures"
ALL = sorted(FIXTURES.glob("*.json"))
R720 = FIXTURES / "hv_r720_ps51.json"
N1 = FIXTURES / "hci01_n1_atc_ps51.json"
N2 = FIXTURES / "hci01_n2_atc_ps51.json"
WRITTEN_BY_51 = [R720, N1, N2]
ATC_SWITCH = "ConvergedSwitch(converged)"

#: The list-valued properties collect.ps1 writes (each by ConvertTo-List in a calculated property), by section.
LIST_PROPERTIES = {
    ("NetAdapterJumboPacket", "RegistryValue"),
    ("NetLbfoTeam", "Members"),
    ("NetLbfoTeam", "TeamNics"),
    ("VMSwitch", "NetAdapterInterfaceDescriptions"),
    ("VMSwitchTeam", "NetAdapterInterfaceDescription"),
}


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def write(folder: Path, name: str, data: object, *, as_51: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = convert_to_json(data) if as_51 else json.dumps(data, indent=4, ensure_ascii=False)
    path.write_bytes(text.encode("utf-8"))
    return path


def host_of(path: Path, name: str) -> tuple[Host, list[str]]:
    result = import_config([path])
    assert result.problems == []
    return hvnet.parse_scenario(result.yaml, "imported.yaml").host(name), result.assumptions


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        import_config([path])
    return str(caught.value)


def rows(data: dict[str, Any], section: str) -> list[dict[str, Any]]:
    value = data[section]
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def reshape(data: dict[str, Any], section: str, prop: str, shape: str) -> int:
    """Writes every ``prop`` of ``section`` as a plain array or 5.1's {value, Count}; how many were rewritten."""
    count = 0
    for row in rows(data, section):
        value = row.get(prop)
        if value is None:
            continue
        items = value["value"] if isinstance(value, dict) else value if isinstance(value, list) else [value]
        row[prop] = {"value": items, "Count": len(items)} if shape == "wrapped" else items
        count += 1
    return count


# --- the 5.1 writer, against what Windows PowerShell 5.1 wrote ---------------------------------------------------

#: ``Get-VMSwitch | ConvertTo-Json`` in Windows PowerShell 5.1, kept as a test fixture by
#: taliesins/terraform-provider-hyperv (api/vm_switch_test.go); its enums are integers.
CAPTURED_VMSWITCH = """{
    "BandwidthReservationMode":  2,
    "NetAdapterInterfaceDescriptions":  [
                                            "Dell Wireless 1830 802.11ac"
                                        ],
    "Notes":  "test notes",
    "AllowManagementOS":  true,
    "Name":  "test",
    "SwitchType":  2,
    "IovEnabled":  false,
    "EmbeddedTeamingEnabled":  false,
    "PacketDirectEnabled":  false
}"""

#: ``'[ 1, 2 ]' | ConvertFrom-Json | ConvertTo-Json`` in PowerShell v5.1.14393.693 (PowerShell/PowerShell#3153):
#: the array ConvertFrom-Json sent whole arrives wrapped in a PSObject, and is written with its Count.
CAPTURED_WRAPPED = """{
    "value":  [
                  1,
                  2
              ],
    "Count":  2
}"""


def test_the_51_writer_writes_what_windows_powershell_51_wrote() -> None:
    """ps51.py ports 5.1's JavaScriptSerializer + ConvertToPrettyJsonString; two captured outputs say it is right."""
    vmswitch = {
        "BandwidthReservationMode": 2,
        "NetAdapterInterfaceDescriptions": ["Dell Wireless 1830 802.11ac"],
        "Notes": "test notes",
        "AllowManagementOS": True,
        "Name": "test",
        "SwitchType": 2,
        "IovEnabled": False,
        "EmbeddedTeamingEnabled": False,
        "PacketDirectEnabled": False,
    }
    assert convert_to_json(vmswitch) == CAPTURED_VMSWITCH.replace("\n", "\r\n")
    assert convert_to_json({"value": [1, 2], "Count": 2}) == CAPTURED_WRAPPED.replace("\n", "\r\n")
    # HttpUtility.JavaScriptStringEncode: ' < > & as \u00XX in lower-case hex; other characters as they are
    escaped = '"it\\u0027s \\u003cR\\u0026D\\u003e Überprüfung"'
    assert convert_to_json(["it's <R&D> Überprüfung"]) == f"[\r\n    {escaped}\r\n]"


@pytest.mark.parametrize("path", WRITTEN_BY_51, ids=lambda p: p.name)
def test_the_51_fixtures_are_what_51_writes(path: Path) -> None:
    """Each *_ps51.json is exactly 5.1's text of its data: CR LF, two spaces after colons, escapes."""
    raw = path.read_bytes()
    assert raw == convert_to_json(load(path)).encode("utf-8")
    assert b'":  ' in raw and b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")


# --- the dumps of issue 24 ------------------------------------------------------------------------------------------


def test_a_dump_of_collect_ps1_1_0_under_51_imports() -> None:
    """HV-R720-01.json was refused at NetLbfoTeam[0].TeamNics; every wrapped list is read now, and read right."""
    data = load(R720)
    assert data["NetLbfoTeam"][0]["TeamNics"] == {"value": ["Team-10G"], "Count": 1}  # the shape refused
    host, assumptions = host_of(R720, "HV-R720-01")
    team = host.team("Team-10G")  # TeamNics: the team interface Team-10G is the team, not an adapter
    assert team.members == ("SLOT 4 Port 1", "SLOT 4 Port 2")  # Members
    assert (team.mode.value, team.load_balancing.value) == ("switch_independent", "dynamic")  # integers 1, 5
    assert host.vswitch("vSwitch-10G").uplink == "Team-10G"  # NetAdapterInterfaceDescriptions
    assert [(n.name, n.mtu) for n in host.nics] == [
        ("Embedded NIC 1", 1500),  # RegistryValue {"value": ["1514"]}, DisplayValue "Deaktiviert"
        ("SLOT 4 Port 1", 9000),  # RegistryValue {"value": ["9014"]}
        ("SLOT 4 Port 2", 9000),
    ]
    assert host.power_plan.value == "high_performance"  # by GUID: "Höchstleistung"
    assert host.live_migration.networks == ("vSwitch-10G",)  # vEthernet (LiveMigration) on that switch
    # names keep their case in what is said (issue 24, 4): not "embedded nic 2"
    assert "HV-R720-01: adapter Embedded NIC 2 is Disabled and is left out" in assumptions


def test_escaped_names_come_back_as_written() -> None:
    """5.1 writes ' < > & as \\u0027 \\u003c \\u003e \\u0026; they are JSON escapes, and the names are the VMs'."""
    raw = R720.read_text(encoding="utf-8")
    assert "Finance\\u0027s SQL \\u003cprod\\u003e" in raw and "R\\u0026D build" in raw
    result = import_config([R720])
    scenario = hvnet.parse_scenario(result.yaml, "imported.yaml")
    assert [vm.name for vm in scenario.vms] == ["Finance's SQL <prod>", "R&D build"]


@pytest.mark.parametrize("path", [p for p in ALL if p not in WRITTEN_BY_51], ids=lambda p: p.name)
def test_every_fixture_as_51_writes_it_imports_the_same(path: Path, tmp_path: Path) -> None:
    """Each other fixture, re-written as collect.ps1 1.0.0 under 5.1 would (5.1's layout and escapes, every list
    property wrapped), gives the same scenario byte for byte."""
    data = load(path)
    wrapped = copy.deepcopy(data)
    for section, prop in LIST_PROPERTIES:
        reshape(wrapped, section, prop, "wrapped")
    expected = import_config([write(tmp_path / "plain", path.name, data, as_51=False)])
    actual = import_config([write(tmp_path / "ps51", path.name, wrapped)])
    assert (actual.yaml, actual.assumptions) == (expected.yaml, expected.assumptions)


# --- every list property of the script, in both shapes ------------------------------------------------------------


def script_list_properties() -> set[tuple[str, str]]:
    """(section, property) of every calculated property of collect.ps1 whose value ConvertTo-List makes."""
    script = collect_script()
    found: set[tuple[str, str]] = set()
    for block in re.split(r"^(?=\$dump\.)", script, flags=re.MULTILINE):
        section = re.match(r"\$dump\.(\w+) = Get-Section", block)
        calculated = re.findall(r"@\{ n = '(\w+)'; e = \{ ConvertTo-List \$_\.(\w+) \} \}", block)
        for name, source in calculated:
            assert section is not None and name == source, block[:80]
            found.add((section.group(1), name))
    return found


def test_the_script_writes_the_list_properties_this_test_covers() -> None:
    """If collect.ps1 gains a list property, LIST_PROPERTIES (and so the tests below) must name it."""
    assert script_list_properties() == LIST_PROPERTIES
    # and ConvertTo-List makes no list elsewhere, which the pattern above would miss
    sections = collect_script()[collect_script().index("$dump = [ordered]@{}") :]
    assert sections.count("ConvertTo-List") == len(LIST_PROPERTIES)


@pytest.mark.parametrize(("section", "prop"), sorted(LIST_PROPERTIES))
def test_each_list_property_reads_as_an_array_and_as_51s_value_and_count(
    section: str, prop: str, tmp_path: Path
) -> None:
    """For every fixture that has the property: PowerShell 7's array and 5.1's {value, Count} give the same
    scenario; and a Count that is not the list's length is refused at that property, so the test can tell."""
    cases = 0
    for path in ALL:
        data = load(path)
        if not any(row.get(prop) is not None for row in rows(data, section)):
            continue
        plain, wrapped = copy.deepcopy(data), copy.deepcopy(data)
        reshape(plain, section, prop, "array")
        reshape(wrapped, section, prop, "wrapped")
        expected = import_config([write(tmp_path / "array", path.name, plain, as_51=False)])
        assert import_config([write(tmp_path / "wrapped", path.name, wrapped)]).yaml == expected.yaml, path.name
        broken = copy.deepcopy(wrapped)
        index, row = next((i, r) for i, r in enumerate(rows(broken, section)) if r.get(prop) is not None)
        row[prop]["Count"] += 1
        message = error_of(write(tmp_path / "broken", path.name, broken))
        where = f"{section}[{index}]" if isinstance(broken[section], list) else section
        assert f"{where}.{prop}.Count: " in message and "is not the number of entries in value" in message
        cases += 1
    assert cases >= 1, f"no fixture has {section}.{prop}"


def test_a_wrapped_section_is_read_as_its_list(tmp_path: Path) -> None:
    """Wherever a list is read: a whole section as {value, Count} (an array a cmdlet wrapped, in 5.1), and a
    one-object section (Get-VMHost) as a wrapped list of one, give the same scenario."""
    data = load(N2)
    wrapped = copy.deepcopy(data)
    wrapped["NetAdapter"] = {"value": data["NetAdapter"], "Count": len(data["NetAdapter"])}
    wrapped["VMHost"] = {"value": [data["VMHost"]], "Count": 1}
    expected = import_config([write(tmp_path / "plain", N2.name, data)])
    assert import_config([write(tmp_path / "wrapped", N2.name, wrapped)]).yaml == expected.yaml


def test_a_wrapped_list_that_holds_no_list_is_refused(tmp_path: Path) -> None:
    data = load(R720)
    data["NetLbfoTeam"][0]["Members"] = {"value": "SLOT 4 Port 1", "Count": 1}
    message = error_of(write(tmp_path, R720.name, data))
    assert message.endswith(
        "NetLbfoTeam[0].Members.value: expected the list of Windows PowerShell 5.1's {value, Count} (an array), "
        "not text"
    )


def test_an_object_cut_by_convertto_json_depth_says_so(tmp_path: Path) -> None:
    """5.1's default -Depth 2 writes a deeper object as text; the error says that, not only "not text"."""
    data = load(N1)
    data["NetAdapterRss"][0] = "@{Name=Ethernet; InterfaceDescription=Mellanox ConnectX-6 Dx Adapter; Enabled=True}"
    message = error_of(write(tmp_path, N1.name, data))
    assert "NetAdapterRss[0]: expected an object (a PowerShell object's properties), not text" in message
    assert "deeper than its -Depth" in message and "-Depth 6" in message


def test_a_collection_date_as_51_writes_a_datetime_is_shown_in_utc(tmp_path: Path) -> None:
    data = load(R720)
    data["Header"]["CollectedAt"] = {"value": "/Date(1718114557000)/", "DateTime": "Dienstag, 11. Juni 2024 14:02:37"}
    result = import_config([write(tmp_path, R720.name, data)])
    assert "(collected 2024-06-11T14:02:37Z, collect.ps1 1.0.0)" in result.yaml


# --- Network ATC's host vNICs -------------------------------------------------------------------------------------


def test_network_atc_host_vnics_carry_live_migration() -> None:
    """vSMB(converged#Ethernet) and vSMB(converged#Ethernet 2) hold the migration subnets; they are host vNICs of
    ConvergedSwitch(converged) though their adapters are not named 'vEthernet (...)'."""
    for path, name in ((N1, "HCI01-N1"), (N2, "HCI01-N2")):
        host, assumptions = host_of(path, name)
        assert host.live_migration.networks == (ATC_SWITCH,), path.name
        assert not any("match no imported interface" in a for a in assumptions)


def rename_vnic_adapters(data: dict[str, Any]) -> None:
    """The host vNICs' adapters renamed, as an administrator may: no name ties them to their vNIC any more."""
    renamed = {"vSMB(converged#Ethernet)": "Storage A", "vSMB(converged#Ethernet 2)": "Storage B"}
    for row in data["NetAdapter"] + data["NetIPAddress"]:
        key = "Name" if "Name" in row else "InterfaceAlias"
        row[key] = renamed.get(row[key], row[key])


def test_a_renamed_host_vnic_is_found_by_its_device_id(tmp_path: Path) -> None:
    data = load(N2)  # collect.ps1 1.1.0: DeviceID
    rename_vnic_adapters(data)
    for row in data["NetAdapter"]:
        row["MacAddress"] = "00-00-00-00-00-00"  # so that only the DeviceID can tell
    host, _ = host_of(write(tmp_path, N2.name, data), "HCI01-N2")
    assert host.live_migration.networks == (ATC_SWITCH,)


def test_a_renamed_host_vnic_of_an_older_dump_is_found_by_its_mac_address(tmp_path: Path) -> None:
    data = load(N1)  # collect.ps1 1.0.0: no DeviceID
    rename_vnic_adapters(data)
    host, _ = host_of(write(tmp_path, N1.name, data), "HCI01-N1")
    assert host.live_migration.networks == (ATC_SWITCH,)
    # without the MAC address nothing ties them: all networks, and said so (the test above can fail)
    for row in data["NetAdapter"]:
        row["MacAddress"] = None
    host, assumptions = host_of(write(tmp_path, N1.name, data), "HCI01-N1")
    assert host.live_migration.networks is None
    assert "HCI01-N1: live migration networks match no imported interface: all of them" in assumptions


# --- processor groups ---------------------------------------------------------------------------------------------


def rss_cores(host: Host) -> list[tuple[str, int]]:
    return [(n.name, n.rss_base_core) for n in host.nics]


def test_rss_on_processor_group_1_is_on_the_second_socket() -> None:
    """Ethernet 2's RSS starts at 1:2 (BaseProcessorGroup 1, BaseProcessorNumber 2). With two groups of 64
    logical processors that is logical processor 66, core 33 with Hyper-Threading: not core 1, Ethernet's."""
    measured, assumptions = host_of(N2, "HCI01-N2")  # ProcessorGroup: groups of 64 and 64
    assert rss_cores(measured) == [("Ethernet", 1), ("Ethernet 2", 33)]
    assert not any("processor group" in a for a in assumptions)
    assumed, assumptions = host_of(N1, "HCI01-N1")  # collect.ps1 1.0.0: no ProcessorGroup; assumed, and said
    assert rss_cores(assumed) == [("Ethernet", 1), ("Ethernet 2", 33)]
    [said] = [a for a in assumptions if "processor group" in a]
    assert said.startswith("HCI01-N1: Ethernet 2: RSS starts in processor group 1")
    assert said.endswith("group 1 starts at logical processor 64")


def test_the_groups_a_dump_states_are_used(tmp_path: Path) -> None:
    """Groups of 40 and 40 (say, two sockets of 20 cores): 1:2 is logical processor 42, core 21."""
    data = load(N2)
    data["ProcessorGroup"] = [{"Group": 0, "LogicalProcessors": 40}, {"Group": 1, "LogicalProcessors": 40}]
    host, _ = host_of(write(tmp_path, N2.name, data), "HCI01-N2")
    assert rss_cores(host) == [("Ethernet", 1), ("Ethernet 2", 21)]


def test_a_group_the_dump_does_not_list_is_an_error(tmp_path: Path) -> None:
    data = load(N2)
    data["NetAdapterRss"][1]["BaseProcessorGroup"] = 2
    assert error_of(write(tmp_path, N2.name, data)).endswith(
        "NetAdapterRss[1].BaseProcessorGroup: 2 is not one of the host's processor groups (0, 1, from ProcessorGroup)"
    )


def test_no_base_processor_group_on_a_host_of_two_groups_is_assumed_group_0(tmp_path: Path) -> None:
    data = load(N2)
    del data["NetAdapterRss"][1]["BaseProcessorGroup"]
    host, assumptions = host_of(write(tmp_path, N2.name, data), "HCI01-N2")
    assert rss_cores(host) == [("Ethernet", 1), ("Ethernet 2", 1)]
    said = "HCI01-N2: Ethernet 2: no BaseProcessorGroup on a host of several processor groups: RSS starts in group 0"
    assert said in assumptions


@pytest.mark.parametrize(
    ("sockets", "logical", "group_size"),
    [
        (2, 20, 40),  # 40 logical processors: one group
        (2, 40, 40),  # 80: a group per socket, 40 and 40 (not 64 and 16)
        (2, 64, 64),  # 128: a group per socket
        (4, 24, 48),  # 96: two sockets to a group
        (2, 96, 48),  # a socket of 96 is split in two of 48
        (1, 128, 64),
    ],
)
def test_groups_are_assumed_as_windows_forms_them(sockets: int, logical: int, group_size: int) -> None:
    """Microsoft Learn, "Processor Groups": as few groups as possible, a core's and a socket's logical processors
    in one group where they fit, a NUMA node larger than a group split into equal parts."""
    processor = {"Name": "cpu", "NumberOfCores": logical // 2, "NumberOfLogicalProcessors": logical}
    root = Node("hv.json", "", {"Processor": [processor] * sockets, "ProcessorGroup": None})
    groups = import_cpu(root, "hv", Assumptions()).groups
    assert (groups.sizes, groups.assumed_size) == ({}, group_size)
    assert groups.single == (sockets * logical <= 64)
    if not groups.single:
        assert groups.start(1, root)[0] == group_size


def test_a_group_past_those_windows_would_form_splits_the_host_evenly(tmp_path: Path) -> None:
    """RSS on group 1 of a host of 40 logical processors, which Windows forms into one group: the groups were set
    otherwise (bcdedit groupsize), and the 40 are assumed split in two groups of 20, said so."""
    data = load(R720)
    data["NetAdapterRss"][2] |= {"BaseProcessorGroup": 1, "BaseProcessorNumber": 2}  # SLOT 4 Port 2 at 1:2
    host, assumptions = host_of(write(tmp_path, R720.name, data), "HV-R720-01")
    assert host.nic("SLOT 4 Port 2").rss_base_core == (20 + 2) // 2
    [said] = [a for a in assumptions if "processor group" in a]
    assert "yet group 1 exists, so the groups were set otherwise: the 40 logical processors in 2 groups of 20" in said


# --- the script ----------------------------------------------------------------------------------------------------


def test_the_script_writes_arrays_in_51_and_records_what_the_importer_matches_by() -> None:
    script = collect_script()
    assert "$ScriptVersion = '1.1.0'" in script
    guard = script.index("if ($PSVersionTable.PSVersion.Major -lt 6) {")
    assert "Remove-TypeData -TypeName System.Array" in script[guard : guard + 200]
    assert guard < script.index("$dump = [ordered]@{}")  # before anything is converted
    assert "-AsArray" not in script and "-EnumsAsStrings" not in script  # PowerShell 7 only
    for needed in ("HardwareInterface, DeviceID", "IsManagementOs, DeviceId", "GetActiveProcessorCount"):
        assert needed in script
