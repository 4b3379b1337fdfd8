"""A host's network adapters: which are its NICs, and each NIC's speed, MTU and offloads.

Get-NetAdapter lists physical adapters beside virtual ones (host vNICs, LBFO team interfaces, the
kernel debugger's...); the NICs are the enabled physical ones. Their settings come from
Get-NetAdapterAdvancedProperty (``*JumboPacket``), Get-NetAdapterRss, -Vmq, -Rdma and -Rsc; a section
that is missing leaves Windows' default, said so once per host. A NIC without link when collected
takes its team mates' speed, or is left out (``fill_speeds``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hvnet.importers.config.dump import Node, by_name, parse_link_speed, section_error
from hvnet.importers.config.names import clean_name
from hvnet.importers.config.processors import ProcessorGroups, Processors
from hvnet.importers.config.record import Assumptions, Noted
from hvnet.model.scenario import FASTEST_LINK_BPS, SLOWEST_LINK_BPS, Nic, Team, VirtualSwitch
from hvnet.units import format_bitrate

__all__ = ["Adapters", "fill_speeds", "import_nics", "read_adapters"]

_VIRTUAL_DESCRIPTIONS = (
    "hyper-v virtual ethernet adapter",
    "microsoft network adapter multiplexor driver",
    "microsoft kernel debug network adapter",
    "wan miniport",
    "microsoft wi-fi direct virtual adapter",
)


@dataclass(frozen=True)
class Adapters:
    """A host's Get-NetAdapter rows, sorted out (adapter names and descriptions are keyed ignoring case)."""

    rows: list[Node]
    physical: list[Node]
    """The enabled physical adapters: the host's NICs."""
    skipped: dict[str, tuple[str, str]]
    """Physical adapters left out (disabled, not present): name (casefold) -> (name as written, why)."""
    by_description: dict[str, tuple[str, bool]]
    """InterfaceDescription -> (adapter name, physical), as a virtual switch names its uplink."""
    lbfo: list[Node]
    """The Get-NetLbfoTeam rows: each team's interfaces are adapters too."""
    team_interfaces: dict[str, str]
    """An LBFO team interface's adapter name -> its team's name."""


def read_adapters(root: Node) -> Adapters:
    """Get-NetAdapter's rows, told apart: physical and enabled, physical and left out, virtual."""
    adapters_node = root.get("NetAdapter")
    if adapters_node.missing:
        raise adapters_node.error(f"the dump has no network adapters: {section_error(root, 'NetAdapter')}")
    rows = adapters_node.objects()
    for adapter in rows:
        if adapter.get("Name").text() is None:
            raise adapter.get("Name").error("missing; every network adapter has a name")
    lbfo = root.get("NetLbfoTeam").objects()
    team_interfaces: dict[str, str] = {}
    for team in lbfo:
        team_name = team.get("Name").text()
        if team_name is None:
            raise team.get("Name").error("missing; every team has a name")
        for interface in team.get("TeamNics").texts() or [team_name]:
            team_interfaces[interface.casefold()] = clean_name(team_name)
    by_description: dict[str, tuple[str, bool]] = {}
    physical: list[Node] = []
    skipped: dict[str, tuple[str, str]] = {}
    for adapter in rows:
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
            skipped[adapter_name.casefold()] = (adapter_name, f"is {status}")
            continue
        physical.append(adapter)
    return Adapters(rows, physical, skipped, by_description, lbfo, team_interfaces)


@dataclass(frozen=True)
class _Offloads:
    """The settings sections of a dump, by adapter name; None: the section is missing (Windows' default)."""

    jumbo: dict[str, Node]
    rss: dict[str, Node] | None
    vmq: dict[str, Node] | None
    rdma: dict[str, Node] | None
    rsc: dict[str, Node] | None


def import_nics(
    root: Node, host: str, adapters: Adapters, processors: Processors, assumptions: Assumptions
) -> dict[str, Noted[Nic]]:
    """The host's NICs, by adapter name ignoring case, in Get-NetAdapter's order; a NIC without link when
    collected has speed 0 until ``fill_speeds``."""
    found: dict[str, tuple[str, float, str | None]] = {}  # name, speed, model
    for adapter in adapters.physical:
        adapter_name = adapter.get("Name").text() or ""
        description = adapter.get("InterfaceDescription").text() or ""
        model = adapter.get("DriverDescription").text() or re.sub(r"\s*#\d+$", "", description) or None
        found[adapter_name.casefold()] = (clean_name(adapter_name), _speed_of(adapter), model)
    rows = by_name(adapters.rows)
    offloads = _read_offloads(root, host, assumptions)
    nics: dict[str, Noted[Nic]] = {}
    for key, (name, speed, model) in found.items():
        notes: list[str] = []
        mtu, note = _mtu_of(offloads.jumbo.get(key), rows[key])
        if note:
            notes.append(assumptions.add(host, f"{name}: {note}"))
        rss_queues, rss_base_core, rss_note = _rss_of(offloads.rss, key, processors)
        if rss_note:
            notes.append(assumptions.add(host, f"{name}: {rss_note}"))
        vmq = _enabled(offloads.vmq, key, "Enabled", default=True)
        rdma = _enabled(offloads.rdma, key, "Enabled", default=False)
        rsc = _enabled(offloads.rsc, key, "IPv4Enabled", default=True)
        nic = Nic.model_construct(
            name=name,
            speed=speed,
            model=model,
            mtu=1500 if mtu is None else mtu,
            rss_queues=rss_queues,
            rss_base_core=rss_base_core,
            rdma=rdma,
            vmq=vmq,
            rsc=rsc,
        )
        nics[key] = Noted(nic, notes)
    return nics


def _read_offloads(root: Node, host: str, assumptions: Assumptions) -> _Offloads:
    """The settings sections, each missing one said once: Windows' default for every NIC."""
    jumbo_node = root.get("NetAdapterJumboPacket")
    jumbo = by_name(jumbo_node.objects())
    nodes = [root.get(section) for section in ("NetAdapterRss", "NetAdapterVmq", "NetAdapterRdma", "NetAdapterRsc")]
    rss, vmq, rdma, rsc = (None if node.missing else by_name(node.objects()) for node in nodes)
    if jumbo_node.missing:
        assumptions.add(
            host,
            f"no Jumbo Packet settings ({section_error(root, 'NetAdapterJumboPacket')}): each NIC's MtuSize, else "
            "mtu 1500",
        )
    if rss is None:
        assumptions.add(
            host, f"no RSS settings ({section_error(root, 'NetAdapterRss')}): hvnet's defaults, 8 queues from core 0"
        )
    if vmq is None:
        assumptions.add(host, f"no VMQ settings ({section_error(root, 'NetAdapterVmq')}): VMQ on (Windows' default)")
    if rdma is None:
        assumptions.add(host, f"no RDMA settings ({section_error(root, 'NetAdapterRdma')}): RDMA off")
    if rsc is None:
        assumptions.add(host, f"no RSC settings ({section_error(root, 'NetAdapterRsc')}): RSC on (Windows' default)")
    return _Offloads(jumbo, rss, vmq, rdma, rsc)


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
    frame = _frame_of(entry)
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


def _frame_of(entry: Node) -> int | None:
    """The Ethernet frame a *JumboPacket entry sets: its RegistryValue, else the number in its DisplayValue."""
    for item in entry.get("RegistryValue").items():
        text = item.text()
        if text is not None and re.fullmatch(r"\d+", text):
            return int(text)
    display = entry.get("DisplayValue").text()
    digits = re.search(r"\d+", (display or "").replace(".", "").replace(",", ""))
    if digits:
        return int(digits.group())
    if display is not None:
        return 1514  # "Disabled" (in any language): standard frames
    return None


def _rss_of(rss: dict[str, Node] | None, key: str, processors: Processors) -> tuple[int, int, str]:
    """RSS queues and first core, and what was assumed: the lower of NumberOfReceiveQueues and MaxProcessors, and
    the core of logical processor BaseProcessorGroup:BaseProcessorNumber (``processors.py``); one queue when RSS
    is off; hvnet's defaults (8 from core 0) without the section."""
    queues, base_core = 8, 0
    if rss is None:
        return queues, base_core, ""
    entry = rss.get(key)
    if entry is None or entry.get("Enabled").flag() is False:
        return 1, base_core, ""
    counts = [
        n for k in ("NumberOfReceiveQueues", "MaxProcessors") if (n := entry.get(k).integer()) is not None and n > 0
    ]
    if counts:
        queues = max(1, min(*counts, 64))
    base = entry.get("BaseProcessorNumber").integer()
    if base is None:
        return queues, base_core, ""
    first, note = _group_start(entry.get("BaseProcessorGroup"), processors.groups)
    base_core = max(0, min((first + base) // processors.threads_per_core, 8191))
    return queues, base_core, note


def _group_start(group_node: Node, groups: ProcessorGroups) -> tuple[int, str]:
    """The first logical processor of an RSS entry's BaseProcessorGroup, and what was assumed to find it."""
    group = group_node.integer()
    if group is None:
        if groups.single:
            return 0, ""
        return 0, "no BaseProcessorGroup on a host of several processor groups: RSS starts in group 0"
    if group < 0:
        raise group_node.error(f"{group} is not a processor group (0, 1, ...)")
    first, how = groups.start(group, group_node)
    if group == 0 or not how:
        return first, ""
    return first, (
        f"RSS starts in processor group {group}, and the dump does not say how large the groups are: assumed "
        f"{how}; group {group} starts at logical processor {first}"
    )


def _enabled(section: dict[str, Node] | None, key: str, flag: str, *, default: bool) -> bool:
    """Whether the adapter's entry in a settings section is enabled (no entry: off); ``default`` without the section."""
    if section is None:
        return default
    entry = section.get(key)
    return entry is not None and entry.get(flag).flag() is True


def fill_speeds(
    host: str,
    nics: dict[str, Noted[Nic]],
    teams: list[Noted[Team]],
    vswitches: list[Noted[VirtualSwitch]],
    assumptions: Assumptions,
) -> None:
    """A NIC without link when collected takes its team mates' speed; one alone is left out, and so are a team
    left without members and a virtual switch left without its uplink."""
    for key, nic in list(nics.items()):
        if nic.item.speed >= SLOWEST_LINK_BPS:
            nic.item = nic.item.model_copy(update={"speed": min(nic.item.speed, FASTEST_LINK_BPS)})
            continue
        name = nic.item.name
        team = next((t.item for t in teams if name in t.item.members), None)
        mates = [n.item.speed for n in nics.values() if team and n.item.name in team.members]
        mates = [speed for speed in mates if speed >= SLOWEST_LINK_BPS]
        if mates:
            nic.item = nic.item.model_copy(update={"speed": max(mates)})
            nic.notes.append(
                assumptions.add(
                    host, f"{name} had no link when collected; {format_bitrate(max(mates))} like its team mates"
                )
            )
            continue
        del nics[key]
        assumptions.add(host, f"adapter {name} had no link when collected (speed unknown) and is left out")
        for noted in teams:
            _drop_member(noted, name)
    for noted in [t for t in teams if not t.item.members]:
        teams.remove(noted)
        assumptions.add(host, f"team {noted.item.name} has no member with a link and is left out")
    names = {n.item.name for n in nics.values()} | {t.item.name for t in teams}
    for vswitch in [v for v in vswitches if v.item.uplink not in names]:
        vswitches.remove(vswitch)
        assumptions.add(
            host, f"virtual switch {vswitch.item.name} lost its uplink {vswitch.item.uplink} and is left out"
        )


def _drop_member(team: Noted[Team], name: str) -> None:
    """Take the NIC ``name`` out of a team (its first listing), and out of standby."""
    members = list(team.item.members)
    if name not in members:
        return
    members.remove(name)
    update: dict[str, object] = {"members": tuple(members)}
    if team.item.standby == name:
        update["standby"] = None
    team.item = team.item.model_copy(update=update)
