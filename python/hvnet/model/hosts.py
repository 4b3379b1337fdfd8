"""The hosts of a scenario: their processors, NICs, teams, virtual switches and live migration settings.

A ``Host`` holds its ``Cpu``, its ``Nic``s, the ``Team``s of those NICs, the
``VirtualSwitch``es bound to a NIC or a team, and its ``LiveMigration``
settings; each finds its own NICs, teams and virtual switches by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from pydantic import Field

from hvnet.model.enums import (
    AddressHash,
    CState,
    LacpTimer,
    LoadBalancing,
    MigrationOption,
    PowerPlan,
    TeamingMode,
    TeamKind,
)
from hvnet.model.fields import Flag, FrozenModel, LinkRate, Name, PositiveBitRate, PositiveBytes, Whole

__all__ = ["Cpu", "Host", "LiveMigration", "Nic", "Team", "VirtualSwitch"]


class Cpu(FrozenModel):
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


class Nic(FrozenModel):
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


class Team(FrozenModel):
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


class VirtualSwitch(FrozenModel):
    """A Hyper-V virtual switch bound to a NIC or a team."""

    name: Name
    uplink: Name
    """A NIC or team of this host; each is the uplink of at most one virtual switch."""
    host_vnic_rss: Flag = True
    """The host vNIC on it spreads what it receives over cores (vRSS in the host partition, Windows Server
    2016 on). False: Windows Server 2012 and 2012 R2, whose host vNIC has no RSS: all it receives lands on
    one core, its VMQ queue's (docs/model.md, "Cores")."""


class LiveMigration(FrozenModel):
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


class Host(FrozenModel):
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


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_NamedT = TypeVar("_NamedT", bound=_Named)


def _named(items: Iterable[_NamedT], name: str, what: str) -> _NamedT:
    for item in items:
        if item.name == name:
            return item
    raise KeyError(f"no {what} named {name!r}")
