"""What runs on a scenario's cluster and what happens to it: VMs, their traffic, and timed events.

A ``VM`` runs on a host (with a ``VmTeam`` inside it, or on one virtual
switch); a ``Flow`` is a transfer between two hosts or VMs; an ``Event``
fails or repairs a NIC, cable, switch or port, migrates a VM, drains a host or
patches the cluster node by node.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, model_validator

from hvnet.errors import UnitError
from hvnet.model.demand import DemandRate
from hvnet.model.enums import AddressHash, EventAction, LoadBalancing, Placement, TeamingMode
from hvnet.model.fields import (
    FASTEST_LINK_BPS,
    LARGEST_BYTES,
    Flag,
    FrozenModel,
    LinkRate,
    Name,
    PositiveBytes,
    Reference,
    Share,
    Size,
    Time,
    Whole,
)
from hvnet.units import BitRate, bytes_per_s, parse_bytes

__all__ = ["VM", "Event", "Flow", "VmTeam"]


class VmTeam(FrozenModel):
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


class VM(FrozenModel):
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
    incompressible: Size = 0
    """The part of populated memory that no compressor shrinks (encrypted or already compressed data); the
    Compression option sends it as it is. At most populated."""
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


def _check_series(steps: tuple[tuple[float, float], ...]) -> None:
    """A series' steps go forward in time and end with a rate of 0 (where the flow ends)."""
    late = next((k for k in range(1, len(steps)) if steps[k][0] <= steps[k - 1][0]), None)
    if late is not None:
        raise ValueError(
            f"rates[{late}]: its time ({steps[late][0]:g} s) is not after the one before; steps go forward"
        )
    if steps[-1][1] != 0:
        raise ValueError("rates: the last step is where the flow ends: give it a rate of 0, e.g. [600s, 0bps]")
    if all(bps == 0 for _, bps in steps):
        raise ValueError("rates: every step is 0 bps; a flow that sends nothing is no traffic")


def _given(*fields: str) -> dict[str, Any]:
    """JSON schema: each of `fields` is given, and not null."""
    return {"required": list(fields), "properties": {f: {"not": {"type": "null"}} for f in fields}}


class Flow(FrozenModel):
    """Traffic between two hosts or VMs: a transfer of a size, a steady flow at a rate for a duration, or
    a flow whose rate follows steps (a measured series)."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [_given("size"), _given("rate", "duration"), _given("rates")]}
    )

    name: Name | None = None
    """Unique if given."""
    src: Name = Field(alias="from")
    """A host or VM name."""
    dst: Name = Field(alias="to")
    """A host or VM name, not the same as from."""
    size: PositiveBytes | None = None
    """A transfer: how much data, e.g. 10GB. Give size, or rate and duration."""
    rate: LinkRate | None = None
    """A steady flow: the rate it sends at (payload, e.g. 2Gbps), never faster; below it, it shares
    the network max-min fairly like any transfer."""
    duration: Time | None = Field(default=None, gt=0)
    """A steady flow: how long it sends, from start (required with rate)."""
    rates: tuple[tuple[Time, DemandRate], ...] | None = Field(default=None, min_length=2, max_length=1_000_000)
    """A flow that follows a series: `[[0s, 2Gbps], [60s, 500Mbps], [120s, 0bps]]`, each rate (payload) from
    its time after start to the next; it ends at the last, whose rate is 0."""
    start: Time = 0.0
    """When the transfer starts."""
    connections: Whole = Field(default=1, ge=1, le=64)
    """Parallel TCP connections (a steady flow's rate is split evenly among them)."""

    @model_validator(mode="after")
    def _a_size_or_a_rate(self) -> Flow:
        kinds = (self.size is not None) + (self.rate is not None) + (self.rates is not None)
        if kinds != 1:
            raise ValueError(
                ("give one of " if kinds else "needs ")
                + "size (a transfer, e.g. size: 10GB), rate and duration (a steady flow, e.g. rate: 2Gbps, "
                "duration: 10min) or rates (a series, e.g. rates: [[0s, 2Gbps], [60s, 0bps]])"
                + (", not several" if kinds else "")
            )
        if self.rates is not None:
            _check_series(self.rates)
        if self.rate is not None and self.duration is None:
            raise ValueError("a steady flow (rate) needs duration: how long it sends, e.g. duration: 10min")
        if self.rate is None and self.duration is not None:
            raise ValueError("duration is for a steady flow (with rate); a transfer or a series ends by itself")
        return self

    def segments(self) -> list[tuple[float, float, float]]:
        """(from, to, rate in bits/s) of each stretch it sends at a rate, in run time: a steady flow's one,
        a series' steps above 0; none for a transfer."""
        if self.rate is not None and self.duration is not None:
            return [(self.start, self.start + self.duration, self.rate)]
        steps = self.rates or ()
        return [
            (self.start + at, self.start + steps[k + 1][0], bps) for k, (at, bps) in enumerate(steps[:-1]) if bps > 0
        ]

    @property
    def planned_bytes(self) -> float:
        """Its size; what a steady flow or a series sends when nothing slows it."""
        if self.size is not None:
            return float(self.size)
        return sum(bytes_per_s(bps) * (to - at) for at, to, bps in self.segments())


class Event(FrozenModel):
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
