"""Ethernet frames and TCP segments: what a byte of payload costs on the wire,
and whether a path's switches carry the frames its NICs send.

Line time of one frame (IEEE 802.3), for an IP packet of `mtu` bytes:

    mtu + 14 (Ethernet header) + 4 (FCS) + 8 (preamble, SFD) + 12 (inter-frame gap)
      = mtu + 38 bytes

Headers inside the MTU (IPv4 and TCP): 20 + 20 + `tcp_options_bytes` per
segment. Windows leaves TCP timestamps (RFC 7323, 12 bytes with padding) off
by default, so options default to 0 bytes (BEHAVIOUR.md: 40–52 bytes of
headers; pass 12 for stacks that enable timestamps) and the payload of a full
frame is

    MSS = mtu - 40

(ntttcp reports an average frame of about 1457 bytes at MTU 1500, C9.) A
connection's MSS is negotiated from both ends: MSS = min(mtu_a, mtu_b) - 40.
Each byte of its payload then uses, on every link of its path,

    (MSS + 40 + 38) / MSS  bytes of line time
    MTU 1500: 1538 / 1460 = 1.0534        MTU 9000: 9038 / 8960 = 1.0087

and a link of `speed` bits/s carries `speed × MSS / (MSS + 78)` bits/s of
payload (10 Gbps at MTU 1500: 9.49 Gbps).

Path MTU. A layer-2 switch forwards no frame larger than its own MTU, and it
does not answer with "fragmentation needed": path-MTU discovery cannot help.
When the MTU both NICs negotiate is larger than a switch's on their path,
every full-size segment is dropped silently (the handshake, made of small
packets, succeeds): the connection is black-holed. NICs of different MTUs
are not a fault: the connection runs at the smaller one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.lower.endpoints import Endpoints
from hvnet.lower.fabric import Fabric, Port, build_fabric
from hvnet.lower.routing import Routing
from hvnet.model import Scenario

__all__ = ["PathMtu", "goodput", "mss", "path_mtu", "path_warnings", "wire_bytes_per_payload_byte"]

#: Destination and source MAC addresses and EtherType.
ETHERNET_HEADER_BYTES = 14
#: Frame check sequence (CRC-32).
FCS_BYTES = 4
#: Preamble (7 bytes) and start-of-frame delimiter (1 byte).
PREAMBLE_BYTES = 8
#: The minimum idle time between two frames, as bytes of line time.
INTER_FRAME_GAP_BYTES = 12
#: Line time of a frame beyond its IP packet (the MTU): 38 bytes.
FRAME_OVERHEAD_BYTES = ETHERNET_HEADER_BYTES + FCS_BYTES + PREAMBLE_BYTES + INTER_FRAME_GAP_BYTES
#: IPv4 header without options.
IPV4_HEADER_BYTES = 20
#: TCP header without options.
TCP_HEADER_BYTES = 20
#: The TCP timestamps option (RFC 7323: 10 bytes, padded to 12), carried by every
#: segment when both ends enable it.
TCP_TIMESTAMPS_BYTES = 12
#: TCP options in every segment by default: none, since Windows leaves
#: timestamps off unless told otherwise (BEHAVIOUR.md: headers of 40–52 bytes).
TCP_OPTIONS_BYTES = 0


def mss(mtu: int, tcp_options_bytes: int = TCP_OPTIONS_BYTES) -> int:
    """Payload bytes of a full-size TCP segment in an IP packet of `mtu` bytes: mtu - 40 by default."""
    return mtu - IPV4_HEADER_BYTES - TCP_HEADER_BYTES - tcp_options_bytes


def wire_bytes_per_payload_byte(mss: int, tcp_options_bytes: int = TCP_OPTIONS_BYTES) -> float:
    """Bytes of line time per byte of payload, at `mss` payload per frame: (mss + 40 + 38) / mss by default."""
    headers = IPV4_HEADER_BYTES + TCP_HEADER_BYTES + tcp_options_bytes
    return (mss + headers + FRAME_OVERHEAD_BYTES) / mss


def goodput(link_bps: float, mtu: int, tcp_options_bytes: int = TCP_OPTIONS_BYTES) -> float:
    """Payload bits/s a link of `link_bps` carries in full-size frames of `mtu` (10 Gbps, 1500: 9.49 Gbps)."""
    return link_bps / wire_bytes_per_payload_byte(mss(mtu, tcp_options_bytes), tcp_options_bytes)


@dataclass(frozen=True)
class PathMtu:
    """The MTUs along the path from one NIC to another."""

    source: Port
    target: Port
    source_mtu: int
    target_mtu: int
    #: (name, mtu) of each switch the path crosses, in order.
    switches: tuple[tuple[str, int], ...]

    @property
    def negotiated_mtu(self) -> int:
        """The MTU both ends' MSS assumes: the smaller of the two NICs'."""
        return min(self.source_mtu, self.target_mtu)

    @property
    def mss(self) -> int:
        """Payload per frame of a connection on this path."""
        return mss(self.negotiated_mtu)

    @property
    def narrowest_switch(self) -> tuple[str, int] | None:
        """The first switch with the smallest MTU on the path, if any switch."""
        return min(self.switches, key=lambda s: s[1], default=None)

    @property
    def effective_mtu(self) -> int:
        """The largest packet every part of the path carries."""
        narrowest = self.narrowest_switch
        return self.negotiated_mtu if narrowest is None else min(self.negotiated_mtu, narrowest[1])

    @property
    def breaks(self) -> bool:
        """Whether a switch drops the full-size frames both ends send."""
        return self.effective_mtu < self.negotiated_mtu

    def warning(self) -> str | None:
        """One line saying what breaks and how to fix it; None when nothing does."""
        narrowest = self.narrowest_switch
        if not self.breaks or narrowest is None:
            return None
        switch, carried = narrowest
        if self.source_mtu == self.target_mtu:
            nics = f"both NICs use MTU {self.negotiated_mtu}"
        else:
            nics = f"the NICs (MTU {self.source_mtu} and {self.target_mtu}) negotiate MTU {self.negotiated_mtu}"
        return (
            f"{self.source} → {self.target}: {nics} but switch {switch} carries at most {carried}; "
            f"full-size frames would be dropped (set the switch's mtu to 9216 or the NICs' mtu to {carried})"
        )


def path_mtu(fabric: Fabric, source: Port, target: Port, switches: Sequence[str]) -> PathMtu:
    """The MTUs along a route from NIC `source` to NIC `target` that crosses `switches`, in order."""
    return PathMtu(
        source,
        target,
        fabric.nic_mtu[source],
        fabric.nic_mtu[target],
        tuple((s, fabric.switch_mtu[s]) for s in switches),
    )


def path_warnings(scenario: Scenario, routing: Routing | None = None, endpoints: Endpoints | None = None) -> list[str]:
    """A warning for each NIC pair that the scenario's traffic may use and a route of it drops full-size frames.

    The pairs are those `NetworkModel` gives paths to: each member (or the
    NIC) of the source's uplink with each of the destination's, on every
    equal-cost route they have with the fabric whole (the first that drops
    them is named). A run passes the routing and endpoints it has built;
    without them they are built here.
    """
    if routing is None:
        routing = Routing(scenario, build_fabric(scenario), Calibration().fabric)
    fabric = routing.fabric
    endpoints = endpoints or Endpoints(scenario)
    found: dict[tuple[Port, Port], str | None] = {}
    for traffic in scenario.traffic:
        source, target = endpoints[traffic.src], endpoints[traffic.dst]
        for a in (Port(source.host.name, nic) for nic in source.nics):
            for b in (Port(target.host.name, nic) for nic in target.nics):
                if (a, b) not in found:
                    timeline = routing.nic_routes(a, b)
                    routes = timeline[0][1] if timeline else ()
                    warnings = (path_mtu(fabric, a, b, r.switches).warning() for r in routes)
                    found[(a, b)] = next((w for w in warnings if w is not None), None)
    return [warning for warning in found.values() if warning is not None]
