"""The scenario model: one cluster design and what happens to it.

A ``Scenario`` is what a scenario file says, validated and typed: hosts with
their NICs, teams and virtual switches; physical switches and the cables
between NICs and switch ports; VMs; traffic flows; and timed events (a NIC
or a cable goes down, a VM live-migrates). docs/scenario.md describes every field.

Quantities are stored in hvnet's internal units (bytes, bits per second,
seconds) and written with units in files (see ``hvnet.units``). Models are
immutable. This module checks each field on its own; whether names refer to
things that exist is checked by ``hvnet.model.checks`` when a scenario is
loaded with ``hvnet.model.loader``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    Strict,
    WithJsonSchema,
    model_validator,
)

from hvnet.errors import UnitError
from hvnet.model.refs import SEPARATOR, split_endpoint
from hvnet.units import BitRate, Bytes, Duration, parse_bytes

__all__ = [
    "VM",
    "AddressHash",
    "CState",
    "Cable",
    "Cpu",
    "Event",
    "EventAction",
    "Fabric",
    "FailureKind",
    "Flow",
    "Forwarding",
    "Host",
    "LacpTimer",
    "LiveMigration",
    "LoadBalancing",
    "MigrationOption",
    "Nic",
    "Placement",
    "PowerPlan",
    "Requirements",
    "Scenario",
    "Switch",
    "Team",
    "TeamKind",
    "TeamingMode",
    "Utilisation",
    "VirtualSwitch",
    "VmTeam",
    "scenario_json_schema",
    "split_endpoint",
]


#: Characters a name cannot hold: control (NUL, line feed...), format (zero-width, right-to-left
#: override, byte-order mark), line and paragraph separators, surrogates. Each is invisible or
#: breaks the line a message prints on, so two names that look the same would differ.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _hidden_character(text: str) -> str:
    """The first character of `text` that a name cannot hold, described ("" when none)."""
    for char in text:
        if unicodedata.category(char) in _HIDDEN_CATEGORIES:
            return f"U+{ord(char):04X} ({unicodedata.name(char, 'a control character').lower()})"
    return ""


def _check_name(name: str) -> str:
    if not name.strip():
        raise ValueError("a name cannot be empty")
    if SEPARATOR in name:
        raise ValueError(f"{name!r} contains '/'; names cannot contain '/' (it separates host/nic and switch/port)")
    if hidden := _hidden_character(name):
        raise ValueError(f"{name!r} contains {hidden}; a name is visible text on one line")
    return name


def _check_title(title: str) -> str:
    if not title.strip():
        raise ValueError("the scenario's name cannot be blank")
    if hidden := _hidden_character(title):
        raise ValueError(f"{title!r} contains {hidden}; the scenario's name is visible text on one line")
    return title


Name = Annotated[str, AfterValidator(_check_name), WithJsonSchema({"type": "string", "pattern": "^[^/]*\\S[^/]*$"})]
"""The name of a host, NIC, team, switch, VM...: not empty, no '/'."""


def _check_share(value: float) -> float:
    if not 0 <= value <= 1:  # NaN too
        raise ValueError(
            f"{value:g} is not a share from 0 to 1; it is the share of the VM's vCPUs the guest keeps busy "
            "(0.5: half of them, not 50)"
        )
    return value


#: A `host/nic` or `switch/port` reference (an event's target may also be a name), kept without the
#: spaces around it that YAML lets through: the checks (`checks/`) read it stripped, so does everything after.
Reference = Annotated[str, AfterValidator(str.strip)]

#: A fraction from 0 to 1, such as a VM's CPU load.
Share = Annotated[float, AfterValidator(_check_share), Field(json_schema_extra={"minimum": 0, "maximum": 1})]
#: The bounds of quantities, each the physics or the product's limits with room to spare
#: (docs/scenario.md, "Bounds"): a value outside is a typo, not a design.
FASTEST_LINK_BPS = 1.6e12  # 1.6 Tbps: the fastest Ethernet that ships (1.6 TbE); NICs from 1 Mbps
SLOWEST_LINK_BPS = 1e6
LARGEST_BYTES = 2**50  # 1 PiB: more than any host's memory or a single transfer
HORIZON_S = 8760 * 3600.0  # a year: times of events, starts and patches
#: A whole number, not a boolean or 2.0; a flag is true or false, not 0 or 1.
Whole = Annotated[int, Strict()]
Flag = Annotated[bool, Strict()]
LinkRate = Annotated[BitRate, Field(ge=SLOWEST_LINK_BPS, le=FASTEST_LINK_BPS)]
PositiveBitRate = Annotated[BitRate, Field(ge=SLOWEST_LINK_BPS, le=FASTEST_LINK_BPS)]
PositiveBytes = Annotated[Bytes, Field(gt=0, le=LARGEST_BYTES)]
Size = Annotated[Bytes, Field(le=LARGEST_BYTES)]
Time = Annotated[Duration, Field(le=HORIZON_S)]

_PERCENT = re.compile(r"^\s*(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*%\s*$")


def _parse_percent(value: object) -> float:
    """`70%` -> 0.7: a share of a link, written as a percentage above 0 and at most 100."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"expected a percentage such as 70%, got {value!r}")
    if not isinstance(value, str):
        raise ValueError(f"{value:g} has no '%'; write a share of the link as a percentage, e.g. 70% (not 0.7 or 70)")
    match = _PERCENT.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a percentage; write a number and '%', e.g. 70%")
    share = float(match["number"]) / 100
    if not 0 < share <= 1:
        raise ValueError(f"{value.strip()} is not a share of a link; write more than 0% and at most 100%")
    return share


def _format_percent(share: float) -> str:
    return f"{share * 100:.10g}%"


#: A share of a link's speed, written as a percentage ("70%"), stored as a fraction (0.7).
Percent = Annotated[
    float,
    BeforeValidator(_parse_percent),
    PlainSerializer(_format_percent, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*%\s*$",
            "description": "a percentage of a link's speed, more than 0% and at most 100%",
            "examples": ["70%", "92.5%"],
        }
    ),
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
    SMB_DIRECT = "smb_direct"
    """SMB, and the design counts on SMB Direct: refused where both hosts have no RDMA interface (smb would fall
    back)."""


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


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        serialize_by_alias=True,
    )


class Cpu(_Model):
    """The processors of a host."""

    sockets: Whole = Field(default=1, ge=1, le=16)
    """Processor sockets."""
    cores_per_socket: Whole = Field(default=8, ge=1, le=512)
    """Physical cores per socket."""
    ghz: float = Field(default=2.5, ge=0.1, le=10, strict=True, allow_inf_nan=False)
    """Nominal clock in GHz."""
    smt: Flag = True
    """Simultaneous multithreading (Hyper-Threading): two logical processors per core."""
    deepest_c_state: CState = CState.C6
    """The deepest idle state a core may enter: c6 as shipped; c1 with the BIOS's C-states and C1E disabled."""

    @property
    def cores(self) -> int:
        """Physical cores of the host."""
        return self.sockets * self.cores_per_socket


class Nic(_Model):
    """A physical network adapter (one port)."""

    name: Name
    """Unique within the host."""
    speed: LinkRate
    """Link speed, e.g. 10Gbps."""
    model: str | None = None
    """Maker and model, e.g. "Mellanox ConnectX-3"; null: not stated. SET compares it across members."""
    mtu: Whole = Field(default=1500, ge=576, le=9216)
    """IP MTU in bytes; Windows "Jumbo Packet 9014" is mtu 9000."""
    rss_queues: Whole = Field(default=8, ge=1, le=64)
    """Receive-side scaling queues."""
    rss_base_core: Whole = Field(default=0, ge=0, le=8191)
    """First physical core of its RSS processor set (Windows' default: 0, so NICs overlap)."""
    rdma: Flag = False
    """RDMA (RoCE/iWARP) enabled, as SMB Direct needs."""
    vmq: Flag = True
    """Virtual machine queues enabled."""
    dynamic_vmq: Flag = True
    """Dynamic VMQ: a VM's queue moves to a less loaded core when its core is busy (Windows' behaviour
    whenever VMQ is on, from Windows Server 2012). It matters only for VM queues: vmq on, a VM without vRSS."""
    rsc: Flag = True
    """Receive segment coalescing enabled (Windows' default); it works only while the NIC, or its
    LBFO team, is not a virtual switch's uplink (RSC in the vSwitch came with Windows Server 2019)."""


class Team(_Model):
    """NICs of one host teamed together (LBFO or SET)."""

    name: Name
    """Unique within the host, and distinct from its NIC names."""
    kind: TeamKind = TeamKind.LBFO
    members: tuple[Name, ...] = Field(min_length=1, json_schema_extra={"maxItems": 32})
    """NIC names of this host; a NIC is in at most one team. LBFO: 1-32, SET: 1-8 identical NICs."""
    standby: Name | None = None
    """A member kept idle until another member fails."""
    mode: TeamingMode = TeamingMode.SWITCH_INDEPENDENT
    load_balancing: LoadBalancing = LoadBalancing.DYNAMIC
    address_hash: AddressHash = AddressHash.TRANSPORT_PORTS
    """Used when load_balancing is address_hash."""
    lacp_timer: LacpTimer = LacpTimer.FAST
    """An LACP team's timer (Set-NetLbfoTeam -LacpTimer): fast, a silent member dropped after 3 s;
    slow, after 90 s. The switch's port-channel is assumed to run the same."""


class VirtualSwitch(_Model):
    """A Hyper-V virtual switch bound to a NIC or a team."""

    name: Name
    uplink: Name
    """A NIC or team of this host; each is the uplink of at most one virtual switch."""


class LiveMigration(_Model):
    """A host's live migration settings."""

    option: MigrationOption = MigrationOption.COMPRESSION
    """Performance option; compression is the Windows default since 2012 R2."""
    simultaneous: Whole = Field(default=2, ge=1, le=64)
    """Live migrations at the same time; more wait in a queue."""
    networks: tuple[Name, ...] | None = Field(default=None, min_length=1)
    """The interfaces live migration may use, in order of preference: NIC, team or virtual switch names
    of this host (a virtual switch means the host vNIC on it). Null: all its cabled NICs outside teams
    and its teams' interfaces, in file order. A migration uses the first one the destination also allows."""
    smb_bandwidth_limit: PositiveBitRate | None = None
    """The most that this host's SMB live migrations send, all together (Set-SmbBandwidthLimit
    -Category LiveMigration); null: no limit. Used with the smb option only."""


class Host(_Model):
    """A virtualization host."""

    name: Name
    """Unique among hosts, switches and VMs."""
    cpu: Cpu = Field(default_factory=Cpu)
    power_plan: PowerPlan = PowerPlan.BALANCED
    nics: tuple[Nic, ...] = Field(min_length=1)
    teams: tuple[Team, ...] = ()
    vswitches: tuple[VirtualSwitch, ...] = ()
    live_migration: LiveMigration = Field(default_factory=LiveMigration)
    memory: PositiveBytes | None = None
    """Memory the host can give its VMs, e.g. 384GiB (its RAM less what the host keeps); null: not limited.
    Drains and migrations only send a VM where it fits; balanced placement picks the most free memory."""

    def nic(self, name: str) -> Nic:
        """The NIC called ``name``; KeyError if there is none."""
        return _named(self.nics, name, f"NIC of host {self.name}")

    def team(self, name: str) -> Team:
        """The team called ``name``; KeyError if there is none."""
        return _named(self.teams, name, f"team of host {self.name}")

    def vswitch(self, name: str) -> VirtualSwitch:
        """The virtual switch called ``name``; KeyError if there is none."""
        return _named(self.vswitches, name, f"virtual switch of host {self.name}")


#: How long a switch takes to see a failure, by kind (docs/model.md, "Routing around failures").
Detection = Annotated[Duration, Field(ge=0, le=3600)]


class _Detection(_Model):
    """How a switch notices that a link to another switch is gone; null: the fabric's setting, then hvnet's
    default (docs/model.md, "Routing around failures")."""

    bfd: Flag | None = None
    """Whether BFD watches its links to other switches (null in the fabric: on): a link that stops forwarding is seen
    after bfd_interval × bfd_multiplier (without BFD, after the routing protocol's hold_time)."""
    bfd_interval: Annotated[Duration, Field(gt=0, le=60)] | None = None
    """BFD's transmit and receive interval (a session runs at the slower of its two ends')."""
    bfd_multiplier: Annotated[Whole, Field(ge=1, le=255)] | None = None
    """BFD packets missed before the session goes down."""
    hold_time: Annotated[Duration, Field(gt=0, le=65535)] | None = None
    """The routing protocol's hold time (BGP) or dead interval (OSPF): how long a silent neighbour
    takes to be declared down without BFD."""
    carrier_delay: Detection | None = None
    """How long a port waits after its link goes down before it reports it (link debounce)."""


class _SwitchPorts(_Model):
    """A physical switch: its own fields, before those of `_Detection` (so files and the schema list them first)."""

    name: Name
    """Unique among hosts, switches and VMs."""
    ports: Whole = Field(default=48, ge=1, le=4096)
    """Ports are numbered 1..ports."""
    stack: Name | None = None
    """Switches of one stack, MLAG, VLT or vPC pair share a stack name; null: standalone."""
    port_speed: LinkRate | None = None
    """Speed of every port; absent: each cable takes the speed of the NIC on it."""
    backplane: Annotated[BitRate, Field(ge=SLOWEST_LINK_BPS, le=1e15)] | None = None
    """Switching capacity; absent: non-blocking."""
    mtu: Whole = Field(default=9216, ge=576, le=9216)
    """Largest IP packet it forwards, in bytes; data-centre switches ship with jumbo frames up to 9216."""
    port_channel_hash: AddressHash = AddressHash.TRANSPORT_PORTS
    """What it hashes to pick the member of a static or LACP team it sends to (its port-channel load-balance
    setting)."""


class Switch(_Detection, _SwitchPorts):
    """A physical switch."""


class _Forwarding(_Model):
    """How the fabric forwards: the fields of `Fabric` listed before those of `_Detection`."""

    forwarding: Forwarding = Forwarding.ROUTED
    """routed (ECMP over every shortest path), rstp or stp (one spanning tree)."""
    convergence: Detection | None = None
    """After a failure or a repair is seen: until every switch forwards around it (routing updates
    and forwarding tables); null: hvnet's default."""
    root_bridge: Name | None = None
    """The spanning tree's root (rstp, stp); null: the first switch listed."""


class Fabric(_Detection, _Forwarding):
    """How the physical switches forward and route around a failure; each switch may override how it
    detects one (its own bfd, bfd_interval, bfd_multiplier, hold_time, carrier_delay)."""


class Cable(_Model):
    """A cable between two endpoints: "host/nic" or "switch/port-number"."""

    a: Reference
    b: Reference
    speed: PositiveBitRate | None = None
    """Absent: the lowest speed of the NICs and switch ports it joins."""


class VmTeam(_Model):
    """A team inside a VM: two vNICs, each on a different virtual switch of the VM's host
    (the vNICs allow teaming, so each shows its virtual switch's NIC losing link)."""

    members: tuple[Name, ...] = Field(json_schema_extra={"minItems": 2, "maxItems": 2})
    """Two different virtual switches of the VM's host, each bound to one NIC; the first is the primary."""
    mode: TeamingMode = TeamingMode.SWITCH_INDEPENDENT
    """Switch independent only."""
    load_balancing: LoadBalancing = LoadBalancing.ADDRESS_HASH
    """Address hash only."""
    address_hash: AddressHash = AddressHash.TRANSPORT_PORTS
    """Which addresses the hash reads."""


def _no_default(schema: dict[str, Any]) -> None:
    """Leave out a default that is filled in from another field (e.g. memory).

    The 0 such a field declares is never seen: ``VM._whole_memory_by_default``
    fills it in, and without a valid memory there is no VM.
    """
    schema.pop("default", None)


class VM(_Model):
    """A virtual machine."""

    name: Name
    """Unique among hosts, switches and VMs."""
    host: Name
    """The host the VM runs on."""
    vcpus: Whole = Field(default=1, ge=1, le=240)
    memory: PositiveBytes
    """Memory assigned to the VM, e.g. 55GiB; a live migration copies it."""
    populated: Size = Field(default=0, validate_default=False, json_schema_extra=_no_default)
    """The part of memory that is not zero pages; at most memory. Absent: all of memory."""
    dirty_rate: Annotated[BitRate, Field(le=FASTEST_LINK_BPS)] = 0.0
    """How fast the guest writes to its memory, e.g. 200MBps; 0bps: it writes nothing."""
    working_set: Size = Field(default=0, validate_default=False, json_schema_extra=_no_default)
    """The memory the guest writes to (dirtying saturates at it); at most memory. Absent: all of memory."""
    device_state: Size = 32 * 2**20
    """Device state copied during the blackout."""
    cpu_load: Share = 0.0
    """The share of its vCPUs the guest keeps busy, 0 (idle) to 1 (all busy): 0.5 on 4 vCPUs is 2 cores' worth of
    work."""
    vswitch: Name | None = None
    """A virtual switch of its host."""
    mtu: Whole = Field(default=1500, ge=576, le=9216)
    """IP MTU of its network adapter, set inside the guest: Windows' "Jumbo Packet" 1514 (the default) is
    mtu 1500, 9014 is mtu 9000. Its traffic uses the smallest MTU on the way (its own, the other end's, the NICs'
    and switches')."""
    team: VmTeam | None = None
    """A team inside the VM over two virtual switches of its host: its traffic goes through the team."""

    @model_validator(mode="before")
    @classmethod
    def _whole_memory_by_default(cls, data: Any) -> Any:
        """populated and working_set default to memory (when memory itself is valid)."""
        if isinstance(data, dict) and isinstance(data.get("memory"), str):
            try:
                if parse_bytes(data["memory"]) > LARGEST_BYTES:
                    return data  # pydantic reports memory once, not populated and working_set too
            except UnitError:
                return data
            data = {"populated": data["memory"], "working_set": data["memory"], **data}
        return data


class Flow(_Model):
    """A transfer of data between two hosts or VMs."""

    name: Name | None = None
    """Unique if given."""
    src: Name = Field(alias="from")
    """A host or VM name."""
    dst: Name = Field(alias="to")
    """A host or VM name, not the same as from."""
    size: PositiveBytes
    """How much data, e.g. 10GB."""
    start: Time = 0.0
    """When the transfer starts."""
    connections: Whole = Field(default=1, ge=1, le=64)
    """Parallel TCP connections."""


class Event(_Model):
    """Something that happens at a given time: a NIC, cable, switch or port
    fails or recovers, a VM migrates, a host is drained, the cluster is patched node by node."""

    at: Time
    action: EventAction
    target: Reference | None = None
    """nic_*: host/nic; cable_*: either end of a cable; switch_*: a switch name; port_*: switch/port;
    migrate: a VM; drain: a host. Required, except for rolling_update (which takes nodes)."""
    to: Name | None = None
    """migrate only (and required there): the host the VM moves to, not the one it runs on."""
    placement: Placement | None = None
    """drain and rolling_update only: where the drained VMs go, among the hosts they fit on. Absent: balanced."""
    nodes: tuple[Name, ...] | None = Field(default=None, min_length=1)
    """rolling_update only: the hosts to patch, in order. Absent: every host, in file order."""
    patch_time: Time | None = None
    """rolling_update only (and required there): how long a drained node is down for its patch and restart."""
    fail_back: Flag | None = None
    """rolling_update only: whether a patched node's VMs move back to it before the next node. Absent: true."""


class Utilisation(_Model):
    """The most a NIC member may carry of its link, per percentile of time, each direction alone."""

    p50: Percent | None = None
    """Median over the traffic profile."""
    p90: Percent | None = None
    p99: Percent | None = None
    max: Percent | None = None
    """The instantaneous peak."""

    @model_validator(mode="after")
    def _one_at_least(self) -> Utilisation:
        if self.limits() == {}:
            raise ValueError("give at least one percentile: p50, p90, p99 or max, e.g. {p99: 70%}")
        return self

    def limits(self) -> dict[str, float]:
        """The percentiles given, by name (`p99`, `max`), with their shares."""
        return {name: value for name in ("p50", "p90", "p99", "max") if (value := getattr(self, name)) is not None}


class Requirements(_Model):
    """What the design must achieve; `hvnet check` evaluates each (docs/check.md)."""

    maintenance_window: Time | None = None
    """A rolling update of every host, from its first drain to its last node's end, takes at most this."""
    max_drain: Time | None = None
    """Draining any one host (alone, from a clean start) takes at most this."""
    max_blackout: Annotated[Duration, Field(le=3600)] | None = None
    """No VM is paused longer than this in any migration of those drains and that rolling update."""
    max_utilisation: Utilisation | None = None
    """No NIC member sends or receives more than this share of its link over the traffic profile."""
    survive: tuple[FailureKind, ...] = ()
    """Kinds of single failure after which every requirement above must still be met."""
    patch_time: Time | None = None
    """How long each node is down in the rolling update; null: the patch_time of the scenario's
    rolling_update event, or 0s when it has none."""


class Scenario(_Model):
    """A cluster design and what happens to it."""

    name: Annotated[str, AfterValidator(_check_title)] = Field(min_length=1)
    description: str = ""
    hosts: tuple[Host, ...] = Field(min_length=1)
    switches: tuple[Switch, ...] = ()
    fabric: Fabric = Fabric()
    """How the switches forward and route around failures (docs/model.md, "Routing around failures")."""
    cables: tuple[Cable, ...] = ()
    vms: tuple[VM, ...] = ()
    traffic: tuple[Flow, ...] = ()
    events: tuple[Event, ...] = ()
    requirements: Requirements | None = None
    """What the design must achieve, for hvnet check; null: nothing to check."""
    #: The file it was read from, for messages about it ("<scenario>" when built in code).
    _source: str = PrivateAttr(default="<scenario>")
    #: Whether its file declared `variants:`, which a scenario (the base design) leaves out.
    _had_variants: bool = PrivateAttr(default=False)

    @property
    def source(self) -> str:
        """The file the scenario was read from, as its messages name it."""
        return self._source

    @property
    def had_variants(self) -> bool:
        """Whether its file declared `variants:` (hvnet compare and sweep run them; this is the base design)."""
        return self._had_variants

    def __eq__(self, other: object) -> bool:
        """Two scenarios are equal when they describe the same design, wherever they were read from."""
        fields = type(self).model_fields
        return isinstance(other, Scenario) and all(getattr(self, f) == getattr(other, f) for f in fields)

    __hash__ = _Model.__hash__

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Scenario:
        """A copy (with `update` applied) that finds its own hosts, VMs and switches by name."""
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("by_name", None)
        copy.__dict__.pop("cabled", None)
        return copy

    @functools.cached_property
    def by_name(self) -> dict[str, dict[str, Any]]:
        """Hosts, VMs and switches by name ("host", "VM", "switch"), the first of a name as a
        scan would find it; made on first use (a scenario never changes)."""
        return {
            "host": {host.name: host for host in reversed(self.hosts)},
            "VM": {vm.name: vm for vm in reversed(self.vms)},
            "switch": {switch.name: switch for switch in reversed(self.switches)},
        }

    @functools.cached_property
    def cabled(self) -> frozenset[str]:
        """Every cable end (`hv1/nic1`, `tor1/3`), as written; made on first use."""
        return frozenset(end for cable in self.cables for end in (cable.a, cable.b))

    def _lookup(self, kind: str, name: str) -> Any:
        """The item of `kind` called `name`, in constant time; KeyError if there is none."""
        try:
            return self.by_name[kind][name]
        except KeyError:
            raise KeyError(f"no {kind} named {name!r}") from None

    def host(self, name: str) -> Host:
        """The host called ``name``; KeyError if there is none."""
        host: Host = self._lookup("host", name)
        return host

    def vm(self, name: str) -> VM:
        """The VM called ``name``; KeyError if there is none."""
        vm: VM = self._lookup("VM", name)
        return vm

    def switch(self, name: str) -> Switch:
        """The switch called ``name``; KeyError if there is none."""
        switch: Switch = self._lookup("switch", name)
        return switch

    def endpoint_names(self, shown: int = 20) -> str:
        """The hosts and VMs a flow or test may name, for a message about a name that is
        none of them: "hosts: hv1, hv2; VMs: vm1, vm2" (sorted, at most `shown` of each)."""

        def listed(names: list[str]) -> str:
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            return (", ".join(names[:shown]) or "none") + more

        vms = sorted(vm.name for vm in self.vms)
        return f"hosts: {listed(sorted(h.name for h in self.hosts))}" + (f"; VMs: {listed(vms)}" if vms else "")

    def endpoint_host(self, name: str) -> Host:
        """The host a flow endpoint runs on: the host itself, or a VM's host."""
        try:
            return self.host(name)
        except KeyError:
            pass
        try:
            return self.host(self.vm(name).host)
        except KeyError:
            raise KeyError(f"no host or VM named {name!r}") from None

    def cable_speed(self, cable: Cable) -> float:
        """A cable's speed in bits/s: the lowest of its own speed, the NICs'
        speeds and the switches' port speeds, whichever are given."""
        speeds = [] if cable.speed is None else [cable.speed]
        for end in (cable.a, cable.b):
            device, port = split_endpoint(end)
            if any(host.name == device for host in self.hosts):
                speeds.append(self.host(device).nic(port).speed)
            elif (port_speed := self.switch(device).port_speed) is not None:
                speeds.append(port_speed)
        if not speeds:
            raise ValueError(f"cable {cable.a} - {cable.b} has no known speed")
        return min(speeds)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_NamedT = TypeVar("_NamedT", bound=_Named)


def _named(items: Iterable[_NamedT], name: str, what: str) -> _NamedT:
    for item in items:
        if item.name == name:
            return item
    raise KeyError(f"no {what} named {name!r}")


SCHEMA_ID = "urn:hvnet:scenario"

#: A file may declare variants of its design; ``hvnet.variants`` reads them, ``Scenario`` (one design) does not.
_VARIANTS_SCHEMA: dict[str, Any] = {
    "title": "Variants",
    "description": "Axes of design variants: hvnet compare and hvnet sweep run every combination (docs/sweeps.md).",
    "type": "object",
    "minProperties": 1,
    "additionalProperties": {
        "type": "object",
        "properties": {
            "set": {"type": "string", "description": "Where the values go.", "examples": ["hosts[*].nics[*].mtu"]},
            "values": {"type": "array", "minItems": 1, "description": "One variant per value."},
        },
        "required": ["set", "values"],
        "additionalProperties": False,
    },
}


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (editors use it to complete and check YAML)."""
    schema = Scenario.model_json_schema(by_alias=True)
    schema["properties"]["variants"] = _VARIANTS_SCHEMA
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "hvnet scenario",
    }
