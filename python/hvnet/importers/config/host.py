"""A host's own settings: its power plan and its live migration settings.

Each reads a section of the dump (Win32_PowerPlan or powercfg, Get-VMHost,
Get-VMMigrationNetwork, Get-NetIPAddress, Get-SmbBandwidthLimit) and gives the model's value and
the note that says where it came from; a missing section is an assumption, said so.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple

from hvnet.importers.config.adapters import Adapters
from hvnet.importers.config.dump import Node, section_error
from hvnet.importers.config.record import Assumptions, Noted, stated
from hvnet.importers.config.vnics import HostVnics
from hvnet.model.scenario import (
    FASTEST_LINK_BPS,
    LiveMigration,
    MigrationOption,
    Nic,
    PowerPlan,
    Team,
    VirtualSwitch,
)

__all__ = ["import_live_migration", "import_power_plan"]

#: Windows' own power plans by GUID (Ultimate Performance is high performance to hvnet), with their English names.
_POWER_PLANS = {
    "381b4222-f694-41f0-9685-ff5bb260df2e": (PowerPlan.BALANCED, "Balanced"),
    "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c": (PowerPlan.HIGH_PERFORMANCE, "High performance"),
    "a1841308-3541-4fab-bc81-f71556f20b4a": (PowerPlan.POWER_SAVER, "Power saver"),
    "e9a42b02-d5df-448d-aa00-03f14749eb61": (PowerPlan.HIGH_PERFORMANCE, "Ultimate Performance"),
}
_POWER_PLAN_NAMES = {
    "balanced": PowerPlan.BALANCED,
    "high performance": PowerPlan.HIGH_PERFORMANCE,
    "power saver": PowerPlan.POWER_SAVER,
    "ultimate performance": PowerPlan.HIGH_PERFORMANCE,
}
_GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

_MIGRATION_OPTIONS = {
    "TCPIP": MigrationOption.TCP_IP,
    "Compression": MigrationOption.COMPRESSION,
    "SMB": MigrationOption.SMB,
}


def import_power_plan(root: Node, host: str, assumptions: Assumptions) -> tuple[PowerPlan, str]:
    """The active power plan, by GUID (whatever the language of Windows), else by its English name; and a note."""
    plan = root.get("PowerPlan").object()
    if plan.missing:
        note = assumptions.add(host, f"no power plan ({section_error(root, 'PowerPlan')}): balanced, Windows' default")
        return PowerPlan.BALANCED, note
    texts = [plan.get(key).text() or "" for key in ("InstanceID", "ActiveScheme", "ElementName")]
    for text in texts:
        for guid in _GUID.findall(text):
            known = _POWER_PLANS.get(guid.lower())
            if known:
                return known[0], f"power plan {known[1]} ({guid.lower()})"
    element = plan.get("ElementName").text()
    scheme = re.search(r"\(([^()]*)\)\s*\*?\s*$", plan.get("ActiveScheme").text() or "")
    for label in (element, scheme.group(1) if scheme else None):
        if label and label.strip().casefold() in _POWER_PLAN_NAMES:
            return _POWER_PLAN_NAMES[label.strip().casefold()], f"power plan {label.strip()}"
    shown = element or (scheme.group(1) if scheme else None) or next((t for t in texts if t), "?")
    note = assumptions.add(
        host,
        f"power plan {shown!r} is none of Windows' own (Balanced, High performance, Power saver): balanced; "
        "set power_plan to the one it was copied from",
    )
    return PowerPlan.BALANCED, note


def import_live_migration(
    root: Node,
    host: str,
    nics: dict[str, Noted[Nic]],
    teams: list[Noted[Team]],
    vswitches: list[Noted[VirtualSwitch]],
    adapters: Adapters,
    assumptions: Assumptions,
) -> Noted[LiveMigration]:
    """Get-VMHost's option, simultaneous migrations and migration networks; Get-SmbBandwidthLimit's limit."""
    vmhost = root.get("VMHost").object()
    notes: list[str] = []
    option: MigrationOption | None = None
    simultaneous: int | None = None
    networks: tuple[str, ...] | None = None
    if vmhost.missing:
        notes.append(
            assumptions.add(
                host, f"no Hyper-V host settings ({section_error(root, 'VMHost')}): live migration defaults"
            )
        )
    else:
        name = vmhost.get("VirtualMachineMigrationPerformanceOption").enum("VMMigrationPerformance")
        option = None if name is None else _MIGRATION_OPTIONS[name]
        count = vmhost.get("MaximumVirtualMachineMigrations").integer()
        simultaneous = None if count is None else max(1, min(count, 64))
        if vmhost.get("VirtualMachineMigrationEnabled").flag() is False:
            notes.append("incoming live migrations are disabled on this host (VirtualMachineMigrationEnabled: false)")
        if vmhost.get("UseAnyNetworkForMigration").flag() is False:
            networks = tuple(_migration_networks(root, nics, teams, vswitches, adapters)) or None
            if networks is None:
                notes.append(assumptions.add(host, "live migration networks match no imported interface: all of them"))
    limit: float | None = None
    for row in root.get("SmbBandwidthLimit").objects():
        if row.get("Category").enum("BandwidthLimitCategory") == "LiveMigration":
            per_second = row.get("BytesPerSecond").integer()
            if per_second:
                limit = min(per_second * 8.0, FASTEST_LINK_BPS)
    migration = stated(
        LiveMigration, option=option, simultaneous=simultaneous, networks=networks, smb_bandwidth_limit=limit
    )
    return Noted(migration, notes)


def _migration_networks(
    root: Node,
    nics: dict[str, Noted[Nic]],
    teams: list[Noted[Team]],
    vswitches: list[Noted[VirtualSwitch]],
    adapters: Adapters,
) -> list[str]:
    """The interfaces live migration may use, by Get-VMMigrationNetwork's subnets (in priority order)."""
    rows = root.get("VMMigrationNetwork").objects()
    order = sorted(rows, key=lambda r: (r.get("Priority").integer() or 0, r.get("Subnet").text() or ""))
    interfaces = _Interfaces(
        nics={key: nic.item.name for key, nic in nics.items()},
        members={m for t in teams for m in t.item.members},
        team_names={t.item.name for t in teams},
        team_interfaces=adapters.team_interfaces,
        host_vnics=HostVnics.read(root, adapters),
        switch_names={v.item.name.casefold(): v.item.name for v in vswitches},
    )
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
            name = interfaces.named((address.get("InterfaceAlias").text() or "").casefold())
            if name is not None and name not in found:
                found.append(name)
    return found


class _Interfaces(NamedTuple):
    """What an IP address's interface alias can be: a NIC outside teams, an LBFO team's interface, or a host vNIC
    on an imported virtual switch (``vnics.py`` finds which, whatever the adapter is named)."""

    nics: dict[str, str]  # adapter name (casefold) -> NIC name
    members: set[str]
    team_names: set[str]
    team_interfaces: dict[str, str]  # adapter name (casefold) -> team name
    host_vnics: HostVnics
    switch_names: dict[str, str]  # virtual switch name (casefold) -> name

    def named(self, alias: str) -> str | None:
        """The NIC, team or virtual switch an interface alias (casefold) is, as a live migration network names it."""
        if alias in self.nics and self.nics[alias] not in self.members:
            return self.nics[alias]
        if alias in self.team_interfaces and self.team_interfaces[alias] in self.team_names:
            return self.team_interfaces[alias]
        switch = self.host_vnics.switch_of(alias)
        return None if switch is None else self.switch_names.get(switch.casefold())
