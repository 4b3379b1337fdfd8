"""A host's own virtual NICs (Get-VMNetworkAdapter -ManagementOS) and the Get-NetAdapter adapter each one is.

An IP address names its interface by the adapter's name (``InterfaceAlias``), and a host vNIC's adapter is
named in more than one way: Windows names it ``vEthernet (SMB1)`` after the vNIC ``SMB1``; Network ATC names
it as its vNIC, ``vSMB(intent#Ethernet 2)`` or ``vManagement(intent)``; an administrator may rename it. So an
adapter is matched to its vNIC by what it is, in this order:

1. the adapter's ``DeviceID`` is the vNIC's ``DeviceId`` (the same GUID; collect.ps1 records both from 1.1.0);
2. the adapter is named as the vNIC, or as Windows names a vNIC's adapter, ``vEthernet (NAME)``;
3. a virtual adapter (no physical one, no team interface) has the vNIC's MAC address (one vNIC of that MAC).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hvnet.importers.config.adapters import Adapters
from hvnet.importers.config.dump import Node, by_name

__all__ = ["HostVnics"]


@dataclass(frozen=True)
class HostVnics:
    """The host vNICs' virtual switches, by what can find them (keys compared ignoring case)."""

    by_device: dict[str, str]
    """DeviceId (without braces) -> the vNIC's SwitchName."""
    by_name: dict[str, str]
    """The adapter's name (the vNIC's, or ``vEthernet (name)``) -> SwitchName."""
    by_mac: dict[str, str]
    """MAC address (12 hex digits) -> SwitchName, for MACs that one vNIC has."""
    virtual: dict[str, Node]
    """Get-NetAdapter's virtual adapters (not a NIC, a left-out physical adapter or a team interface), by name."""

    @classmethod
    def read(cls, root: Node, adapters: Adapters) -> HostVnics:
        by_device: dict[str, str] = {}
        names: dict[str, str] = {}
        macs: dict[str, list[str]] = {}
        for row in root.get("VMNetworkAdapterManagementOS").objects():
            switch = row.get("SwitchName").text() or ""
            device = _device(row.get("DeviceId"))
            if device:
                by_device.setdefault(device, switch)
            name = row.get("Name").text()
            if name is not None:
                names.setdefault(name.casefold(), switch)
                names.setdefault(f"vethernet ({name})".casefold(), switch)
            mac = _mac(row.get("MacAddress"))
            if mac:
                macs.setdefault(mac, []).append(switch)
        physical = {(a.get("Name").text() or "").casefold() for a in adapters.physical} | set(adapters.skipped)
        virtual = {
            key: row
            for key, row in by_name(adapters.rows).items()
            if key not in physical and key not in adapters.team_interfaces
        }
        by_mac = {mac: switches[0] for mac, switches in macs.items() if len(switches) == 1}
        return cls(by_device, names, by_mac, virtual)

    def switch_of(self, alias: str) -> str | None:
        """The virtual switch of the host vNIC whose adapter is named ``alias`` (casefold), None if it is none."""
        row = self.virtual.get(alias)
        device = _device(row.get("DeviceID")) if row is not None else ""
        if device in self.by_device:
            return self.by_device[device]
        if alias in self.by_name:
            return self.by_name[alias]
        mac = _mac(row.get("MacAddress")) if row is not None else ""
        return self.by_mac.get(mac) if mac else None


def _device(node: Node) -> str:
    """A device GUID as Get-NetAdapter and Get-VMNetworkAdapter write it ("{6B1C...}"), without braces, casefold."""
    text = node.text() or ""
    return text.strip("{}").casefold()


def _mac(node: Node) -> str:
    """A MAC address as its 12 hex digits, casefold ("00-15-5D-05-00-02" and "00155D050002" alike); "" if it is
    not one."""
    digits = re.sub(r"[^0-9a-f]", "", (node.text() or "").casefold())
    return digits if len(digits) == 12 else ""
