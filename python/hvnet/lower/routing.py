"""The fabric's routing over time: which routes join two switches, from when.

How switches forward between one another (`fabric.forwarding`):

- **routed** (layer 3, the default): over every shortest path, by hops,
  between two switches; the core spreads flows over them by an ECMP hash of
  each flow's addresses and ports (`Flow::ecmp_hash`);
- **rstp**, **stp** (layer 2): over one spanning tree, rooted at
  `fabric.root_bridge` (else the first switch listed); in each part of the
  fabric cut off from the root, at its own first switch. A switch reaches
  the tree breadth first, by its neighbours in name and port order.

A failure of a link between two switches (a `cable_down`, a `switch_down`
of either end, a `port_blackhole` on either end) is not known to routing
at once. With `failed` its time:

    seen     = failed + carrier_delay                       its link went down (cable, switch)
             = failed + bfd_interval × bfd_multiplier       it forwards nothing, its link up (a black hole), BFD on
             = failed + hold_time                           the same, BFD off (BGP's hold time, OSPF's dead interval)
    rerouted = seen + convergence                           routed and rstp
             = seen + 2 × forward_delay                     stp (listening, then learning)

and for a spanning tree's silent failure, `seen = failed + 3 × hello`
(rstp) or `failed + max_age` (stp). From `rerouted` on, routing leaves the
link out; until then the core black-holes the flows on it (its resources
are down). A link repaired at `repaired` is back in routing at `repaired +
convergence` (`+ 2 × forward_delay` for stp), the old routes carrying the
traffic until then. A failure repaired before it is seen never changes
routing.

Which settings: a link is seen by the switches at its ends that are still
up (a `switch_down` leaves the other end alone). Its carrier delay is the
slower end's; BFD runs on it only if both ends run it, at the slower end's
interval and multiplier (RFC 5880 §6.8.4: a session runs at the slower of
its two ends); without BFD the hold time is the shorter of the two (RFC
4271 §4.2: BGP's negotiated hold time is the smaller). Each is the
switch's own setting, else the fabric's, else `calibration.FabricParameters`.

Assumed: every switch updates its forwarding at once when routing has
converged (no per-switch order); links all cost the same (hops, not speed);
a repair costs no outage; at most `MAX_ROUTES` equal-cost routes join two
switches (the first in name order).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from hvnet.calibration import FabricParameters
from hvnet.lower.fabric import NIC_TO_NIC, Direction, Fabric, NicRoute, Port, SwitchRoutes
from hvnet.model import Scenario
from hvnet.model.scenario import Forwarding

__all__ = ["MAX_ROUTES", "Link", "NicRoute", "Outage", "Routing"]

#: The most equal-cost routes kept between two switches.
MAX_ROUTES = 64

#: Events that act on a switch link: a cause is loud (its link goes down, both ends see it) or silent.
_LOUD = ("cable_down", "cable_up", "switch_down", "switch_up")
_SILENT = ("port_blackhole", "port_restore")


@dataclass(frozen=True)
class Link:
    """A cable between two switches: its two directions."""

    forward: Direction
    backward: Direction

    @property
    def name(self) -> str:
        return f"{self.forward.source} – {self.forward.target}"

    @property
    def switches(self) -> tuple[str, str]:
        return self.forward.source.node, self.forward.target.node


@dataclass(frozen=True)
class Outage:
    """One stretch during which a link was down, and what routing made of it (times in seconds)."""

    link: Link
    #: The scenario events that held it down, as "action target" (`switch_down spine1`).
    causes: tuple[str, ...]
    failed_s: float
    #: When routing saw it (inf: never, it was repaired first) and how ("carrier", "BFD 300 ms × 3"...).
    seen_s: float
    seen_by: str
    #: When routing left it out (inf: never) and took it back (inf: never repaired).
    rerouted_s: float
    repaired_s: float
    restored_s: float


@dataclass(frozen=True)
class _Change:
    """A scenario event as it acts on one link."""

    at_s: float
    #: What holds it down (one per thing that failed, the same for its repair) and the event as written.
    cause: str
    label: str
    down: bool
    #: Its link goes down (both ends see it), or it silently forwards nothing.
    loud: bool
    #: The ends still up, that see a loud failure.
    watchers: tuple[str, ...]


@dataclass
class _Down:
    """A link's current outage while it is being walked through the events."""

    failed_s: float
    seen_s: float
    seen_by: str
    causes: list[str] = field(default_factory=list)


class Routing:
    """The routes between the fabric's switches over time."""

    def __init__(self, scenario: Scenario, fabric: Fabric, parameters: FabricParameters) -> None:
        self.fabric = fabric
        self.parameters = parameters
        self.settings = scenario.fabric
        self.forwarding = scenario.fabric.forwarding
        self._switches = {s.name: s for s in scenario.switches}
        self._order = {s.name: i for i, s in enumerate(scenario.switches)}
        root = scenario.fabric.root_bridge
        if root is not None and root in self._order:
            self._order[root] = -1
        self.links = _links(fabric)
        #: The link of each direction, by resource: its forward direction's resource.
        self._link_of = {
            d.resource: link.forward.resource for link in self.links for d in (link.forward, link.backward)
        }
        self.outages = self._outages(scenario)
        #: Each time routing changes (the first 0), and the links it leaves out from then on.
        self.epochs = _epochs(self.outages)
        self._routes: dict[tuple[str, str, frozenset[int]], tuple[tuple[Direction, ...], ...]] = {}
        self._trees: dict[frozenset[int], dict[str, tuple[str, Direction] | None]] = {}
        self._distances: dict[tuple[str, frozenset[int]], dict[str, int]] = {}
        #: The routes between each pair of switches (`switch_routes`); None: no cabled path joins them.
        self._between: dict[tuple[str, str], SwitchRoutes | None] = {}

    # ---- when a failure is seen ---------------------------------------------

    def _setting(self, switch: str, name: str) -> float | bool | None:
        """A switch's own detection setting, else the fabric's (None: neither sets it)."""
        own = getattr(self._switches[switch], name) if switch in self._switches else None
        value: float | bool | None = own if own is not None else getattr(self.settings, name)
        return value

    def _carrier_delay(self, watchers: Iterable[str]) -> tuple[float, str]:
        delays = [self._number(w, "carrier_delay", self.parameters.carrier_delay_s) for w in watchers]
        delay = max(delays, default=0.0)
        return delay, "link down"

    def _number(self, switch: str, name: str, default: float) -> float:
        value = self._setting(switch, name)
        return default if value is None else float(value)

    def _silent_delay(self, ends: tuple[str, str]) -> tuple[float, str]:
        """How long a link that forwards nothing with its link up takes to be seen."""
        p = self.parameters
        if self.forwarding is Forwarding.RSTP:
            return 3 * p.stp_hello_s, "three missed RSTP hellos"
        if self.forwarding is Forwarding.STP:
            return p.stp_max_age_s, "STP max age"
        if all(self._setting(end, "bfd") is not False for end in ends):
            interval = max(self._number(end, "bfd_interval", p.bfd_interval_s) for end in ends)
            multiplier = max(self._number(end, "bfd_multiplier", p.bfd_multiplier) for end in ends)
            return interval * multiplier, f"BFD {_ms(interval)} × {multiplier:g}"
        hold = min(self._number(end, "hold_time", p.hold_time_s) for end in ends)
        return hold, f"routing hold time {hold:g} s (no BFD)"

    def _reconvergence_s(self) -> float:
        """From a failure (or a repair) seen to every switch forwarding around it."""
        if self.forwarding is Forwarding.STP:
            return 2 * self.parameters.stp_forward_delay_s
        convergence = self.settings.convergence
        return self.parameters.convergence_s if convergence is None else convergence

    def _outages(self, scenario: Scenario) -> list[Outage]:
        """Every stretch a switch link was down, with when routing saw it and routed around it."""
        by_link: dict[Link, list[_Change]] = {}
        for event in sorted(scenario.events, key=lambda e: e.at):
            action = str(event.action.value)
            if event.target is None or action not in _LOUD + _SILENT:
                continue
            kind = action.rsplit("_", 1)[0]
            for link, watchers in self._hit(action, event.target):
                cause = f"cable:{link.name}" if kind == "cable" else f"{kind}:{event.target}"
                change = _Change(
                    at_s=event.at,
                    cause=cause,
                    label=f"{action} {event.target}",
                    down=action.endswith(("_down", "_blackhole")),
                    loud=action in _LOUD,
                    watchers=watchers,
                )
                by_link.setdefault(link, []).append(change)
        outages = [o for link, changes in by_link.items() for o in self._walk(link, changes)]
        return sorted(outages, key=lambda o: (o.failed_s, o.link.forward.resource))

    def _walk(self, link: Link, changes: list[_Change]) -> list[Outage]:
        """A link's outages from its changes, in time order: held down while any cause holds it."""
        held: set[str] = set()
        current: _Down | None = None
        out: list[Outage] = []
        convergence = self._reconvergence_s()
        for change in changes:
            was_down = bool(held)
            if change.down:
                held.add(change.cause)
                if change.loud:
                    delay, how = self._carrier_delay(change.watchers)
                else:
                    delay, how = self._silent_delay(link.switches)
                if current is None:
                    current = _Down(change.at_s, change.at_s + delay, how)
                elif change.at_s + delay < current.seen_s:
                    current.seen_s, current.seen_by = change.at_s + delay, how
                current.causes.append(change.label)
            else:
                held.discard(change.cause)
                if was_down and not held and current is not None:
                    out.append(_outage(link, current, change.at_s, convergence))
                    current = None
        if current is not None:
            out.append(_outage(link, current, math.inf, convergence))
        return out

    def _hit(self, action: str, target: str) -> list[tuple[Link, tuple[str, ...]]]:
        """The switch links an event acts on, each with the switches that see it (those still up)."""
        if action.startswith("switch"):
            return [
                (link, tuple(s for s in link.switches if s != target)) for link in self.links if target in link.switches
            ]
        here = Port.parse(target)
        return [(link, link.switches) for link in self.links if here in (link.forward.source, link.forward.target)]

    # ---- routes ---------------------------------------------------------------

    def nic_routes(self, source: Port, target: Port) -> list[tuple[float, tuple[NicRoute, ...]]] | None:
        """The routes from NIC `source` to NIC `target` from each time on (the first at 0; an empty
        tuple: no route then); None when no cabled path joins them even with everything up."""
        ends = self.fabric.ends(source, target)
        if ends is None:
            return None
        first, last = ends
        nic_to_nic = first.target == last.target
        path = NIC_TO_NIC if nic_to_nic else self.switch_routes(first.target.node, last.source.node)
        if path is None:
            return None
        head, tail = (first.resource,), () if nic_to_nic else (last.resource,)
        return [
            (at, tuple(NicRoute(head + route.resources + tail, route.switches) for route in routes))
            for at, routes in path.between
        ]

    def switch_routes(self, ingress: str, egress: str) -> SwitchRoutes | None:
        """`nic_routes` between the two switches a NIC pair's cables meet, made once per pair of
        switches; None when no cabled path joins them."""
        key = (ingress, egress)
        if key not in self._between:
            self._between[key] = self._switch_routes(*key)
        return self._between[key]

    def _switch_routes(self, ingress: str, egress: str) -> SwitchRoutes | None:
        """The routes between two switches as parts of NIC routes (`Fabric.between`, and the switches
        crossed); None when no cabled path joins them."""
        switches = self.fabric.switches
        if ingress not in switches or egress not in switches or not self.connected(ingress, egress):
            return None
        timeline = self.routes(ingress, egress)
        between = tuple((at, tuple(self._switch_route(ingress, hops) for hops in routes)) for at, routes in timeline)
        return SwitchRoutes((ingress, egress), between)

    def _switch_route(self, ingress: str, hops: tuple[Direction, ...]) -> NicRoute:
        crossed = (ingress, *(d.target.node for d in hops))
        return NicRoute(tuple(self.fabric.between(ingress, hops)), crossed)

    def routes(self, ingress: str, egress: str) -> list[tuple[float, tuple[tuple[Direction, ...], ...]]]:
        """The routes (switch-to-switch cables, in order) from `ingress` to `egress` from each time
        on: the first at 0, then a time only where they change; an empty tuple: no route then."""
        timeline: list[tuple[float, tuple[tuple[Direction, ...], ...]]] = []
        for at, absent in self.epochs:
            routes = self._routes_under(ingress, egress, absent)
            if not timeline or timeline[-1][1] != routes:
                timeline.append((at, routes))
        return timeline

    def connected(self, ingress: str, egress: str) -> bool:
        """Whether any route joins two switches with every link up."""
        return bool(self._routes_under(ingress, egress, frozenset()))

    def _routes_under(self, ingress: str, egress: str, absent: frozenset[int]) -> tuple[tuple[Direction, ...], ...]:
        key = (ingress, egress, absent)
        if key not in self._routes:
            if ingress == egress:
                routes: tuple[tuple[Direction, ...], ...] = ((),)
            elif self.forwarding is Forwarding.ROUTED:
                routes = self._shortest(ingress, egress, absent)
            else:
                routes = self._tree_route(ingress, egress, absent)
            self._routes[key] = routes
        return self._routes[key]

    def _present(self, switch: str, absent: frozenset[int]) -> list[tuple[str, Direction]]:
        """The links out of `switch` that routing uses, in name and port order."""
        out = [(n, d) for n, d in self.fabric.uplinks.get(switch, []) if self._link_of[d.resource] not in absent]
        return sorted(out, key=lambda nd: (nd[0], nd[1].source.port, nd[1].target.port))

    def _shortest(self, ingress: str, egress: str, absent: frozenset[int]) -> tuple[tuple[Direction, ...], ...]:
        """Every shortest path (by hops), in name order, up to `MAX_ROUTES`."""
        distance = self._distance_to(egress, absent)
        if ingress not in distance:
            return ()
        routes: list[tuple[Direction, ...]] = []
        stack: list[tuple[str, tuple[Direction, ...]]] = [(ingress, ())]
        while stack and len(routes) < MAX_ROUTES:
            node, hops = stack.pop()
            if node == egress:
                routes.append(hops)
                continue
            nexts = [(n, d) for n, d in self._present(node, absent) if distance.get(n) == distance[node] - 1]
            stack.extend((n, (*hops, d)) for n, d in reversed(nexts))
        return tuple(routes)

    def _distance_to(self, goal: str, absent: frozenset[int]) -> dict[str, int]:
        """Hops from every switch to `goal` over the links routing uses (breadth first)."""
        key = (goal, absent)
        if key not in self._distances:
            distance = {goal: 0}
            queue = deque([goal])
            while queue:
                node = queue.popleft()
                for neighbour, _ in self._present(node, absent):
                    if neighbour not in distance:
                        distance[neighbour] = distance[node] + 1
                        queue.append(neighbour)
            self._distances[key] = distance
        return self._distances[key]

    def _tree_route(self, ingress: str, egress: str, absent: frozenset[int]) -> tuple[tuple[Direction, ...], ...]:
        """The one path between two switches on the spanning tree; none if they are apart."""
        parent = self._tree(absent)

        def up(node: str) -> list[str]:
            chain = [node]
            while (step := parent.get(chain[-1])) is not None:
                chain.append(step[0])
            return chain

        a, b = up(ingress), up(egress)
        if a[-1] != b[-1]:
            return ()
        common = next(n for n in a if n in set(b))
        hops: list[Direction] = []
        for node in a[: a.index(common)]:  # up from the ingress, child to parent
            hops.append(_step(parent, node))
        down = [_reverse(self.fabric, _step(parent, node)) for node in b[: b.index(common)]]
        return (tuple(hops + down[::-1]),)

    def _tree(self, absent: frozenset[int]) -> dict[str, tuple[str, Direction] | None]:
        """Each switch's parent on the spanning tree, and the cable up to it (None at a root)."""
        if absent not in self._trees:
            parent: dict[str, tuple[str, Direction] | None] = {}
            for root in sorted(self.fabric.switches, key=lambda s: (self._order.get(s, len(self._order)), s)):
                if root in parent:
                    continue
                parent[root] = None
                queue = deque([root])
                while queue:
                    node = queue.popleft()
                    for neighbour, direction in self._present(node, absent):
                        if neighbour not in parent:
                            parent[neighbour] = (node, _reverse(self.fabric, direction))
                            queue.append(neighbour)
            self._trees[absent] = parent
        return self._trees[absent]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def _step(parent: dict[str, tuple[str, Direction] | None], node: str) -> Direction:
    """The cable from `node` up to its parent on the spanning tree (`node` is not a root)."""
    step = parent[node]
    assert step is not None, f"{node} is a root"
    return step[1]


def _outage(link: Link, down: _Down, repaired: float, convergence: float) -> Outage:
    """An outage from its walk: left out of routing `convergence` after it was seen, if it was
    seen before its repair, and back in `convergence` after the repair."""
    seen = down.seen_s if down.seen_s <= repaired else math.inf
    rerouted = seen + convergence
    restored = repaired + convergence if seen < math.inf else math.inf
    return Outage(
        link=link,
        causes=tuple(down.causes),
        failed_s=down.failed_s,
        seen_s=seen,
        seen_by=down.seen_by if seen < math.inf else "",
        rerouted_s=rerouted,
        repaired_s=repaired,
        restored_s=restored,
    )


def _reverse(fabric: Fabric, direction: Direction) -> Direction:
    return fabric.out_of[direction.target]


def _links(fabric: Fabric) -> list[Link]:
    """Every cable between two switches, once, in cable order (its first direction forward)."""
    links = []
    for switch in fabric.uplinks:
        for _, direction in fabric.uplinks[switch]:
            backward = _reverse(fabric, direction)
            if direction.resource < backward.resource:
                links.append(Link(direction, backward))
    return sorted(links, key=lambda link: link.forward.resource)


def _epochs(outages: list[Outage]) -> list[tuple[float, frozenset[int]]]:
    """Each time routing changes (0 first) and the links it leaves out from then on."""
    times = {0.0}
    for o in outages:
        times.update(t for t in (o.rerouted_s, o.restored_s) if math.isfinite(t))
    epochs: list[tuple[float, frozenset[int]]] = []
    for at in sorted(times):
        absent = frozenset(o.link.forward.resource for o in outages if o.rerouted_s <= at < o.restored_s)
        if not epochs or epochs[-1][1] != absent:
            epochs.append((at, absent))
    return epochs
