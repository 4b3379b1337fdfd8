"""Configuration dumps -> one scenario (issue 13, "Configuration -> scenario").

``import_config(paths)`` reads the dumps that ``collect.ps1`` wrote, one per host, and writes the
scenario they describe as commented YAML: hosts with their NICs (speed, MTU, RSS, VMQ, RDMA, RSC),
LBFO and SET teams, external virtual switches, running VMs on their virtual switch, power plan, CPU
and live migration settings.

What no host can tell — which switch each NIC is cabled to, the switches themselves — is assumed the
simplest way and marked ``ASSUMED`` in the YAML and in ``ImportedConfig.assumptions`` (``fabric.py``).

The same dumps always give the same bytes: hosts, NICs, teams, switches and VMs are sorted by name
(PowerShell lists them in no promised order), and the files' order does not matter.

The steps, one module each::

    dump.py        a dump's values, each knowing its file and path (for one-line errors)
    processors.py  sockets, cores, clock; where each processor group starts
    host.py        power plan, live migration
    vnics.py       the host's own vNICs, and which adapter each one is
    adapters.py    which adapters are NICs; their speed, MTU and offloads
    teams.py       LBFO teams, external virtual switches and their SET teams
    vms.py         running VMs
    fabric.py      the assumed switches and cables
    record.py      the model's objects as built, with their notes
    writer.py      the one writer: model objects and comments as YAML

The written scenario is then read back by the public loader (``hvnet.model.parse_scenario``): that is
the check of the imported design, whose problems name their line in the YAML, as ``hvnet simulate``
would word them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hvnet.errors import InputError, ScenarioError
from hvnet.importers.config.adapters import fill_speeds, import_nics, read_adapters
from hvnet.importers.config.dump import Node, read_dump
from hvnet.importers.config.fabric import AssumedFabric, assume_fabric
from hvnet.importers.config.host import import_live_migration, import_power_plan
from hvnet.importers.config.names import clean_name, natural
from hvnet.importers.config.processors import import_cpu
from hvnet.importers.config.record import Assumptions, ImportedHost, Noted
from hvnet.importers.config.teams import import_lbfo_teams, import_vswitches
from hvnet.importers.config.vms import import_vms
from hvnet.importers.config.writer import Comment, scenario_yaml
from hvnet.model.scenario import Scenario
from hvnet.units import format_bytes

__all__ = ["ImportedConfig", "import_config"]

#: The order hosts, NICs, teams, switches and VMs are listed in (NIC2 before NIC10).
_natural = natural


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


def import_config(paths: Sequence[Path]) -> ImportedConfig:
    """The scenario the dumps in ``paths`` describe (one dump per host, written by collect.ps1).

    Raises ``InputError`` (one line: file, field path, value) for a file that is not a dump, a
    value that cannot be read, or two dumps of the same host.
    """
    if not paths:
        raise InputError("<import>", None, "", "no configuration dump given; give one JSON file per host")
    assumptions = Assumptions()
    hosts: list[ImportedHost] = []
    seen: dict[str, str] = {}
    for path in paths:
        root = read_dump(Path(path))
        host = _import_host(root, assumptions)
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
    fabric = assume_fabric(hosts, assumptions)
    text = scenario_yaml(_scenario(hosts, fabric), _comments(hosts, fabric))
    return ImportedConfig(text, assumptions.sorted(), _problems(text))


def _problems(text: str) -> list[str]:
    """What the public loader refuses in the written scenario, each with its line in the YAML."""
    from hvnet.model import parse_scenario  # here: the model imports nothing of the importers

    try:
        parse_scenario(text, "imported.yaml")
    except ScenarioError as error:
        return [str(p) for p in error.problems]
    return []


# --- one dump -> one host ------------------------------------------------------------------------


def _import_host(root: Node, assumptions: Assumptions) -> ImportedHost:
    name, origin = _identify(root)
    processors = import_cpu(root, name, assumptions)
    power_plan, power_note = import_power_plan(root, name, assumptions)
    adapters = read_adapters(root)
    nics = import_nics(root, name, adapters, processors, assumptions)
    teams = import_lbfo_teams(root, name, adapters.lbfo, nics, assumptions)
    vswitches, set_teams = import_vswitches(root, name, nics, teams, adapters, assumptions)
    teams += set_teams
    fill_speeds(name, nics, teams, vswitches, assumptions)
    if not nics:
        raise root.get("NetAdapter").error(
            "the dump lists no physical network adapter that is enabled; hvnet needs at least one per host"
        )
    for _, (adapter, why) in sorted(adapters.skipped.items()):
        assumptions.add(name, f"adapter {adapter} {why} and is left out")
    live_migration = import_live_migration(root, name, nics, teams, vswitches, adapters, assumptions)
    vswitches.sort(key=lambda v: _natural(v.item.name))
    vms = import_vms(root, name, vswitches, assumptions)
    return ImportedHost(
        name=name,
        file=root.file,
        origin=origin,
        cpu=processors.cpu,
        cpu_note=processors.note,
        power_plan=power_plan,
        power_note=power_note,
        memory_note=_memory_note(root),
        nics=sorted(nics.values(), key=lambda n: _natural(n.item.name)),
        teams=sorted(teams, key=lambda t: _natural(t.item.name)),
        vswitches=vswitches,
        live_migration=live_migration,
        vms=vms,
    )


def _identify(root: Node) -> tuple[str, str]:
    """The host's name (Header.ComputerName), and which dump it is from, collected when and by what."""
    header = root.get("Header")
    computer = header.get("ComputerName")
    raw_name = computer.text()
    if raw_name is None:
        raise computer.error("missing; the dump does not say which host it is from")
    name = clean_name(raw_name)
    collected = _collected_at(header.get("CollectedAt"))
    script = header.get("ScriptVersion").text() or "?"
    return name, f"{name}, from {Path(root.file).name} (collected {collected}, collect.ps1 {script})"


def _collected_at(node: Node) -> str:
    """When the dump was collected, as written; a date as Windows PowerShell 5.1 writes a DateTime (``/Date(ms)/``,
    alone or as the ``value`` beside its ``DateTime`` text) in UTC."""
    if isinstance(node.value, dict) and "value" in node.value:
        node = node.get("value")
    text = node.text()
    if text is None:
        return "an unknown time"
    date = re.fullmatch(r"/Date\((-?\d{1,15})(?:[+-]\d{4})?\)/", text)
    if date is None:
        return text
    try:
        when = datetime.fromtimestamp(int(date.group(1)) / 1000, tz=UTC)
    except (ValueError, OverflowError, OSError):  # before year 1 or past 9999: kept as written
        return text
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _memory_note(root: Node) -> str:
    """The host's RAM, which is not what its VMs may use: said, not set."""
    capacity = root.get("VMHost").object().get("MemoryCapacity").integer()
    if not capacity:
        return ""
    return (
        f"memory: the host has {format_bytes(capacity)} of RAM (Get-VMHost MemoryCapacity); give what its VMs "
        "may use (the RAM less what the host keeps) to have drains and migrations check that VMs fit"
    )


def _check_vm_names(hosts: list[ImportedHost]) -> None:
    """Each VM and host named once (hvnet names both in one namespace); sorts each host's VMs by name."""
    owners: dict[str, str] = {h.name.casefold(): f"a host ({h.file})" for h in hosts}
    for host in hosts:
        for vm in host.vms:
            key = vm.item.name.casefold()
            if key in owners:
                raise InputError(
                    host.file,
                    None,
                    "VM",
                    f"VM {vm.item.name} has the name of {owners[key]}; hvnet needs each VM and host named once",
                )
            owners[key] = f"a VM of {host.name} ({host.file})"
        host.vms.sort(key=lambda v: _natural(v.item.name))


# --- all hosts -> one scenario, and its comments ---------------------------------------------------

#: Where each list of a host, and the VMs, came from: the comment above it.
_SOURCES = {
    "nics": "Get-NetAdapter (speed); mtu from *JumboPacket; Get-NetAdapterRss, -Vmq, -Rdma, -Rsc",
    "teams": "Get-NetLbfoTeam (lbfo) and Get-VMSwitchTeam (set)",
    "vswitches": "Get-VMSwitch: external switches and their uplink",
    "live_migration": (
        "Get-VMHost (option, simultaneous, migration networks), Get-SmbBandwidthLimit -Category LiveMigration"
    ),
    "vms": "Get-VM (running VMs: ProcessorCount, MemoryAssigned or MemoryStartup) and Get-VMNetworkAdapter",
}

_ASSUMED_FABRIC = (
    "ASSUMED: the switches and the cabling (no host knows them). Each NIC position has its own",
    "switch: every host's first NIC (by name) on tor1, its second on tor2, ...; host k on port k.",
    "Replace them with the real switches (port_speed, mtu, stack) and the real cabling.",
)


def _scenario(hosts: list[ImportedHost], fabric: AssumedFabric) -> Scenario:
    names = ", ".join(h.name for h in hosts)
    vms = tuple(vm.item for host in hosts for vm in host.vms)
    return Scenario.model_construct(
        name=f"Imported cluster: {names}",
        description="Imported from configuration dumps by hvnet import config; switches and cables assumed",
        hosts=tuple(host.host() for host in hosts),
        switches=tuple(switch.item for switch in fabric.switches),
        cables=tuple(cable.item for cable in fabric.cables),
        vms=vms,
    )


def _comments(hosts: list[ImportedHost], fabric: AssumedFabric) -> dict[str, Comment]:
    """The comments of the scenario's YAML, by path."""
    files = ", ".join(Path(h.file).name for h in hosts)
    comments = {
        "": Comment(
            above=(
                "A scenario imported by `hvnet import config` from the configuration dumps of collect.ps1",
                f"({files}). Every value comes from a cmdlet the dumps",
                'recorded (docs/import.md, "Configuration"), except what is marked ASSUMED: the dumps cannot',
                "tell those, so check them (the switches and cables at the end above all) and correct them.",
            )
        )
    }
    for index, host in enumerate(hosts):
        comments |= _host_comments(f"hosts[{index}]", host)
    comments["switches"] = Comment(above=_ASSUMED_FABRIC + _some(fabric.stack_note))
    comments |= _notes_after("switches", fabric.switches) | _notes_after("cables", fabric.cables)
    comments["vms"] = Comment(above=(_SOURCES["vms"],))
    comments |= _notes_after("vms", [vm for host in hosts for vm in host.vms])
    return comments


def _host_comments(path: str, host: ImportedHost) -> dict[str, Comment]:
    default_cpu = _some(host.cpu_note) if host.cpu is None else ()  # in the line cpu would have
    comments = {
        path: Comment(above=(host.origin,)),
        f"{path}.cpu": Comment(after=_some(host.cpu_note)),
        f"{path}.power_plan": Comment(above=default_cpu, after=_some(host.power_note)),
        f"{path}.nics": Comment(above=(*_some(host.memory_note), _SOURCES["nics"])),
        f"{path}.teams": Comment(above=(_SOURCES["teams"],)),
        f"{path}.vswitches": Comment(above=(_SOURCES["vswitches"],)),
        f"{path}.live_migration": Comment(above=(_SOURCES["live_migration"],), after=tuple(host.live_migration.notes)),
    }
    comments |= _notes_after(f"{path}.nics", host.nics)
    comments |= _notes_after(f"{path}.teams", host.teams)
    return comments | _notes_after(f"{path}.vswitches", host.vswitches)


def _notes_after(path: str, items: Sequence[Noted[Any]]) -> dict[str, Comment]:
    """Each item's notes, after it on its line."""
    return {f"{path}[{index}]": Comment(after=tuple(item.notes)) for index, item in enumerate(items) if item.notes}


def _some(note: str) -> tuple[str, ...]:
    return (note,) if note else ()
