"""Configuration dumps -> one scenario (issue 13, "Configuration -> scenario").

``import_config(paths)`` reads the dumps that ``collect.ps1`` wrote, one per
host, and writes the scenario they describe as commented YAML: hosts with
their NICs (speed, MTU, RSS, VMQ, RDMA, RSC), LBFO and SET teams, external
virtual switches, running VMs on their virtual switch, power plan, CPU and
live migration settings.

What no host can tell — which switch each NIC is cabled to, the switches
themselves — is assumed the simplest way and marked ``ASSUMED`` in the YAML
and in ``ImportedConfig.assumptions``: the n-th NIC of every host (by name)
goes to switch ``torN``, the switches are joined to ``tor1`` by non-blocking
links, and they are one stack where a static or LACP team spans them.

The same dumps always give the same bytes: hosts, NICs, teams, switches and
VMs are sorted by name (PowerShell lists them in no promised order), and the
files' order does not matter.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hvnet.errors import InputError, ScenarioError
from hvnet.importers.config.dump import Node, parse_link_speed, read_dump
from hvnet.model.scenario import FASTEST_LINK_BPS, SLOWEST_LINK_BPS
from hvnet.units import format_bitrate, format_bytes

__all__ = ["ImportedConfig", "import_config"]


@dataclass(frozen=True)
class ImportedConfig:
    """What ``import_config`` made of the dumps."""

    yaml: str
    """The scenario, as commented YAML text (hvnet.parse_scenario reads it as is)."""
    assumptions: list[str]
    """What the dumps could not tell and the scenario assumes, one sentence each ("hv1: ..."),
    each also a comment marked ASSUMED in the YAML."""
    problems: list[str] = field(default_factory=list)
    """Where the imported design breaks one of hvnet's rules (a rule Windows has too, e.g. a SET
    team of different NICs), as hvnet.parse_scenario words it; empty when the scenario loads."""


# --- what a dump is turned into ----------------------------------------------------------------


@dataclass
class _Nic:
    name: str
    description: str
    speed: float  # bits/s; 0: no link when collected
    model: str | None
    mtu: int = 1500
    rss_queues: int = 8
    rss_base_core: int = 0
    rdma: bool = False
    vmq: bool = True
    rsc: bool = True
    notes: list[str] = field(default_factory=list)


@dataclass
class _Team:
    name: str
    kind: str
    members: list[str]
    interfaces: list[str]  # its team interfaces' adapter names (LBFO)
    standby: str | None = None
    mode: str = "switch_independent"
    load_balancing: str = "dynamic"
    address_hash: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class _VSwitch:
    name: str
    uplink: str
    notes: list[str] = field(default_factory=list)


@dataclass
class _Vm:
    name: str
    host: str
    vcpus: int
    memory: int
    vswitch: str | None
    notes: list[str] = field(default_factory=list)


@dataclass
class _Host:
    name: str
    file: str
    header: str
    cpu: dict[str, object] | None = None
    cpu_note: str = ""
    power_plan: str = "balanced"
    power_note: str = ""
    memory_note: str = ""
    nics: list[_Nic] = field(default_factory=list)
    teams: list[_Team] = field(default_factory=list)
    vswitches: list[_VSwitch] = field(default_factory=list)
    live_migration: dict[str, object] = field(default_factory=dict)
    lm_notes: list[str] = field(default_factory=list)
    vms: list[_Vm] = field(default_factory=list)


class _Notes:
    """The assumptions of one import, in the order they were made."""

    def __init__(self) -> None:
        self._items: list[tuple[str, str]] = []

    def add(self, host: str, text: str) -> str:
        self._items.append((host, text))
        return f"ASSUMED: {text}"

    def sorted(self) -> list[str]:
        """By host (as hosts are sorted), the fabric's last; in the order made within each."""
        ordered = sorted(self._items, key=lambda item: (item[0] == "fabric", _natural(item[0])))
        return [f"{host}: {text}" for host, text in ordered]


def _natural(text: str) -> tuple[tuple[tuple[int, int | str], ...], str]:
    """NIC2 before NIC10; case-insensitive, ties broken by the exact text (kept apart from the parts, so that
    two names with different numbers of parts still compare)."""
    parts = re.split(r"(\d+)", text.casefold())
    return tuple((0, int(p)) if p.isdecimal() else (1, p) for p in parts), text


def _clean_name(name: str) -> str:
    """A Windows name as an hvnet name: '/' separates host/nic in hvnet, so it becomes '-'."""
    return name.replace("/", "-").strip()


_VIRTUAL_DESCRIPTIONS = (
    "hyper-v virtual ethernet adapter",
    "microsoft network adapter multiplexor driver",
    "microsoft kernel debug network adapter",
    "wan miniport",
    "microsoft wi-fi direct virtual adapter",
)

_POWER_PLANS = {
    "381b4222-f694-41f0-9685-ff5bb260df2e": ("balanced", "Balanced"),
    "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c": ("high_performance", "High performance"),
    "a1841308-3541-4fab-bc81-f71556f20b4a": ("power_saver", "Power saver"),
    "e9a42b02-d5df-448d-aa00-03f14749eb61": ("high_performance", "Ultimate Performance"),
}
_POWER_PLAN_NAMES = {
    "balanced": "balanced",
    "high performance": "high_performance",
    "power saver": "power_saver",
    "ultimate performance": "high_performance",
}
_GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

_TEAMING_MODES = {"Static": "static", "SwitchIndependent": "switch_independent", "Lacp": "lacp"}
_ALGORITHMS = {
    "TransportPorts": ("address_hash", "transport_ports"),
    "IPAddresses": ("address_hash", "ip_addresses"),
    "MacAddresses": ("address_hash", "mac_addresses"),
    "HyperVPort": ("hyperv_port", None),
    "Dynamic": ("dynamic", None),
}
_MIGRATION_OPTIONS = {"TCPIP": "tcp_ip", "Compression": "compression", "SMB": "smb"}
_RUNNING = {
    "Running",
    "Paused",
    "Starting",
    "Reset",
    "Pausing",
    "Resuming",
    "Stopping",
    "Saving",
    "FastSaving",
    "RunningCritical",
    "PausedCritical",
    "StartingCritical",
    "ResetCritical",
    "PausingCritical",
    "ResumingCritical",
    "StoppingCritical",
    "SavingCritical",
    "FastSavingCritical",
    "Other",
}


# --- one dump -> one host ------------------------------------------------------------------


def _section_error(root: Node, section: str) -> str:
    """Why a section is null, as collect.ps1 recorded it (or that it is absent)."""
    message = root.get("Errors").get(section).value
    if isinstance(message, str) and message.strip():
        return f"{section} is null ({message.strip().splitlines()[0]})"
    return f"{section} is missing"


def _by_name(nodes: Iterable[Node], key: str = "Name") -> dict[str, Node]:
    found: dict[str, Node] = {}
    for node in nodes:
        name = node.get(key).text()
        if name is not None:
            found.setdefault(name.casefold(), node)
    return found


def _speed_of(adapter: Node) -> float:
    """Bits per second: the adapter's numeric link speed where collect.ps1 recorded it, else its LinkSpeed text."""
    numbers = [n for key in ("TransmitLinkSpeed", "ReceiveLinkSpeed") if (n := adapter.get(key).number()) is not None]
    if numbers and max(numbers) > 0:
        return max(numbers)
    speed = parse_link_speed(adapter.get("LinkSpeed"))
    if speed is None:
        return max(numbers) if numbers else 0.0
    return speed


def _mtu_of(entry: Node | None, adapter: Node) -> tuple[int | None, str]:
    """The IP MTU from *JumboPacket (the Ethernet frame: 9014 -> 9000, 1514 -> 1500), and a note."""
    if entry is None:
        size = adapter.get("MtuSize").integer()
        return (size, "") if size else (None, "")
    value = entry.get("RegistryValue")
    frame: int | None = None
    for item in value.items():
        text = item.text()
        if text is not None and re.fullmatch(r"\d+", text):
            frame = int(text)
            break
    if frame is None:
        display = entry.get("DisplayValue").text()
        digits = re.search(r"\d+", (display or "").replace(".", "").replace(",", ""))
        if digits:
            frame = int(digits.group())
        elif display is not None:
            frame = 1514  # "Disabled" (in any language): standard frames
    if frame is None:
        return None, ""
    if frame <= 1514:
        return 1500, ""
    mtu = frame - 14
    if mtu > 9216:
        return 9216, f"Jumbo Packet {frame} is more than hvnet models (an IP MTU of 9216 at most): mtu 9216"
    if mtu < 576:
        return 576, ""
    return mtu, ""


def _import_host(root: Node, notes: _Notes) -> _Host:
    header = root.get("Header")
    computer = header.get("ComputerName")
    raw_name = computer.text()
    if raw_name is None:
        raise computer.error("missing; the dump does not say which host it is from")
    name = _clean_name(raw_name)
    collected = header.get("CollectedAt").text() or "an unknown time"
    script = header.get("ScriptVersion").text() or "?"
    host = _Host(name, root.file, f"{name}, from {Path(root.file).name} (collected {collected}, collect.ps1 {script})")

    threads = _import_cpu(root, host, notes)
    _import_power_plan(root, host, notes)

    adapters_node = root.get("NetAdapter")
    if adapters_node.missing:
        raise adapters_node.error(f"the dump has no network adapters: {_section_error(root, 'NetAdapter')}")
    adapters = adapters_node.objects()
    for adapter in adapters:
        if adapter.get("Name").text() is None:
            raise adapter.get("Name").error("missing; every network adapter has a name")

    lbfo = root.get("NetLbfoTeam").objects()
    team_interfaces: dict[str, str] = {}  # adapter name (casefold) -> team name
    for team in lbfo:
        team_name = team.get("Name").text()
        if team_name is None:
            raise team.get("Name").error("missing; every team has a name")
        for interface in team.get("TeamNics").texts() or [team_name]:
            team_interfaces[interface.casefold()] = _clean_name(team_name)

    by_description: dict[str, tuple[str, bool]] = {}  # description -> (adapter name, physical)
    physical: list[Node] = []
    skipped: dict[str, str] = {}
    for adapter in adapters:
        adapter_name = adapter.get("Name").text() or ""
        description = adapter.get("InterfaceDescription").text() or ""
        is_virtual = (
            adapter.get("Virtual").flag() is True
            or adapter.get("HardwareInterface").flag() is False
            or description.casefold().startswith(_VIRTUAL_DESCRIPTIONS)
            or adapter_name.casefold() in team_interfaces
            or adapter_name.casefold().startswith("vethernet (")
        )
        if description:
            by_description.setdefault(description.casefold(), (adapter_name, not is_virtual))
        if is_virtual:
            continue
        status = adapter.get("Status").text() or "Up"
        if status.casefold() in ("disabled", "not present"):
            skipped[adapter_name.casefold()] = f"is {status}"
            continue
        physical.append(adapter)

    nics: dict[str, _Nic] = {}
    for adapter in physical:
        adapter_name = adapter.get("Name").text() or ""
        description = adapter.get("InterfaceDescription").text() or ""
        model = adapter.get("DriverDescription").text() or re.sub(r"\s*#\d+$", "", description) or None
        nics[adapter_name.casefold()] = _Nic(_clean_name(adapter_name), description, _speed_of(adapter), model)

    _import_offloads(root, host.name, nics, adapters, threads, notes)
    teams = _import_lbfo(root, host.name, lbfo, nics, notes)
    vswitches, set_teams = _import_vswitches(
        root, host.name, nics, teams, team_interfaces, by_description, skipped, notes
    )
    teams += set_teams
    _fill_speeds(host.name, nics, teams, vswitches, notes)

    host.nics = sorted(nics.values(), key=lambda n: _natural(n.name))
    host.teams = sorted(teams, key=lambda t: _natural(t.name))
    host.vswitches = sorted(vswitches, key=lambda v: _natural(v.name))
    if not host.nics:
        raise adapters_node.error(
            "the dump lists no physical network adapter that is enabled; hvnet needs at least one per host"
        )
    for key, why in sorted(skipped.items()):
        notes.add(host.name, f"adapter {key} {why} and is left out")

    _import_live_migration(root, host, nics, teams, vswitches, team_interfaces, notes)
    _import_vms(root, host, notes)
    capacity = root.get("VMHost").object().get("MemoryCapacity").integer()
    if capacity:
        host.memory_note = (
            f"memory: the host has {format_bytes(capacity)} of RAM (Get-VMHost MemoryCapacity); give what its VMs "
            "may use (the RAM less what the host keeps) to have drains and migrations check that VMs fit"
        )
    return host


def _import_cpu(root: Node, host: _Host, notes: _Notes) -> int:
    """Sockets, cores and clock from Win32_Processor (one object per socket); returns the
    logical processors per core (2 with Hyper-Threading), which RSS's processor numbers count."""
    processors = root.get("Processor").objects()
    if not processors:
        host.cpu_note = notes.add(
            host.name, f"no processor information ({_section_error(root, 'Processor')}): hvnet's default cpu"
        )
        return 2
    cores = [p.get("NumberOfCores").integer() for p in processors]
    logical = [p.get("NumberOfLogicalProcessors").integer() for p in processors]
    clocks = [p.get("MaxClockSpeed").number() for p in processors]
    cpu: dict[str, object] = {"sockets": min(len(processors), 16)}
    known_cores = [c for c in cores if c]
    if known_cores:
        cpu["cores_per_socket"] = min(max(known_cores), 512)
    known_clocks = [c for c in clocks if c]
    if known_clocks:
        cpu["ghz"] = round(min(max(known_clocks) / 1000, 10.0), 3)
    threads = 1
    if known_cores and all(logical):
        total_logical = sum(n for n in logical if n)
        threads = max(1, total_logical // sum(known_cores))
        cpu["smt"] = threads > 1
    host.cpu = cpu
    name = processors[0].get("Name").text()
    host.cpu_note = f"Win32_Processor: {len(processors)} x {' '.join(name.split()) if name else 'processor'}"
    return threads


def _import_power_plan(root: Node, host: _Host, notes: _Notes) -> None:
    plan = root.get("PowerPlan").object()
    if plan.missing:
        host.power_note = notes.add(
            host.name, f"no power plan ({_section_error(root, 'PowerPlan')}): balanced, Windows' default"
        )
        return
    texts = [plan.get(key).text() or "" for key in ("InstanceID", "ActiveScheme", "ElementName")]
    for text in texts:
        for guid in _GUID.findall(text):
            known = _POWER_PLANS.get(guid.lower())
            if known:
                host.power_plan = known[0]
                host.power_note = f"power plan {known[1]} ({guid.lower()})"
                return
    element = plan.get("ElementName").text()
    scheme = re.search(r"\(([^()]*)\)\s*\*?\s*$", plan.get("ActiveScheme").text() or "")
    for label in (element, scheme.group(1) if scheme else None):
        if label and label.strip().casefold() in _POWER_PLAN_NAMES:
            host.power_plan = _POWER_PLAN_NAMES[label.strip().casefold()]
            host.power_note = f"power plan {label.strip()}"
            return
    shown = element or (scheme.group(1) if scheme else None) or next((t for t in texts if t), "?")
    host.power_note = notes.add(
        host.name,
        f"power plan {shown!r} is none of Windows' own (Balanced, High performance, Power saver): balanced; "
        "set power_plan to the one it was copied from",
    )


def _import_offloads(
    root: Node, host: str, nics: dict[str, _Nic], adapters: list[Node], threads: int, notes: _Notes
) -> None:
    adapter_by_name = _by_name(adapters)
    jumbo_node = root.get("NetAdapterJumboPacket")
    jumbo = _by_name(jumbo_node.objects())
    rss_node, vmq_node = root.get("NetAdapterRss"), root.get("NetAdapterVmq")
    rdma_node, rsc_node = root.get("NetAdapterRdma"), root.get("NetAdapterRsc")
    rss, vmq = _by_name(rss_node.objects()), _by_name(vmq_node.objects())
    rdma, rsc = _by_name(rdma_node.objects()), _by_name(rsc_node.objects())
    if jumbo_node.missing:
        notes.add(
            host,
            f"no Jumbo Packet settings ({_section_error(root, 'NetAdapterJumboPacket')}): each NIC's MtuSize, else "
            "mtu 1500",
        )
    if rss_node.missing:
        notes.add(
            host, f"no RSS settings ({_section_error(root, 'NetAdapterRss')}): hvnet's defaults, 8 queues from core 0"
        )
    if vmq_node.missing:
        notes.add(host, f"no VMQ settings ({_section_error(root, 'NetAdapterVmq')}): VMQ on (Windows' default)")
    if rdma_node.missing:
        notes.add(host, f"no RDMA settings ({_section_error(root, 'NetAdapterRdma')}): RDMA off")
    if rsc_node.missing:
        notes.add(host, f"no RSC settings ({_section_error(root, 'NetAdapterRsc')}): RSC on (Windows' default)")
    for key, nic in nics.items():
        mtu, note = _mtu_of(jumbo.get(key), adapter_by_name[key])
        if mtu is not None:
            nic.mtu = mtu
        if note:
            nic.notes.append(notes.add(host, f"{nic.name}: {note}"))
        if not rss_node.missing:
            entry = rss.get(key)
            if entry is None or entry.get("Enabled").flag() is False:
                nic.rss_queues = 1
            else:
                counts = [
                    n
                    for k in ("NumberOfReceiveQueues", "MaxProcessors")
                    if (n := entry.get(k).integer()) is not None and n > 0
                ]
                if counts:
                    nic.rss_queues = max(1, min(*counts, 64))
                base = entry.get("BaseProcessorNumber").integer()
                if base is not None:
                    nic.rss_base_core = max(0, min(base // threads, 8191))
        if not vmq_node.missing:
            entry = vmq.get(key)
            nic.vmq = entry is not None and entry.get("Enabled").flag() is True
        if not rdma_node.missing:
            entry = rdma.get(key)
            nic.rdma = entry is not None and entry.get("Enabled").flag() is True
        if not rsc_node.missing:
            entry = rsc.get(key)
            nic.rsc = entry is not None and entry.get("IPv4Enabled").flag() is True


def _import_lbfo(root: Node, host: str, lbfo: list[Node], nics: dict[str, _Nic], notes: _Notes) -> list[_Team]:
    members_node = root.get("NetLbfoTeamMember").objects()
    teams: list[_Team] = []
    for team in lbfo:
        team_name = team.get("Name").text() or ""
        listed = team.get("Members").texts()
        rows = [m for m in members_node if (m.get("Team").text() or "").casefold() == team_name.casefold()]
        if not listed:
            listed = [m.get("Name").text() or "" for m in rows]
        members = [nics[m.casefold()].name for m in listed if m.casefold() in nics]
        result = _Team(_clean_name(team_name), "lbfo", members, team.get("TeamNics").texts() or [team_name])
        for missing in (m for m in listed if m.casefold() not in nics):
            result.notes.append(
                notes.add(
                    host, f"team {team_name}: member {missing} is not an enabled physical adapter and is left out"
                )
            )
        for row in rows:
            if row.get("AdministrativeMode").enum("AdministrativeMode") == "Standby":
                member = (row.get("Name").text() or "").casefold()
                if member in nics:
                    result.standby = nics[member].name
        mode = team.get("TeamingMode").enum("TeamingMode")
        if mode is None:
            result.notes.append(notes.add(host, f"team {team_name}: no TeamingMode; switch independent"))
        else:
            result.mode = _TEAMING_MODES[mode]
        algorithm = team.get("LoadBalancingAlgorithm").enum("LoadBalancingAlgorithm")
        if algorithm is None:
            result.notes.append(
                notes.add(host, f"team {team_name}: no LoadBalancingAlgorithm; dynamic (LBFO's default)")
            )
        else:
            result.load_balancing, result.address_hash = _ALGORITHMS[algorithm]
        if not result.members:
            notes.add(host, f"team {team_name} has no enabled physical member and is left out")
            continue
        if result.standby is not None and len(result.members) < 2:
            result.standby = None
        teams.append(result)
    return teams


def _unique(name: str, taken: set[str]) -> str:
    candidate, k = name, 2
    while candidate.casefold() in taken:
        candidate, k = f"{name}{k}", k + 1
    taken.add(candidate.casefold())
    return candidate


def _import_vswitches(
    root: Node,
    host: str,
    nics: dict[str, _Nic],
    teams: list[_Team],
    team_interfaces: dict[str, str],
    by_description: dict[str, tuple[str, bool]],
    skipped: dict[str, str],
    notes: _Notes,
) -> tuple[list[_VSwitch], list[_Team]]:
    switches_node = root.get("VMSwitch")
    if switches_node.missing:
        notes.add(host, f"no virtual switches ({_section_error(root, 'VMSwitch')}): none imported")
        return [], []
    set_rows = _by_name(root.get("VMSwitchTeam").objects())
    taken = {n.casefold() for n in nics} | {t.name.casefold() for t in teams}
    vswitches: list[_VSwitch] = []
    set_teams: list[_Team] = []
    used_uplinks: set[str] = set()
    for switch in switches_node.objects():
        switch_name_raw = switch.get("Name").text()
        if switch_name_raw is None:
            raise switch.get("Name").error("missing; every virtual switch has a name")
        switch_name = _clean_name(switch_name_raw)
        kind = switch.get("SwitchType").enum("SwitchType")
        descriptions_node = switch.get("NetAdapterInterfaceDescriptions")
        descriptions = [(d, n) for n in descriptions_node.items() if (d := n.text()) is not None]
        if not descriptions:
            single = switch.get("NetAdapterInterfaceDescription")
            if single.text() is not None:
                descriptions = [(single.text() or "", single)]
        if kind is None:
            kind = "External" if descriptions else "Internal"
        if kind != "External" or not descriptions:
            notes.add(host, f"virtual switch {switch_name_raw} is {kind.lower()} (no physical uplink) and is left out")
            continue
        embedded = switch.get("EmbeddedTeamingEnabled").flag() is True or len(descriptions) > 1
        set_row = set_rows.get(switch_name_raw.casefold())
        if embedded and set_row is not None:
            listed = [
                (d, n) for n in set_row.get("NetAdapterInterfaceDescription").items() if (d := n.text()) is not None
            ]
            descriptions = listed or descriptions
        uplinks: list[str] = []
        for description, node in descriptions:
            found = by_description.get(description.casefold())
            if found is None:
                raise node.error(f"{description!r} is the InterfaceDescription of no adapter in NetAdapter")
            adapter, physical = found
            if physical and adapter.casefold() in nics:
                uplinks.append(nics[adapter.casefold()].name)
            elif not physical and adapter.casefold() in team_interfaces and not embedded:
                uplinks.append(team_interfaces[adapter.casefold()])
            elif adapter.casefold() in skipped:
                notes.add(host, f"virtual switch {switch_name_raw}: uplink {adapter} {skipped[adapter.casefold()]}")
            else:
                raise node.error(
                    f"{description!r} ({adapter}) is neither a physical adapter nor an LBFO team interface"
                )
        if not uplinks:
            notes.add(host, f"virtual switch {switch_name_raw} has no enabled uplink and is left out")
            continue
        if embedded:
            team = _Team(_unique(f"{switch_name}-set", taken), "set", uplinks, [])
            if set_row is None:
                team.load_balancing = "hyperv_port"
                team.notes.append(
                    notes.add(
                        host,
                        f"SET switch {switch_name_raw}: no Get-VMSwitchTeam row; Hyper-V port (the default from "
                        "Windows Server 2019)",
                    )
                )
            else:
                algorithm = set_row.get("LoadBalancingAlgorithm").enum("VMSwitchLoadBalancingAlgorithm")
                team.load_balancing = "dynamic" if algorithm == "Dynamic" else "hyperv_port"
                if algorithm is None:
                    team.notes.append(
                        notes.add(host, f"SET switch {switch_name_raw}: no LoadBalancingAlgorithm; Hyper-V port")
                    )
                set_row.get("TeamingMode").enum("VMSwitchTeamingMode")
            set_teams.append(team)
            uplink = team.name
        else:
            uplink = uplinks[0]
        if uplink.casefold() in used_uplinks:
            notes.add(host, f"virtual switch {switch_name_raw} shares its uplink {uplink} with another and is left out")
            continue
        used_uplinks.add(uplink.casefold())
        vswitches.append(_VSwitch(switch_name, uplink))
    return vswitches, set_teams


def _fill_speeds(
    host: str, nics: dict[str, _Nic], teams: list[_Team], vswitches: list[_VSwitch], notes: _Notes
) -> None:
    """A NIC without link when collected takes its team mates' speed; one alone is left out."""
    for key, nic in list(nics.items()):
        if nic.speed >= SLOWEST_LINK_BPS:
            nic.speed = min(nic.speed, FASTEST_LINK_BPS)
            continue
        team = next((t for t in teams if nic.name in t.members), None)
        mates = [n.speed for n in nics.values() if team and n.name in team.members and n.speed >= SLOWEST_LINK_BPS]
        if mates:
            nic.speed = max(mates)
            nic.notes.append(
                notes.add(
                    host, f"{nic.name} had no link when collected; {format_bitrate(nic.speed)} like its team mates"
                )
            )
            continue
        del nics[key]
        notes.add(host, f"adapter {nic.name} had no link when collected (speed unknown) and is left out")
        for team in teams:
            if nic.name in team.members:
                team.members.remove(nic.name)
                if team.standby == nic.name:
                    team.standby = None
    for team in [t for t in teams if not t.members]:
        teams.remove(team)
        notes.add(host, f"team {team.name} has no member with a link and is left out")
    names = {n.name for n in nics.values()} | {t.name for t in teams}
    for vswitch in [v for v in vswitches if v.uplink not in names]:
        vswitches.remove(vswitch)
        notes.add(host, f"virtual switch {vswitch.name} lost its uplink {vswitch.uplink} and is left out")


def _import_live_migration(
    root: Node,
    host: _Host,
    nics: dict[str, _Nic],
    teams: list[_Team],
    vswitches: list[_VSwitch],
    team_interfaces: dict[str, str],
    notes: _Notes,
) -> None:
    vmhost = root.get("VMHost").object()
    lm: dict[str, object] = {}
    if vmhost.missing:
        host.lm_notes.append(
            notes.add(
                host.name, f"no Hyper-V host settings ({_section_error(root, 'VMHost')}): live migration defaults"
            )
        )
    else:
        option = vmhost.get("VirtualMachineMigrationPerformanceOption").enum("VMMigrationPerformance")
        if option is not None:
            lm["option"] = _MIGRATION_OPTIONS[option]
        simultaneous = vmhost.get("MaximumVirtualMachineMigrations").integer()
        if simultaneous is not None:
            lm["simultaneous"] = max(1, min(simultaneous, 64))
        if vmhost.get("VirtualMachineMigrationEnabled").flag() is False:
            host.lm_notes.append(
                "incoming live migrations are disabled on this host (VirtualMachineMigrationEnabled: false)"
            )
        if vmhost.get("UseAnyNetworkForMigration").flag() is False:
            networks = _migration_networks(root, nics, teams, vswitches, team_interfaces)
            if networks:
                lm["networks"] = networks
            else:
                host.lm_notes.append(
                    notes.add(host.name, "live migration networks match no imported interface: all of them")
                )
    for limit in root.get("SmbBandwidthLimit").objects():
        if limit.get("Category").enum("BandwidthLimitCategory") == "LiveMigration":
            per_second = limit.get("BytesPerSecond").integer()
            if per_second:
                lm["smb_bandwidth_limit"] = format_bitrate(min(per_second * 8.0, FASTEST_LINK_BPS))
    host.live_migration = lm


def _migration_networks(
    root: Node, nics: dict[str, _Nic], teams: list[_Team], vswitches: list[_VSwitch], team_interfaces: dict[str, str]
) -> list[str]:
    """The interfaces live migration may use, by Get-VMMigrationNetwork's subnets (in priority order)."""
    rows = root.get("VMMigrationNetwork").objects()
    order = sorted(rows, key=lambda r: (r.get("Priority").integer() or 0, r.get("Subnet").text() or ""))
    host_vnics = {
        (row.get("Name").text() or "").casefold(): row.get("SwitchName").text() or ""
        for row in root.get("VMNetworkAdapterManagementOS").objects()
    }
    members = {m for t in teams for m in t.members}
    team_names = {t.name for t in teams}
    switch_names = {v.name.casefold(): v.name for v in vswitches}
    addresses = root.get("NetIPAddress").objects()
    found: list[str] = []
    for row in order:
        subnet = row.get("Subnet")
        try:
            network = ipaddress.ip_network(subnet.text() or "", strict=False)
        except ValueError:
            raise subnet.error(f"{subnet.value!r} is not a subnet (e.g. 10.0.1.0/24)") from None
        for address in addresses:
            try:
                ip = ipaddress.ip_address((address.get("IPAddress").text() or "").split("%")[0])
            except ValueError:
                continue
            if ip.version != network.version or ip not in network:
                continue
            alias = (address.get("InterfaceAlias").text() or "").casefold()
            name: str | None = None
            if alias in nics and nics[alias].name not in members:
                name = nics[alias].name
            elif alias in team_interfaces and team_interfaces[alias] in team_names:
                name = team_interfaces[alias]
            else:
                vnic = re.fullmatch(r"vethernet \((.*)\)", alias)
                switch = host_vnics.get(vnic.group(1), "") if vnic else ""
                name = switch_names.get(switch.casefold())
            if name is not None and name not in found:
                found.append(name)
    return found


def _import_vms(root: Node, host: _Host, notes: _Notes) -> None:
    adapters = root.get("VMNetworkAdapter").objects()
    switch_names = {v.name.casefold(): v.name for v in host.vswitches}
    stopped: list[str] = []
    for vm in root.get("VM").objects():
        raw = vm.get("Name").text()
        if raw is None:
            raise vm.get("Name").error("missing; every VM has a name")
        state = vm.get("State").enum("VMState")
        if state is not None and state not in _RUNNING:
            stopped.append(f"{raw} ({state})")
            continue
        memory = next(
            (m for key in ("MemoryAssigned", "MemoryStartup") if (m := vm.get(key).integer()) is not None and m > 0),
            None,
        )
        if memory is None:
            raise vm.get("MemoryStartup").error(
                "missing; a VM's memory (MemoryAssigned or MemoryStartup) is what a live migration copies"
            )
        vcpus = vm.get("ProcessorCount").integer()
        result = _Vm(_clean_name(raw), host.name, max(1, min(vcpus or 1, 240)), min(memory, 2**50), None)
        if vcpus is None:
            result.notes.append(notes.add(host.name, f"VM {raw}: no ProcessorCount; 1 vCPU"))
        own = sorted(
            (a for a in adapters if (a.get("VMName").text() or "").casefold() == raw.casefold()),
            key=lambda a: _natural(a.get("Name").text() or ""),
        )
        attached = [a for a in own if (a.get("SwitchName").text() or "").casefold() in switch_names]
        if attached:
            first = attached[0]
            result.vswitch = switch_names[(first.get("SwitchName").text() or "").casefold()]
            if len(attached) > 1:
                result.notes.append(f"{len(attached)} network adapters on imported switches; hvnet models the first")
            vrss = first.get("VrssEnabled").flag()
            if vrss is True:
                result.notes.append("vRSS on")
            elif vrss is False and result.vcpus >= 2:
                result.notes.append(
                    notes.add(
                        host.name,
                        f"VM {raw} has vRSS off, which hvnet cannot state: it spreads a 2+ vCPU VM's traffic on a 10 "
                        "Gbps VMQ NIC",
                    )
                )
            if first.get("VmqWeight").integer() == 0:
                result.notes.append(
                    notes.add(
                        host.name,
                        f"VM {raw} has VmqWeight 0 (no VMQ queue), which hvnet cannot state: it gives the VM a queue "
                        "on VMQ NICs",
                    )
                )
        elif own:
            result.notes.append("no network adapter on an imported (external) virtual switch")
        host.vms.append(result)
    if stopped:
        notes.add(host.name, f"VMs not running are left out (a live migration moves running VMs): {', '.join(stopped)}")
    if any(vm.vswitch is not None for vm in host.vms):
        notes.add(
            host.name,
            "a VM's MTU is set inside its guest and is not in the host's dump: each VM has mtu 1500 (Windows' "
            "default Jumbo Packet 1514); set vms[].mtu for guests with jumbo frames",
        )


# --- all hosts -> one scenario ------------------------------------------------------------------


def import_config(paths: Sequence[Path]) -> ImportedConfig:
    """The scenario the dumps in ``paths`` describe (one dump per host, written by collect.ps1).

    Raises ``InputError`` (one line: file, field path, value) for a file that is not a dump, a
    value that cannot be read, or two dumps of the same host.
    """
    if not paths:
        raise InputError("<import>", None, "", "no configuration dump given; give one JSON file per host")
    notes = _Notes()
    hosts: list[_Host] = []
    seen: dict[str, str] = {}
    for path in paths:
        root = read_dump(Path(path))
        host = _import_host(root, notes)
        key = host.name.casefold()
        if key in seen:
            raise InputError(
                root.file,
                None,
                "Header.ComputerName",
                f"{host.name} is also the host of {seen[key]}; give one dump per host",
            )
        seen[key] = root.file
        hosts.append(host)
    hosts.sort(key=lambda h: _natural(h.name))
    _check_vm_names(hosts)
    switches = _assume_fabric(hosts, notes)
    text = _emit(hosts, switches, notes)
    problems: list[str] = []
    from hvnet.model import parse_scenario  # here: the model imports nothing of the importers

    try:
        parse_scenario(text, "imported.yaml")
    except ScenarioError as error:
        problems = [str(p) for p in error.problems]
    return ImportedConfig(text, notes.sorted(), problems)


def _check_vm_names(hosts: list[_Host]) -> None:
    owners: dict[str, str] = {h.name.casefold(): f"a host ({h.file})" for h in hosts}
    for host in hosts:
        for vm in host.vms:
            key = vm.name.casefold()
            if key in owners:
                raise InputError(
                    host.file,
                    None,
                    "VM",
                    f"VM {vm.name} has the name of {owners[key]}; hvnet needs each VM and host named once",
                )
            owners[key] = f"a VM of {host.name} ({host.file})"
        host.vms.sort(key=lambda v: _natural(v.name))


@dataclass
class _Fabric:
    switches: list[dict[str, object]]
    cables: list[tuple[str, str, str | None]]
    comment: list[str]
    stack_note: str = ""


def _assume_fabric(hosts: list[_Host], notes: _Notes) -> _Fabric:
    """One switch per NIC position (tor1 for every host's first NIC, ...), joined to tor1."""
    taken = {h.name.casefold() for h in hosts} | {vm.name.casefold() for h in hosts for vm in h.vms}
    count = max(len(h.nics) for h in hosts)
    names: list[str] = []
    for k in range(1, count + 1):
        name = f"tor{k}"
        while name.casefold() in taken:
            name = f"{name}x"
        names.append(name)
    ports = max(48, len(hosts) + count - 1)
    cables: list[tuple[str, str, str | None]] = []
    per_switch: list[float] = [0.0] * count
    for index, host in enumerate(hosts):
        for position, nic in enumerate(host.nics):
            cables.append((f"{host.name}/{nic.name}", f"{names[position]}/{index + 1}", None))
            per_switch[position] += nic.speed
    for k in range(1, count):
        speed = min(per_switch[k], FASTEST_LINK_BPS)
        cables.append((f"{names[k]}/{ports}", f"{names[0]}/{ports - k + 1}", format_bitrate(speed)))
    switches: list[dict[str, object]] = [{"name": n, "ports": ports} for n in names]
    spanning = sorted(
        f"{h.name}/{t.name}"
        for h in hosts
        for t in h.teams
        if t.mode in ("static", "lacp") and len({[n.name for n in h.nics].index(m) for m in t.members}) > 1
    )
    fabric = _Fabric(switches, cables, [])
    if spanning:
        for switch in switches:
            switch["stack"] = "tor-stack"
        fabric.stack_note = notes.add(
            "fabric",
            f"the switches are one stack or MLAG pair (stack: tor-stack), as the switch-dependent teams "
            f"{', '.join(spanning)} need; Windows refuses such a team over switches that are not",
        )
    notes.add(
        "fabric",
        f"the dumps do not say where NICs are cabled: the n-th NIC of each host (by name) goes to switch torN "
        f"({', '.join(names)}), host k to port k",
    )
    notes.add(
        "fabric",
        "switch models, port speeds and backplanes are unknown: non-blocking, each port at its NIC's speed, MTU 9216",
    )
    if count > 1:
        notes.add(
            "fabric",
            f"each of {', '.join(names[1:])} has one link to {names[0]}, as fast as all the NICs on it together "
            "(non-blocking)",
        )
    return fabric


# --- YAML ----------------------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"}


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    text = str(value)
    if _PLAIN.match(text) and text.casefold() not in _RESERVED:
        return text
    if re.fullmatch(r"\d+(\.\d+)? ?[KMGT]?(bps|B|iB)", text):
        return text
    return json.dumps(text, ensure_ascii=False)


def _flow(fields: Iterable[tuple[str, object]]) -> str:
    return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in fields if v is not None) + "}"


def _comment(notes: Sequence[str]) -> str:
    return f"  # {'; '.join(notes)}" if notes else ""


def _emit(hosts: list[_Host], fabric: _Fabric, notes: _Notes) -> str:
    names = ", ".join(h.name for h in hosts)
    lines = [
        "# A scenario imported by `hvnet import config` from the configuration dumps of collect.ps1",
        f"# ({', '.join(Path(h.file).name for h in hosts)}). Every value comes from a cmdlet the dumps",
        '# recorded (docs/import.md, "Configuration"), except what is marked ASSUMED: the dumps cannot',
        "# tell those, so check them (the switches and cables at the end above all) and correct them.",
        f"name: {_scalar(f'Imported cluster: {names}')}",
        "description: "
        f"{_scalar('Imported from configuration dumps by hvnet import config; switches and cables assumed')}",
        "hosts:",
    ]
    for host in hosts:
        lines.append(f"  # {host.header}")
        lines.append(f"  - name: {_scalar(host.name)}")
        if host.cpu is not None:
            lines.append(f"    cpu: {_flow(host.cpu.items())}{_comment([host.cpu_note])}")
        elif host.cpu_note:
            lines.append(f"    # {host.cpu_note}")
        lines.append(f"    power_plan: {host.power_plan}{_comment([host.power_note] if host.power_note else [])}")
        if host.memory_note:
            lines.append(f"    # {host.memory_note}")
        lines.append("    # Get-NetAdapter (speed); mtu from *JumboPacket; Get-NetAdapterRss, -Vmq, -Rdma, -Rsc")
        lines.append("    nics:")
        for nic in host.nics:
            fields: list[tuple[str, object]] = [
                ("name", nic.name),
                ("speed", format_bitrate(nic.speed)),
                ("model", nic.model),
                ("mtu", nic.mtu),
                ("rss_queues", nic.rss_queues),
                ("rss_base_core", nic.rss_base_core),
                ("rdma", nic.rdma),
                ("vmq", nic.vmq),
                ("rsc", nic.rsc),
            ]
            lines.append(f"      - {_flow(fields)}{_comment(nic.notes)}")
        if host.teams:
            lines.append("    # Get-NetLbfoTeam (lbfo) and Get-VMSwitchTeam (set)")
            lines.append("    teams:")
            for team in host.teams:
                team_fields: list[tuple[str, object]] = [
                    ("name", team.name),
                    ("kind", team.kind),
                    ("members", team.members),
                ]
                team_fields += [("standby", team.standby), ("mode", team.mode), ("load_balancing", team.load_balancing)]
                team_fields += [("address_hash", team.address_hash)]
                lines.append(f"      - {_flow(team_fields)}{_comment(team.notes)}")
        if host.vswitches:
            lines.append("    # Get-VMSwitch: external switches and their uplink")
            lines.append("    vswitches:")
            for vswitch in host.vswitches:
                lines.append(
                    f"      - {_flow([('name', vswitch.name), ('uplink', vswitch.uplink)])}{_comment(vswitch.notes)}"
                )
        lm_fields = [
            (k, host.live_migration.get(k)) for k in ("option", "simultaneous", "networks", "smb_bandwidth_limit")
        ]
        lines.append(
            "    # Get-VMHost (option, simultaneous, migration networks), Get-SmbBandwidthLimit -Category LiveMigration"
        )
        lines.append(f"    live_migration: {_flow(lm_fields)}{_comment(host.lm_notes)}")
    lines.append("# ASSUMED: the switches and the cabling (no host knows them). Each NIC position has its own")
    lines.append("# switch: every host's first NIC (by name) on tor1, its second on tor2, ...; host k on port k.")
    lines.append("# Replace them with the real switches (port_speed, mtu, stack) and the real cabling.")
    if fabric.stack_note:
        lines.append(f"# {fabric.stack_note}")
    lines.append("switches:")
    for switch in fabric.switches:
        lines.append(f"  - {_flow(switch.items())}  # ASSUMED")
    lines.append("cables:")
    for a, b, speed in fabric.cables:
        lines.append(f"  - {_flow([('a', a), ('b', b), ('speed', speed)])}  # ASSUMED")
    vms = [vm for host in hosts for vm in host.vms]
    if vms:
        lines.append("# Get-VM (running VMs: ProcessorCount, MemoryAssigned or MemoryStartup) and Get-VMNetworkAdapter")
        lines.append("vms:")
        for vm in vms:
            vm_fields: list[tuple[str, object]] = [
                ("name", vm.name),
                ("host", vm.host),
                ("vcpus", vm.vcpus),
                ("memory", format_bytes(vm.memory)),
                ("vswitch", vm.vswitch),
            ]
            lines.append(f"  - {_flow(vm_fields)}{_comment(vm.notes)}")
    return "\n".join(lines) + "\n"
