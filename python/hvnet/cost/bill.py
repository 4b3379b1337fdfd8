"""The bill of materials of a design: what to buy for the network the scenario describes.

``bill_of_materials(scenario)`` counts switches and their ports, NIC cards, the
DACs or optics at each end of each cable, and the fibre or copper cables, each as
a ``BillLine`` with a price-list key (``item``), the words an administrator uses
("dual-port 25 GbE NIC"), a quantity and the scenario elements it comes from.
What the scenario does not say (cable lengths, how ports sit on cards, vendors)
is assumed, and each assumption is listed in ``Bill.assumptions``; docs/cost.md
states every rule.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from pydantic import BaseModel, ConfigDict

from hvnet.model import Scenario, split_endpoint
from hvnet.units import format_bitrate

__all__ = [
    "ITEMS",
    "SPEED_CLASSES",
    "Bill",
    "BillLine",
    "Category",
    "Item",
    "SpeedClass",
    "bill_of_materials",
    "speed_class",
]


class Category(str, Enum):
    """What kind of thing a line of the bill is."""

    SWITCH = "switch"
    """A switch's chassis, or its ports of one speed."""
    NIC = "nic"
    """Network adapter cards in the hosts."""
    TRANSCEIVER = "transceiver"
    """What goes into a port at a link's end: an optic, or a DAC (a direct-attach copper cable,
    both ends and the cable in one)."""
    CABLE = "cable"
    """Fibre between two optics, or a copper patch cord between two RJ45 ports."""


@dataclass(frozen=True)
class SpeedClass:
    """An Ethernet speed that ships, as the bill names and prices it."""

    key: str
    """In price-list keys: ``25g``."""
    bps: float
    name: str
    """``25 GbE``."""
    short: str
    """``25G``."""
    form: str
    """The port's form factor: ``SFP28``."""
    fibre: str
    """The fibre of its short-reach optics: ``LC`` (duplex) or ``MPO`` (multi-lane); ``""`` at 1 GbE (copper)."""


#: The Ethernet speeds the bill knows, slowest first. A speed between two is priced as the next one up.
SPEED_CLASSES: tuple[SpeedClass, ...] = (
    SpeedClass("1g", 1e9, "1 GbE", "1G", "RJ45", ""),
    SpeedClass("10g", 10e9, "10 GbE", "10G", "SFP+", "LC"),
    SpeedClass("25g", 25e9, "25 GbE", "25G", "SFP28", "LC"),
    SpeedClass("40g", 40e9, "40 GbE", "40G", "QSFP+", "MPO"),
    SpeedClass("50g", 50e9, "50 GbE", "50G", "SFP56", "LC"),
    SpeedClass("100g", 100e9, "100 GbE", "100G", "QSFP28", "MPO"),
    SpeedClass("200g", 200e9, "200 GbE", "200G", "QSFP56", "MPO"),
    SpeedClass("400g", 400e9, "400 GbE", "400G", "QSFP-DD", "MPO"),
    SpeedClass("800g", 800e9, "800 GbE", "800G", "OSFP", "MPO"),
    SpeedClass("1600g", 1.6e12, "1.6 TbE", "1.6T", "OSFP 1.6T", "MPO"),
)


def speed_class(bps: float) -> SpeedClass:
    """The speed class a link or port of `bps` is priced at: the slowest class at least as fast
    (1 GbE for anything up to 1 Gbps; 2.5 Gbps is priced as 10 GbE)."""
    for speed in SPEED_CLASSES:
        if bps <= speed.bps * (1 + 1e-9):
            return speed
    return SPEED_CLASSES[-1]  # the scenario's bounds stop at 1.6 Tbps


@dataclass(frozen=True)
class Item:
    """A line of a price list: its key, category, description and unit."""

    key: str
    category: Category
    description: str
    unit: str


def _items() -> dict[str, Item]:
    items = [Item("switch", Category.SWITCH, "switch (chassis, power supplies, fans, base licence)", "switch")]
    for s in SPEED_CLASSES:
        items.append(Item(f"switch_port_{s.key}", Category.SWITCH, f"{s.name} switch port", "port"))
    for s in SPEED_CLASSES:
        items.append(Item(f"nic_dual_{s.key}", Category.NIC, f"dual-port {s.name} NIC", "card"))
        items.append(Item(f"nic_dual_{s.key}_rdma", Category.NIC, f"dual-port {s.name} NIC, RDMA-capable", "card"))
    for s in SPEED_CLASSES[1:]:
        items.append(Item(f"dac_{s.key}", Category.TRANSCEIVER, f"{s.short} {s.form} DAC, ≤ 3 m", "DAC"))
    for s in SPEED_CLASSES[1:]:
        reach = f"{s.short} {s.form} short-reach optic (multimode, ≤ 100 m)"
        items.append(Item(f"optic_sr_{s.key}", Category.TRANSCEIVER, reach, "optic"))
    items += [
        Item("fibre_om4_lc", Category.CABLE, "OM4 multimode fibre, duplex LC, ≤ 100 m", "cable"),
        Item("fibre_om4_mpo", Category.CABLE, "OM4 multimode fibre, MPO, ≤ 100 m", "cable"),
        Item("copper_rj45", Category.CABLE, "Cat6 patch cord, RJ45, ≤ 100 m", "cable"),
    ]
    return {item.key: item for item in items}


#: Every item a bill may hold, by price-list key, in the order a bill lists them.
ITEMS: dict[str, Item] = _items()


class BillLine(BaseModel):
    """One line of the bill: how many of one item, and which parts of the scenario need them."""

    model_config = ConfigDict(frozen=True)

    item: str
    """The price-list key, e.g. ``dac_25g``."""
    category: Category
    description: str
    """In the user's words: ``25G SFP28 DAC, ≤ 3 m``."""
    quantity: int
    unit: str
    """What one of the quantity is: switch, port, card, DAC, optic, cable."""
    sources: tuple[str, ...]
    """The scenario elements it comes from: switch names, ``host/nic``, cables as ``a – b``."""


class Bill(BaseModel):
    """The bill of materials of one design, before prices."""

    model_config = ConfigDict(frozen=True)

    scenario: str
    """The scenario's name."""
    lines: tuple[BillLine, ...]
    assumptions: tuple[str, ...]
    """What the bill assumes that the scenario does not say, rules first, then each case."""

    def line(self, item: str) -> BillLine:
        """The line of `item`; KeyError if the bill has none."""
        for line in self.lines:
            if line.item == item:
                return line
        raise KeyError(f"the bill has no {item!r}")

    def quantities(self) -> dict[str, int]:
        """Quantity by item key."""
        return {line.item: line.quantity for line in self.lines}


#: The rules, each added to a bill's assumptions when the bill uses it (docs/cost.md, "Rules").
RULE_NICS = (
    "NIC ports are on dual-port add-in cards (no ports on the motherboard): a host's ports of one speed "
    "share cards, so 3 ports need 2 cards; RDMA-enabled ports go on RDMA-capable cards, priced apart, "
    "and the rest of that speed on plain cards"
)
RULE_SWITCHES = (
    "a switch is bought with all its ports (ports:, 48 when not stated): a chassis plus each port at "
    "its port_speed; without port_speed, a cabled port at its link's speed and a free port at the "
    "speed most of its cabled ports run at"
)
RULE_HOST_LINKS = (
    "host-to-switch and host-to-host cables are ≤ 3 m (same rack): one DAC per cable, or a Cat6 patch cord at 1 GbE"
)
RULE_SWITCH_LINKS = (
    "switch-to-switch cables between different stacks run between racks, ≤ 100 m: two short-reach "
    "multimode optics and one OM4 fibre per cable (a Cat6 patch cord at 1 GbE)"
)
RULE_PEER_LINKS = (
    "cables between switches of one stack (its peer links) are ≤ 3 m (same rack): one DAC each "
    "(a Cat6 patch cord at 1 GbE)"
)
RULE_LINK_SPEED = (
    "a cable's DAC or optics are for the speed the link runs at (the lowest of its NICs, switch ports and cable speed)"
)
RULE_CLASSES = "a speed between two Ethernet speeds is priced as the next one up"
RULE_VENDOR = (
    "no vendor is assumed: items are priced by speed class, whatever model a NIC states; "
    "not in the bill: servers, racks, power, spares, support contracts and labour"
)


@dataclass
class _Counts:
    """Quantities and sources gathered while walking the scenario, and the rules and notes the bill uses,
    each once, in the order first used."""

    quantity: Counter[str] = field(default_factory=Counter)
    sources: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, item: str, quantity: int, sources: Iterable[str]) -> None:
        if quantity <= 0:
            return
        self.quantity[item] += quantity
        for source in sources:
            if source not in self.sources[item]:
                self.sources[item].append(source)

    def rule(self, text: str) -> None:
        if text not in self.rules:
            self.rules.append(text)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def priced_as(self, what: str, bps: float) -> SpeedClass:
        """The speed class `bps` is priced as, noting when it is not an Ethernet speed."""
        cls = speed_class(bps)
        if abs(cls.bps - bps) > cls.bps * 1e-9:
            self.rule(RULE_CLASSES)
            self.note(f"{what}: {format_bitrate(bps)} priced as {cls.name}")
        return cls


def bill_of_materials(scenario: Scenario) -> Bill:
    """The bill of materials of `scenario`'s network (docs/cost.md): switches and their ports,
    NIC cards, DACs or optics per cable, and fibre or copper cables, with every assumption made."""
    counts = _Counts()
    _nic_cards(counts, scenario)
    cabled = _cables(counts, scenario)
    _switches(counts, scenario, cabled)
    counts.rule(RULE_VENDOR)
    lines = tuple(
        BillLine(
            item=key,
            category=item.category,
            description=item.description,
            quantity=counts.quantity[key],
            unit=item.unit,
            sources=tuple(counts.sources[key]),
        )
        for key, item in ITEMS.items()
        if counts.quantity[key] > 0
    )
    return Bill(scenario=scenario.name, lines=lines, assumptions=tuple(counts.rules + counts.notes))


def _nic_cards(counts: _Counts, scenario: Scenario) -> None:
    """NICs: per host, per speed class, dual-port cards, RDMA-capable ones apart."""
    models: dict[str, list[str]] = {}  # a NIC model stated -> the hosts that state it
    for host in scenario.hosts:
        by_class: dict[str, list[tuple[str, bool]]] = defaultdict(list)
        for nic in host.nics:
            cls = counts.priced_as(f"{host.name}/{nic.name}", nic.speed)
            by_class[cls.key].append((f"{host.name}/{nic.name}", nic.rdma))
        for key, ports in by_class.items():
            counts.rule(RULE_NICS)
            rdma = [name for name, on in ports if on]
            cards = math.ceil(len(ports) / 2)
            rdma_cards = math.ceil(len(rdma) / 2)
            plain = [name for name, on in ports if not on]
            # An RDMA card's spare port (an odd number of RDMA ports) takes a plain port first.
            plain_on_own_cards = plain[len(rdma) % 2 :]
            counts.add(f"nic_dual_{key}_rdma", rdma_cards, rdma + plain[: len(rdma) % 2])
            counts.add(f"nic_dual_{key}", cards - rdma_cards, plain_on_own_cards)
        for nic in host.nics:
            if nic.model and host.name not in models.setdefault(nic.model, []):
                models[nic.model].append(host.name)
    for model, named in models.items():
        counts.note(f"NIC model {model} stated ({', '.join(named)}): priced by speed class, not by model")


def _cables(counts: _Counts, scenario: Scenario) -> dict[str, list[SpeedClass]]:
    """Cables: each is a port at both ends; what goes into the ports depends on what it joins.
    Returns each switch's cabled ports' classes."""
    hosts = {host.name for host in scenario.hosts}
    cabled: dict[str, list[SpeedClass]] = defaultdict(list)
    for cable in scenario.cables:
        name = f"{cable.a} – {cable.b}"
        ends = [split_endpoint(end)[0] for end in (cable.a, cable.b)]
        switches = [device for device in ends if device not in hosts]
        cls = counts.priced_as(f"cable {name}", scenario.cable_speed(cable))
        counts.rule(RULE_LINK_SPEED)
        for device in switches:
            cabled[device].append(cls)
        if len(switches) == 2:
            first, second = (scenario.switch(device) for device in switches)
            same_stack = first.stack is not None and first.stack == second.stack
            if same_stack and cls.key != "1g":
                counts.rule(RULE_PEER_LINKS)
                counts.add(f"dac_{cls.key}", 1, [name])
            elif cls.key == "1g":
                counts.rule(RULE_SWITCH_LINKS if not same_stack else RULE_PEER_LINKS)
                counts.add("copper_rj45", 1, [name])
            else:
                counts.rule(RULE_SWITCH_LINKS)
                counts.add(f"optic_sr_{cls.key}", 2, [name])
                counts.add(f"fibre_om4_{cls.fibre.lower()}", 1, [name])
        else:
            counts.rule(RULE_HOST_LINKS)
            counts.add("copper_rj45" if cls.key == "1g" else f"dac_{cls.key}", 1, [name])
    return cabled


def _switches(counts: _Counts, scenario: Scenario, cabled: dict[str, list[SpeedClass]]) -> None:
    """Switches: a chassis each, and every port at its speed class; stacks bought as their members."""
    fastest_nic = max(nic.speed for host in scenario.hosts for nic in host.nics)
    for switch in scenario.switches:
        counts.rule(RULE_SWITCHES)
        counts.add("switch", 1, [switch.name])
        port_classes: Counter[str] = Counter()
        if switch.port_speed is not None:
            port_classes[counts.priced_as(f"switch {switch.name}", switch.port_speed).key] = switch.ports
        else:
            links = cabled.get(switch.name, [])
            for cls in links:
                port_classes[cls.key] += 1
            free = max(switch.ports - len(links), 0)
            if links:
                by_count = Counter(cls.key for cls in links)
                commonest = max(links, key=lambda c: (by_count[c.key], c.bps))
            else:
                commonest = speed_class(fastest_nic)
                counts.note(
                    f"switch {switch.name}: no port_speed and no cables; its ports priced at "
                    f"{commonest.name}, the fastest NIC's speed"
                )
            port_classes[commonest.key] += free
        for key, quantity in port_classes.items():
            counts.add(f"switch_port_{key}", quantity, [switch.name])
    stacks: dict[str, list[str]] = defaultdict(list)
    for s in scenario.switches:
        if s.stack:
            stacks[s.stack].append(s.name)
    for stack, members in stacks.items():
        counts.note(f"stack {stack}: {', '.join(members)} bought as {len(members)} switches")
