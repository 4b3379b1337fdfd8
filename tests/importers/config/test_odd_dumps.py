"""Odd configuration dumps (`hvnet.importers.config`): what the importer reads anyway, and what it refuses.

A single adapter written as an object, missing properties (Windows' defaults,
said so), link speeds in other spellings, UTF-16 as Windows PowerShell
redirects it, a custom power plan; and the errors, one line each naming the
file, the field and the value: a missing name, localised names and speeds, a
file that is no dump, a host or VM twice, an uplink that is no adapter.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import hvnet
from hvnet.errors import HvnetError, InputError
from hvnet.importers.config import import_config
from tests.importers.config.dumps import FIXTURES, LBFO_PAIR, dump, write_dump

HERE = Path(__file__).parent


def error_of(paths: list[Path]) -> str:
    with pytest.raises(InputError) as caught:
        import_config(paths)
    text = str(caught.value)
    assert "\n" not in text and "Traceback" not in text
    assert isinstance(caught.value, HvnetError)
    return text


# --- odd cases -----------------------------------------------------------------------------------------


def test_a_single_adapter_written_as_an_object(tmp_path: Path) -> None:
    data = dump("vm_vrss.json")
    data["NetAdapter"] = data["NetAdapter"][0]
    data["NetAdapterRss"] = data["NetAdapterRss"][0]
    data["VMSwitch"][0]["NetAdapterInterfaceDescriptions"] = data["NetAdapter"]["InterfaceDescription"]
    data["VMSwitchTeam"][0]["NetAdapterInterfaceDescription"] = data["NetAdapter"]["InterfaceDescription"]
    result = import_config([write_dump(tmp_path, "hv8.json", data)])
    host = hvnet.parse_scenario(result.yaml).host("hv8")
    assert [n.name for n in host.nics] == ["NIC1"] and host.teams[0].members == ("NIC1",)


def test_missing_properties_take_windows_defaults_and_say_so(tmp_path: Path) -> None:
    data = dump("lbfo_dynamic_hv1.json")
    del data["NetLbfoTeam"][0]["TeamingMode"]
    del data["NetLbfoTeam"][0]["LoadBalancingAlgorithm"]
    for entry in data["NetAdapterRss"]:
        del entry["BaseProcessorNumber"], entry["NumberOfReceiveQueues"]
    del data["VMHost"]["VirtualMachineMigrationPerformanceOption"]
    del data["VM"][0]["ProcessorCount"]
    del data["Processor"]
    del data["PowerPlan"]
    result = import_config([write_dump(tmp_path, "hv1.json", data)])
    host = hvnet.parse_scenario(result.yaml).host("hv1")
    team = host.team("Team1")
    assert (team.mode.value, team.load_balancing.value) == ("switch_independent", "dynamic")
    assert [(n.rss_queues, n.rss_base_core) for n in host.nics] == [(8, 0), (8, 0)]  # MaxProcessors 8
    assert host.live_migration.option.value == "compression"
    assert host.power_plan.value == "balanced" and host.cpu.sockets == 1
    text = "\n".join(result.assumptions)
    for expected in (
        "no TeamingMode",
        "no LoadBalancingAlgorithm",
        "no ProcessorCount",
        "no processor information",
        "no power plan",
    ):
        assert expected in text


def test_a_missing_adapter_name_is_an_error(tmp_path: Path) -> None:
    data = dump("no_team.json")
    del data["NetAdapter"][1]["Name"]
    path = write_dump(tmp_path, "hv6.json", data)
    assert error_of([path]) == f"{path}: NetAdapter[1].Name: missing; every network adapter has a name"


def test_an_unreadable_localised_link_speed_names_file_field_and_value(tmp_path: Path) -> None:
    data = dump("vm_vrss.json")
    data["NetAdapter"][1]["LinkSpeed"] = "10 Гбит/с"
    path = write_dump(tmp_path, "hv1.json", data)
    message = error_of([path])
    assert message.startswith(f"{path}: NetAdapter[1].LinkSpeed: '10 Гбит/с' is not a link speed hvnet can read")


def test_link_speeds_in_other_spellings_are_read(tmp_path: Path) -> None:
    data = dump("vm_vrss.json")
    data["NetAdapter"][0]["LinkSpeed"] = "10 Gbit/s"
    data["NetAdapter"][1]["LinkSpeed"] = "10,0 Gbps"
    result = import_config([write_dump(tmp_path, "hv8.json", data)])
    assert [n.speed for n in hvnet.parse_scenario(result.yaml).host("hv8").nics] == [10e9, 10e9]


def test_a_german_enum_name_is_an_error_with_the_choices(tmp_path: Path) -> None:
    data = dump("lbfo_static.json")
    data["NetLbfoTeam"][0]["TeamingMode"] = "Statisch"
    path = write_dump(tmp_path, "hv4.json", data)
    assert error_of([path]) == (
        f"{path}: NetLbfoTeam[0].TeamingMode: 'Statisch' is not a NIC teaming mode; expected "
        "Static (0), SwitchIndependent (1), Lacp (2)"
        " (PowerShell writes these names in English whatever the language of Windows)"
    )


def test_an_unknown_enum_integer_is_an_error(tmp_path: Path) -> None:
    data = dump("lbfo_dynamic_hv1.json")
    data["VMHost"]["VirtualMachineMigrationPerformanceOption"] = 7
    path = write_dump(tmp_path, "hv1.json", data)
    assert "VMHost.VirtualMachineMigrationPerformanceOption: 7 is not a live migration performance option" in error_of(
        [path]
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file is empty"),
        (b"Name  : NIC1\r\nStatus: Up\r\n", ":1: not JSON (Expecting value at column 1)"),
        (b"[1, 2]", "the JSON is a list, not a configuration dump"),
        (b'{"Name": "NIC1"}', "not an hvnet configuration dump (no Header with Format 'hvnet-config-dump')"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_a_dump_is_one_line(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "hv1.json"
    path.write_bytes(content)
    message = error_of([path])
    assert message.startswith(str(path)) and expected in message


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    assert error_of([tmp_path / "nowhere.json"]).startswith(f"{tmp_path / 'nowhere.json'}: cannot read the file")


def test_a_utf16_dump_as_windows_powershell_redirects_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "hv6.json"
    path.write_bytes((FIXTURES / "no_team.json").read_text(encoding="utf-8").encode("utf-16"))
    assert import_config([path]).yaml == import_config([FIXTURES / "no_team.json"]).yaml.replace(
        "no_team.json", "hv6.json"
    )


def test_two_dumps_of_the_same_host_are_an_error(tmp_path: Path) -> None:
    data = dump("lbfo_dynamic_hv1.json")
    data["Header"]["ComputerName"] = "HV1"  # Windows names ignore case
    again = write_dump(tmp_path, "again.json", data)
    message = error_of([LBFO_PAIR[0], again])
    assert message == f"{again}: Header.ComputerName: HV1 is also the host of {LBFO_PAIR[0]}; give one dump per host"


def test_a_vm_on_two_hosts_is_an_error(tmp_path: Path) -> None:
    data = dump("lbfo_dynamic_hv2.json")
    data["VM"][0]["Name"] = "sql1"
    data["VMNetworkAdapter"][0]["VMName"] = "sql1"
    other = write_dump(tmp_path, "hv2.json", data)
    assert "VM: VM sql1 has the name of a VM of hv1" in error_of([LBFO_PAIR[0], other])


def test_an_uplink_that_is_no_adapter_is_an_error(tmp_path: Path) -> None:
    data = dump("no_team.json")
    data["VMSwitch"][0]["NetAdapterInterfaceDescription"] = "Intel(R) Ethernet Adapter #9"
    path = write_dump(tmp_path, "hv6.json", data)
    assert error_of([path]) == (
        f"{path}: VMSwitch[0].NetAdapterInterfaceDescription: 'Intel(R) Ethernet Adapter #9' is the "
        "InterfaceDescription of no adapter in NetAdapter"
    )


def test_no_dump_is_an_error() -> None:
    assert "no configuration dump given" in error_of([])


def test_a_custom_power_plan_is_assumed_balanced(tmp_path: Path) -> None:
    data = copy.deepcopy(dump("jumbo.json"))
    data["PowerPlan"] = {
        "ElementName": "Contoso Hyper-V",
        "InstanceID": "Microsoft:PowerPlan\\{11111111-2222-3333-4444-555555555555}",
        "ActiveScheme": None,
    }
    result = import_config([write_dump(tmp_path, "hv7.json", data)])
    assert "power_plan: balanced  # ASSUMED: power plan 'Contoso Hyper-V' is none of Windows' own" in result.yaml


def test_the_docs_show_the_errors_as_they_are(tmp_path: Path) -> None:
    """docs/import.md's "Configuration" section quotes real messages."""
    docs = (HERE.parents[2] / "docs" / "import.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Configuration") :]
    data = dump("lbfo_static.json")
    data["NetLbfoTeam"][0]["TeamingMode"] = "Statisch"
    path = write_dump(tmp_path, "HV4.json", data)
    assert error_of([path]).replace(str(path), "HV4.json") in section
    again = dump("lbfo_dynamic_hv1.json")
    again["Header"]["ComputerName"] = "HV1"
    first, second = write_dump(tmp_path, "HV1.json", again), write_dump(tmp_path, "HV2.json", again)
    assert error_of([first, second]).replace(str(tmp_path) + "/", "") in section
    other = tmp_path / "other.json"
    other.write_text('{"Name": "NIC1"}')
    assert error_of([other]).replace(str(tmp_path) + "/", "") in section


@given(st.lists(st.text(min_size=0, max_size=12), min_size=2, max_size=8))
@example(["", "²"])
def test_names_sort_naturally_whatever_they_hold(names: list[str]) -> None:
    """The second 100,000-case run (config, seed 21): a dump whose names split into different numbers of
    parts (a team named like a number) raised TypeError while sorting. Any names sort, NIC2 before NIC10;
    a superscript two is a digit to str.isdigit but no number to int (found by this test, not the fuzzer)."""
    from hvnet.importers.config.convert import _natural

    assert sorted(names, key=_natural) == sorted(sorted(names, key=_natural), key=_natural)
    assert sorted(["NIC10", "nic2", "NIC1"], key=_natural) == ["NIC1", "nic2", "NIC10"]
