"""The physical network of a scenario: its switches, how they forward and detect failures, and the cables.

A ``Switch`` has ports, may be one of a stack, and may set how it detects a
failure; the ``Fabric`` says how the switches forward (routed or a spanning
tree) and how they detect and route around a failure; a ``Cable`` joins a
host's NIC or a switch port to another.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from hvnet.model.enums import AddressHash, Forwarding
from hvnet.model.fields import SLOWEST_LINK_BPS, Flag, FrozenModel, LinkRate, Name, PositiveBitRate, Reference, Whole
from hvnet.units import BitRate, Duration

__all__ = ["Cable", "Detection", "Fabric", "Switch"]


#: How long a switch takes to see a failure, by kind (docs/model.md, "Routing around failures").
Detection = Annotated[Duration, Field(ge=0, le=3600)]


class _Detection(FrozenModel):
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


class _SwitchPorts(FrozenModel):
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


class _Forwarding(FrozenModel):
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


class Cable(FrozenModel):
    """A cable between two endpoints: "host/nic" or "switch/port-number"."""

    a: Reference
    b: Reference
    speed: PositiveBitRate | None = None
    """Absent: the lowest speed of the NICs and switch ports it joins."""
