"""The emulated cluster as a plan: namespaces, veth pairs, bridges and token buckets, before anything exists.

A pure function of the scaled scenario (`lab.scaling`) and a run id: `plan_topology` says what
`lab.netns` will make, and `setup_batches` the exact `ip` and `tc` lines, per namespace, in order.

    host hv1 ─ namespace hvlab-<run>-h0        switch tor1 ─ namespace hvlab-<run>-s0
      nic1 (veth, MAC 02:68:76:00:00:00) ═══════════ p1 ─┐
      nic2 ══════════════════════════════════════════ p2 ─┤ br0 (a Linux bridge)
    host hv2 ─ namespace hvlab-<run>-h1                  │
      nic1 ══════════════════════════════════════════ p3 ─┘

- **A cable is a veth pair** between the namespaces of its two ends: a host NIC and a switch
  port, two host NICs (back to back), or two switch ports (switch to switch).
- **A switch is a bridge** (`br0`) in a namespace of its own, its cabled ports enslaved to it.
- **MTUs as the scenario says**: a host NIC's end takes the NIC's MTU, a switch port its switch's
  (a veth drops a frame larger than its receiving end's MTU, and a bridge one larger than the
  port it leaves by: the twin's black hole of jumbo frames through a smaller switch).
- **Line rates by token buckets**: each end of each cable sends through a `tbf` at the cable's
  scaled speed (`Scenario.cable_speed`), so each direction of each cable is one shaped link, as
  each is one resource in the twin. The bucket counts 24 bytes per packet more than the kernel's
  `skb->len` (`stab overhead 24`): a veth frame is the IP packet and its 14-byte Ethernet header,
  and the twin's line time of a frame adds the FCS, the preamble and the inter-frame gap (4 + 8 +
  12 bytes: `lower.frames`), so the bucket's rate is the twin's line rate. Its burst is two full
  frames or a millisecond at the rate, whichever is more; its queue, on a switch port, the
  switch's buffer (`--buffer`, 20 ms at the rate unless told, at least eight frames): TCP sees drops
  where the port is full, as at a real switch, and the buffer's depth sets how fairly it shares
  (docs/lab.md); on a host's NIC, 20 ms that its own connections never fill.
- **No end has its peer's index**: each end's interface index is set, unique in the run. The kernel
  passes a veth's carrier change on at once only when its index differs from its peer's (`linkwatch`;
  otherwise up to a second later), and until then a bridge port is disabled and drops what arrives:
  a cable coming up, at the start or on a repair, would be up to a second late.
- **Every frame one packet**: each end's `gso_max_segs` is 1, so TCP hands the stack packets of
  one segment and `/proc/net/dev` counts frames as a NIC's counters do (with TSO a veth would
  count a 64 KB super-packet as one, its headers once).

Host namespaces also get, from `lab.timeline`, each connection's addresses, rules and routes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from hvnet.lab import names
from hvnet.lower.fabric import Port
from hvnet.model import Scenario

__all__ = [
    "FRAME_EXTRA_BYTES",
    "SWITCH_BUFFER_S",
    "Batch",
    "End",
    "Link",
    "Shaper",
    "Topology",
    "plan_topology",
    "setup_batches",
    "sysctl_settings",
]

#: What the twin's line time of a frame adds to a veth's frame (FCS 4, preamble 8, inter-frame gap 12).
FRAME_EXTRA_BYTES = 24
#: A full frame on a veth beyond its IP packet (the Ethernet header), and on the twin's line (38).
_LINE_OVERHEAD = 14 + FRAME_EXTRA_BYTES
#: The bucket's queue, in seconds at its rate: a switch port's buffer (`--buffer`; 20 ms is 162 frames of
#: MTU 1500 at 100 Mbit/s, about a data-centre switch port's share of its buffer counted in frames); a host's,
#: which its own TCP never fills (TCP small queues keep two frames of each connection in it, `sysctl_settings`).
SWITCH_BUFFER_S = 0.020
_HOST_QUEUE_S = 0.020
#: The bucket's burst at least this long at its rate.
_BURST_S = 0.001
#: The interface index of the first cable's first end; each end then has its own (two per cable).
_FIRST_INDEX = 1000


@dataclass(frozen=True)
class End:
    """One end of a cable: an interface in a namespace, for a host NIC or a switch port."""

    namespace: str
    ifname: str
    port: Port
    mtu: int
    #: A host NIC's fixed MAC address; None for a switch port (the kernel picks it).
    mac: str | None
    #: A switch port, enslaved to its switch's bridge.
    bridged: bool
    #: Its interface index, unique in the run: never its veth peer's (module doc).
    index: int = 0


@dataclass(frozen=True)
class Link:
    """A cable as a veth pair, and its scaled speed (bits/s)."""

    a: End
    b: End
    rate_bps: float


@dataclass(frozen=True)
class Shaper:
    """A token bucket on an end: what leaves it is at most `rate_bps` of the twin's line rate."""

    namespace: str
    ifname: str
    rate_bps: float
    burst_bytes: int
    limit_bytes: int

    def line(self) -> str:
        return (
            f"qdisc replace dev {self.ifname} root stab overhead {FRAME_EXTRA_BYTES} tbf "
            f"rate {round(self.rate_bps)}bit burst {self.burst_bytes} limit {self.limit_bytes}"
        )


@dataclass(frozen=True)
class Batch:
    """Lines for one `ip -n NAMESPACE -batch -` (or `tc`); namespace None: the machine's (only `netns add`)."""

    tool: str
    namespace: str | None
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Topology:
    run: str
    #: Scenario host or switch name -> its namespace.
    hosts: dict[str, str]
    switches: dict[str, str]
    links: tuple[Link, ...]
    #: A switch port's buffer, in seconds at its rate.
    buffer_s: float = SWITCH_BUFFER_S

    @property
    def namespaces(self) -> list[str]:
        return [*self.hosts.values(), *self.switches.values()]

    @property
    def ends(self) -> dict[Port, End]:
        return {end.port: end for link in self.links for end in (link.a, link.b)}

    def host_interfaces(self, host: str) -> dict[str, str]:
        """A host's interfaces (interface name -> the scenario NIC's name), in the order of its cables."""
        return {e.ifname: e.port.port for e in self.ends.values() if e.port.node == host and not e.bridged}

    @property
    def shapers(self) -> list[Shaper]:
        out = []
        for link in self.links:
            mtu = min(link.a.mtu, link.b.mtu) + _LINE_OVERHEAD
            bytes_per_s = link.rate_bps / 8
            burst = max(2 * mtu, round(bytes_per_s * _BURST_S))
            for e in (link.a, link.b):
                limit = max(8 * mtu, round(bytes_per_s * (self.buffer_s if e.bridged else _HOST_QUEUE_S)))
                out.append(Shaper(e.namespace, e.ifname, link.rate_bps, burst, limit))
        return out


def plan_topology(scenario: Scenario, run: str, buffer_s: float = SWITCH_BUFFER_S) -> Topology:
    """What the lab makes for the scenario (already scaled): one namespace per host and switch, a veth
    pair per cable."""
    hosts = {h.name: names.host_namespace(run, i) for i, h in enumerate(scenario.hosts)}
    switches = {s.name: names.switch_namespace(run, i) for i, s in enumerate(scenario.switches)}
    nic_ends: dict[Port, End] = {}
    for i, host in enumerate(scenario.hosts):
        taken: set[str] = set()
        for k, nic in enumerate(host.nics):
            ifname = names.interface_name(nic.name, k + 1, taken)
            taken.add(ifname)
            port = Port(host.name, nic.name)
            nic_ends[port] = End(hosts[host.name], ifname, port, nic.mtu, names.mac(i, k), bridged=False)

    def end(text: str) -> End:
        port = Port.parse(text)
        if port in nic_ends:
            return nic_ends[port]
        switch = scenario.switch(port.node)
        return End(switches[port.node], names.port_interface(port.port), port, switch.mtu, None, bridged=True)

    links = tuple(
        Link(
            dataclasses.replace(end(c.a), index=_FIRST_INDEX + 2 * k),
            dataclasses.replace(end(c.b), index=_FIRST_INDEX + 2 * k + 1),
            scenario.cable_speed(c),
        )
        for k, c in enumerate(scenario.cables)
    )
    return Topology(run, hosts, switches, links, buffer_s)


def sysctl_settings(host_mtu: int | None) -> list[str]:
    """A namespace's settings before its links come up: no IPv6 (no router or neighbour chatter in the
    counters); in a host's (`host_mtu`: its largest NIC MTU), no TCP timestamps (the twin's segments carry
    no options: MSS = MTU − 40, as Windows sends by default), no reverse-path filter (a connection's
    addresses sit on the loopback), and TCP small queues of two full frames per connection, so that what
    a host sends waits in its NIC's queue about as long as in a NIC's ring: its ACKs do not queue behind
    20 ms of its own data."""
    out = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
    if host_mtu is not None:
        out += [
            f"net.ipv4.tcp_limit_output_bytes={2 * (host_mtu + _LINE_OVERHEAD)}",
            "net.ipv4.tcp_timestamps=0",
            "net.ipv4.conf.all.rp_filter=0",
            "net.ipv4.conf.default.rp_filter=0",
            "net.ipv4.conf.lo.rp_filter=0",
        ]
    return out


def _veth(link: Link) -> str:
    a, b = link.a, link.b
    a_mac = f" address {a.mac}" if a.mac else ""
    b_mac = f" address {b.mac}" if b.mac else ""
    return (
        f"link add {a.ifname} index {a.index}{a_mac} mtu {a.mtu} type veth "
        f"peer name {b.ifname} index {b.index}{b_mac} mtu {b.mtu} netns {b.namespace}"
    )


def _grouped(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for namespace, line in pairs:
        out.setdefault(namespace, []).append(line)
    return out


def setup_batches(topology: Topology) -> list[Batch]:
    """The lines that build the topology, in order: namespaces; bridges; veth pairs (made in the `a`
    end's namespace, the peer straight into the `b` end's); each end's settings, its bridge and up;
    the token buckets. Sysctls are set between the namespaces and the links (`lab.netns`)."""
    batches = [Batch("ip", None, tuple(f"netns add {ns}" for ns in topology.namespaces))]
    batches += [Batch("ip", ns, ("link add br0 type bridge",)) for ns in topology.switches.values()]
    for ns, lines in _grouped((link.a.namespace, _veth(link)) for link in topology.links).items():
        batches.append(Batch("ip", ns, tuple(lines)))
    settings: list[tuple[str, str]] = [(ns, "link set lo up") for ns in topology.hosts.values()]
    for link in topology.links:
        for e in (link.a, link.b):
            master = " master br0" if e.bridged else ""
            settings.append((e.namespace, f"link set {e.ifname} gso_max_segs 1{master} up"))
    settings += [(ns, "link set br0 up") for ns in topology.switches.values()]
    batches += [Batch("ip", ns, tuple(lines)) for ns, lines in _grouped(settings).items()]
    shaped = _grouped((s.namespace, s.line()) for s in topology.shapers)
    batches += [Batch("tc", ns, tuple(lines)) for ns, lines in shaped.items()]
    return batches
