"""Counterfactuals: the scenario again with one plausible difference, to see which brings the prediction to the
measurement.

Each is a named change to the scenario's data, made with the variants'
path machinery (`hvnet.variants.paths`: ``hosts[*].nics[*].mtu`` and the like)
and validated again as a scenario. A change that would change nothing in
this scenario (VMQ off where it is already off) is skipped, with the reason.
The list (`COUNTERFACTUALS`), each applied to every host, team or switch of
the scenario:

- ``rss-one-core``: RSS off: every NIC's receive queues on one core (core 0).
- ``vmq-off``: VMQ off on every NIC (``vmq-on``: the reverse, where all are off).
- ``mtu-1500``: standard frames on every NIC and VM network adapter (where some have jumbo frames);
  ``mtu-9000``: jumbo frames on every NIC and VM network adapter (where some have not).
- ``member-down``: the last member of every team is down (removed from it).
- ``member-standby``: the last member of every team is its standby adapter.
- ``switch-hash=H``: the switches hash port channels on H instead (each of
  ``transport_ports``, ``ip_addresses``, ``mac_addresses`` it does not use).
- ``power-balanced`` / ``power-high-performance``: every host on the other power plan.
- ``link-slower``: every NIC negotiated one speed lower (10 Gbps -> 1 Gbps,
  1 Gbps -> 100 Mbps, 25 -> 10, 40 -> 25, 100 -> 50 Gbps ...).

One more comes from the measurement rather than the scenario (`cost_change`):

- ``cycles-per-byte-as-measured``: a receiver's file gives its cycles per byte;
  every receive cost of the calibration (the host's receive cores and the VM's own
  stack, per byte and per packet) is scaled by measured / predicted, so that the
  twin's receiver spends what the real one did on each byte.

Each change touches one *setting* (``vmq``, ``mtu``, ``team``, ``switch-hash``,
``power``, ``rss``, ``link-speed``, ``costs``); `combine` makes two changes of
different settings at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hvnet.calibration import Calibration
from hvnet.errors import HvnetError
from hvnet.model import Scenario, scenario_from_data
from hvnet.units import format_bitrate
from hvnet.variants.paths import places, set_value

__all__ = [
    "COST_CHANGE",
    "COUNTERFACTUALS",
    "RECEIVE_COSTS",
    "Change",
    "Counterfactual",
    "apply_change",
    "combine",
    "cost_change",
]

Data = dict[str, Any]


@dataclass(frozen=True)
class Change:
    """One counterfactual made concrete for a scenario: its name, what it does, and the changed scenario."""

    name: str
    description: str
    scenario: Scenario | None
    #: Why it does not apply to this scenario (scenario is None then).
    skipped: str = ""
    #: What it touches (two changes of one setting are not combined).
    setting: str = ""
    #: The calibration to predict it with; None: the one the explanation uses.
    calibration: Calibration | None = None


def _set_all(data: Data, path: str, value: object) -> int:
    """Sets ``value`` everywhere ``path`` points; how many places changed."""
    found = places(data, path)
    if isinstance(found, str):
        return 0
    changed = 0
    for loc in found:
        node: Any = data
        for key in loc[:-1]:
            node = node.get(key, {}) if isinstance(node, dict) else node[key]
        before = node.get(loc[-1]) if isinstance(node, dict) else None
        if before != value:
            set_value(data, loc, value)
            changed += 1
    return changed


def _at(data: Data, loc: tuple[str | int, ...]) -> Any:
    node: Any = data
    for key in loc:
        node = node[key]
    return node


def _teams(data: Data) -> list[Data]:
    found = places(data, "hosts[*].teams[*]")
    return [] if isinstance(found, str) else [_at(data, loc) for loc in found]


@dataclass(frozen=True)
class Counterfactual:
    name: str
    description: str
    #: Changes the data in place; returns why it does not apply ("" when it changed something).
    apply: Callable[[Data, Scenario], str]
    setting: str


def _rss_one_core(data: Data, scenario: Scenario) -> str:
    if all(n.rss_queues == 1 and n.rss_base_core == 0 for h in scenario.hosts for n in h.nics):
        return "every NIC already has one receive queue on core 0"
    _set_all(data, "hosts[*].nics[*].rss_queues", 1)
    _set_all(data, "hosts[*].nics[*].rss_base_core", 0)
    return ""


def _vmq(on: bool) -> Callable[[Data, Scenario], str]:
    def apply(data: Data, scenario: Scenario) -> str:
        nics = [n for h in scenario.hosts for n in h.nics]
        if on and any(n.vmq for n in nics):
            return "some NICs have VMQ on (see vmq-off)"
        if not on and not any(n.vmq for n in nics):
            return "VMQ is off on every NIC already"
        _set_all(data, "hosts[*].nics[*].vmq", on)
        return ""

    return apply


def _mtu(mtu: int) -> Callable[[Data, Scenario], str]:
    def apply(data: Data, scenario: Scenario) -> str:
        mtus = {n.mtu for h in scenario.hosts for n in h.nics} | {vm.mtu for vm in scenario.vms}
        if mtus == {mtu}:
            return f"every NIC and VM has MTU {mtu} already"
        _set_all(data, "hosts[*].nics[*].mtu", mtu)
        if scenario.vms:
            _set_all(data, "vms[*].mtu", mtu)
        return ""

    return apply


def _member_down(data: Data, scenario: Scenario) -> str:
    teams = [t for t in _teams(data) if len(t.get("members", [])) > 1]
    if not teams:
        return "no team has two members"
    for team in teams:
        gone = team["members"][-1]
        team["members"] = list(team["members"][:-1])
        if team.get("standby") == gone:
            team["standby"] = None
    return ""


def _member_standby(data: Data, scenario: Scenario) -> str:
    teams = [t for t in _teams(data) if len(t.get("members", [])) > 1 and t.get("standby") != t["members"][-1]]
    if not teams:
        return "no team has two members that are all active"
    for team in teams:
        team["standby"] = team["members"][-1]
    return ""


def _switch_hash(hash_: str) -> Callable[[Data, Scenario], str]:
    def apply(data: Data, scenario: Scenario) -> str:
        if not scenario.switches:
            return "the scenario has no switches"
        if all(str(s.port_channel_hash.value) == hash_ for s in scenario.switches):
            return f"the switches hash on {hash_} already"
        _set_all(data, "switches[*].port_channel_hash", hash_)
        return ""

    return apply


def _power(plan: str) -> Callable[[Data, Scenario], str]:
    def apply(data: Data, scenario: Scenario) -> str:
        if all(str(h.power_plan.value) == plan for h in scenario.hosts):
            return f"every host runs the {plan} plan already"
        _set_all(data, "hosts[*].power_plan", plan)
        return ""

    return apply


#: Speeds a link negotiates down to, fastest first: each NIC goes to the next one below its own.
LADDER_BPS = (400e9, 200e9, 100e9, 50e9, 40e9, 25e9, 10e9, 1e9, 100e6, 10e6)


def _slower(data: Data, scenario: Scenario) -> str:
    changed = False
    for host in scenario.hosts:
        for nic in host.nics:
            lower = next((s for s in LADDER_BPS if s < nic.speed), None)
            if lower is None:
                continue
            found = places(data, f"hosts[{host.name}].nics[{nic.name}].speed")
            if isinstance(found, str):
                continue
            for loc in found:
                set_value(data, loc, format_bitrate(lower))
                changed = True
    return "" if changed else "every NIC is at 10 Mbps already"


COUNTERFACTUALS: tuple[Counterfactual, ...] = (
    Counterfactual("rss-one-core", "RSS off: every NIC's receive queues on core 0", _rss_one_core, "rss"),
    Counterfactual("vmq-off", "VMQ off on every NIC", _vmq(False), "vmq"),
    Counterfactual("vmq-on", "VMQ on on every NIC", _vmq(True), "vmq"),
    Counterfactual("mtu-1500", "MTU 1500 (standard frames) on every NIC and VM", _mtu(1500), "mtu"),
    Counterfactual("mtu-9000", "MTU 9000 (jumbo frames) on every NIC and VM", _mtu(9000), "mtu"),
    Counterfactual("member-down", "the last member of every team down", _member_down, "team"),
    Counterfactual("member-standby", "the last member of every team in standby", _member_standby, "team"),
    Counterfactual(
        "switch-hash=transport_ports",
        "the switches hash port channels on TCP/UDP ports",
        _switch_hash("transport_ports"),
        "switch-hash",
    ),
    Counterfactual(
        "switch-hash=ip_addresses",
        "the switches hash port channels on IP addresses",
        _switch_hash("ip_addresses"),
        "switch-hash",
    ),
    Counterfactual(
        "switch-hash=mac_addresses",
        "the switches hash port channels on MAC addresses",
        _switch_hash("mac_addresses"),
        "switch-hash",
    ),
    Counterfactual("power-balanced", "every host on the balanced power plan", _power("balanced"), "power"),
    Counterfactual(
        "power-high-performance",
        "every host on the high-performance power plan",
        _power("high_performance"),
        "power",
    ),
    Counterfactual(
        "link-slower",
        "every NIC negotiated one speed lower (1 Gbps -> 100 Mbps, 10 -> 1 Gbps ...)",
        _slower,
        "link-speed",
    ),
)
_BY_NAME = {c.name: c for c in COUNTERFACTUALS}


def apply_change(scenario: Scenario, counterfactual: Counterfactual) -> Change:
    """The scenario's data with one counterfactual applied (or why it does not apply)."""
    name, description, setting = counterfactual.name, counterfactual.description, counterfactual.setting
    data: Data = scenario.model_dump(mode="json", by_alias=True)
    why = counterfactual.apply(data, scenario)
    if why:
        return Change(name, description, None, why, setting)
    try:
        changed = scenario_from_data(data, f"{scenario.source} with {name}")
    except HvnetError as error:
        first = str(error).splitlines()[0]
        return Change(name, description, None, f"the changed scenario is not valid: {first}", setting)
    return Change(name, description, changed, setting=setting)


#: The calibration's receive costs that `cost_change` scales together: the host's receiving core and the
#: VM's own stack, per byte and per packet.
RECEIVE_COSTS = (
    "receive_cycles_per_byte",
    "receive_cycles_per_packet",
    "guest_receive_cycles_per_byte",
    "guest_receive_cycles_per_packet",
)
COST_CHANGE = "cycles-per-byte-as-measured"


def cost_change(scenario: Scenario, calibration: Calibration, measured: float, predicted: float) -> Change:
    """The scenario as it is, with every receive cost times measured / predicted cycles per byte."""
    ratio = measured / predicted
    cpu = calibration.cpu
    scaled = dataclasses.replace(cpu, **{name: getattr(cpu, name) * ratio for name in RECEIVE_COSTS})
    return Change(
        COST_CHANGE,
        f"every receive cost, on the host's cores and in the VM, × {ratio:.2f}: the measured cycles/byte "
        "over the predicted",
        scenario,
        setting="costs",
        calibration=dataclasses.replace(calibration, cpu=scaled),
    )


def combine(first: Change, second: Change) -> Change:
    """Both changes at once (of different settings, both applicable): the second counterfactual made on
    the first's scenario, with the calibration either brings."""
    if first.calibration is not None:
        first, second = second, first
    name, description = f"{first.name} + {second.name}", f"{first.description}; {second.description}"
    setting = f"{first.setting}+{second.setting}"
    assert first.scenario is not None and first.setting != second.setting
    if second.calibration is not None:
        return Change(name, description, first.scenario, setting=setting, calibration=second.calibration)
    made = apply_change(first.scenario, _BY_NAME[second.name])
    return Change(name, description, made.scenario, made.skipped, setting)
