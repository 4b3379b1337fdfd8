"""Which host and NIC of a scenario a counter log's series was measured on.

A counter log names its computer (PDH-CSV's ``\\\\HV1\\...``, sar's host line) and an instance: an
adapter's description on Windows (``Mellanox ConnectX-3 Ethernet Adapter #2``), an interface name on
Linux (``eth0``). A series belongs to the scenario host of that name (case ignored), and to the NIC
named like the instance, else the one NIC whose `model` is the instance without Windows' ``#n``.
When neither tells, the answer says why, so that the user can name the NIC after the instance or
map it explicitly.
"""

from __future__ import annotations

import re

from hvnet.importers.measurement import Series
from hvnet.model import Host, Scenario

__all__ = ["RECEIVE", "SEND", "host_of", "nic_of", "why_not"]

#: The counters of bytes a NIC sent and received per second, as each log names them.
SEND = frozenset({"Network Interface\\Bytes Sent/sec", "Network Adapter\\Bytes Sent/sec", "tx_bytes_per_s"})
RECEIVE = frozenset({"Network Interface\\Bytes Received/sec", "Network Adapter\\Bytes Received/sec", "rx_bytes_per_s"})


def host_of(scenario: Scenario, series: Series, log_host: str | None) -> Host | str:
    """The scenario host that wrote `series` (its own host, else the log's), or why there is none."""
    name = series.host or log_host
    hosts = {h.name.casefold(): h for h in scenario.hosts}
    names = ", ".join(h.name for h in scenario.hosts)
    if name is None:
        return f"the log does not say which computer wrote it (hosts of the scenario: {names})"
    host = hosts.get(name.casefold())
    if host is None:
        return f"the log's computer {name} is not a host of the scenario (hosts: {names})"
    return host


def nic_of(host: Host, instance: str) -> str | None:
    """The name of `host`'s NIC that `instance` is; None when none is (`why_not` says why)."""
    for nic in host.nics:
        if nic.name.casefold() == instance.casefold():
            return nic.name
    model = re.sub(r"\s*#\d+$", "", instance).casefold()
    alike = [n.name for n in host.nics if n.model is not None and n.model.casefold() == model]
    return alike[0] if len(alike) == 1 else None


def why_not(host: Host, instance: str) -> str:
    """Why `instance` names no NIC of `host` (`nic_of` gave None)."""
    model = re.sub(r"\s*#\d+$", "", instance).casefold()
    alike = [n.name for n in host.nics if n.model is not None and n.model.casefold() == model]
    if alike:
        return (
            f"{len(alike)} NICs of {host.name} ({', '.join(alike)}) have the model "
            f"{instance.split(' #', maxsplit=1)[0]!r}; the scenario does not say which one Windows numbered "
            "this way (rename the NIC in the scenario after the instance)"
        )
    names = ", ".join(f"{n.name} ({n.model})" if n.model else n.name for n in host.nics)
    return (
        f"no NIC of {host.name} is named {instance!r} or has that model (NICs: {names}); "
        "a virtual adapter or team interface is not a NIC"
    )
