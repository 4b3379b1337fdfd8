"""The choices of the scenario model: each setting a file writes as one of a few names.

Each is a ``str`` enum whose values are what a scenario file writes (``lacp``,
``high_performance``); its docstring and its members' say what each means.
"""

from __future__ import annotations

from enum import Enum

__all__ = [
    "AddressHash",
    "CState",
    "EventAction",
    "FailureKind",
    "Forwarding",
    "LacpTimer",
    "LoadBalancing",
    "MigrationOption",
    "Placement",
    "PowerPlan",
    "TeamKind",
    "TeamingMode",
]


class PowerPlan(str, Enum):
    """The Windows power plan of a host (it decides frequency scaling and core parking)."""

    BALANCED = "balanced"
    HIGH_PERFORMANCE = "high_performance"
    POWER_SAVER = "power_saver"


class CState(str, Enum):
    """The deepest idle state the firmware lets a core enter (the BIOS's C-state and C1E settings)."""

    C1 = "c1"
    C1E = "c1e"
    C3 = "c3"
    C6 = "c6"


class Forwarding(str, Enum):
    """How the physical switches forward between one another."""

    ROUTED = "routed"
    """Layer 3: every equal-cost path (ECMP), a routing protocol (BGP, OSPF) routes around failures."""
    RSTP = "rstp"
    """Layer 2, Rapid Spanning Tree (IEEE 802.1w): one tree of links; the rest blocked until a failure."""
    STP = "stp"
    """Layer 2, classic Spanning Tree (IEEE 802.1D): as RSTP, with its slower timers."""


class LacpTimer(str, Enum):
    """How often an LACP team's partner sends LACPDUs (IEEE 802.1AX: every 1 s or every 30 s)."""

    FAST = "fast"
    SLOW = "slow"


class TeamKind(str, Enum):
    """LBFO (the classic NIC team) or SET (Switch Embedded Teaming)."""

    LBFO = "lbfo"
    SET = "set"


class TeamingMode(str, Enum):
    """Whether the physical switch takes part in the team."""

    SWITCH_INDEPENDENT = "switch_independent"
    STATIC = "static"
    LACP = "lacp"


class LoadBalancing(str, Enum):
    """How a team chooses the member that sends a flow."""

    ADDRESS_HASH = "address_hash"
    HYPERV_PORT = "hyperv_port"
    DYNAMIC = "dynamic"


class AddressHash(str, Enum):
    """What the address hash covers (used when load balancing is address_hash)."""

    TRANSPORT_PORTS = "transport_ports"
    IP_ADDRESSES = "ip_addresses"
    MAC_ADDRESSES = "mac_addresses"


class EventAction(str, Enum):
    """What an event does to its target."""

    NIC_DOWN = "nic_down"
    NIC_UP = "nic_up"
    CABLE_DOWN = "cable_down"
    CABLE_UP = "cable_up"
    SWITCH_DOWN = "switch_down"
    SWITCH_UP = "switch_up"
    PORT_BLACKHOLE = "port_blackhole"
    PORT_RESTORE = "port_restore"
    MIGRATE = "migrate"
    DRAIN = "drain"
    ROLLING_UPDATE = "rolling_update"


class Placement(str, Enum):
    """Where a drain sends each VM of the drained host."""

    BALANCED = "balanced"
    """The host with the most free memory (hosts' memory less their VMs'); where hosts do not state their memory,
    the one with the least VM memory assigned."""
    ROUND_ROBIN = "round_robin"
    """The other hosts in turn, in file order."""


class MigrationOption(str, Enum):
    """How a host sends live migrations (its live migration performance option)."""

    TCP_IP = "tcp_ip"
    COMPRESSION = "compression"
    SMB = "smb"
    """SMB Direct where both hosts have an RDMA interface; else SMB over TCP (Multichannel), as Windows falls back."""
    SMB_DIRECT = "smb_direct"
    """SMB, and the design counts on SMB Direct: refused unless both hosts have an RDMA interface (where smb would
    fall back to TCP)."""


class FailureKind(str, Enum):
    """A kind of single failure `requirements.survive` explores (docs/check.md)."""

    NIC = "nic"
    """Each host NIC goes down (nic_down)."""
    CABLE = "cable"
    """Each cable is pulled (cable_down)."""
    SWITCH = "switch"
    """Each switch fails (switch_down)."""
    PORT = "port"
    """Each cabled switch port black-holes traffic, its link up (port_blackhole)."""
