"""Each rule: a small design that triggers it, and one that does not."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from hvnet.advise import RULES, advise
from hvnet.model import Scenario, scenario_from_data


def _host(name: str, **extra: Any) -> dict[str, Any]:
    """A host as the tuned designs have it: SET of two 25 Gbps RDMA NICs, jumbo, RSS off core 0, high performance."""
    host: dict[str, Any] = {
        "name": name,
        "power_plan": "high_performance",
        "cpu": {"sockets": 2, "cores_per_socket": 16, "deepest_c_state": "c1"},
        "live_migration": {"option": "smb"},
        "nics": [
            {"name": "nic1", "speed": "25Gbps", "mtu": 9000, "rdma": True, "rss_base_core": 1},
            {"name": "nic2", "speed": "25Gbps", "mtu": 9000, "rdma": True, "rss_base_core": 9},
        ],
        "teams": [{"name": "set1", "kind": "set", "members": ["nic1", "nic2"], "load_balancing": "hyperv_port"}],
        "vswitches": [{"name": "vSwitch", "uplink": "set1"}],
    }
    host.update(extra)
    return host


def _good() -> dict[str, Any]:
    """Two hosts, each NIC to its own switch of an MLAG pair: no rule fires."""
    return {
        "name": "good",
        "hosts": [_host("hv1"), _host("hv2")],
        "switches": [{"name": "tor1", "stack": "pair"}, {"name": "tor2", "stack": "pair"}],
        "cables": [
            {"a": "hv1/nic1", "b": "tor1/1"},
            {"a": "hv1/nic2", "b": "tor2/1"},
            {"a": "hv2/nic1", "b": "tor1/2"},
            {"a": "hv2/nic2", "b": "tor2/2"},
            {"a": "tor1/48", "b": "tor2/48", "speed": "100Gbps"},
        ],
        "vms": [{"name": "vm1", "host": "hv1", "memory": "8GiB", "vswitch": "vSwitch"}],
    }


def _lbfo(data: dict[str, Any], **team: Any) -> None:
    """Turns every host's team into an LBFO team with these settings."""
    for host in data["hosts"]:
        host["teams"] = [{"name": "set1", "kind": "lbfo", "members": ["nic1", "nic2"], **team}]


def _rules(data: dict[str, Any]) -> set[str]:
    return {f.rule for f in advise(scenario_from_data(data), simulate_effects=False)}


def test_the_good_design_has_no_findings() -> None:
    assert _rules(_good()) == set()


Edit = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _each_host(edit: Callable[[dict[str, Any]], None]) -> Edit:
    def apply(data: dict[str, Any]) -> None:
        for host in data["hosts"]:
            edit(host)

    return apply


def _one_switch(data: dict[str, Any]) -> None:
    data["cables"] = [c for c in data["cables"] if not c["a"].startswith("tor")]
    for cable in data["cables"]:
        cable["b"] = cable["b"].replace("tor2/", "tor1/1")


def _switch_mtu(mtu: int) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        for switch in data["switches"]:
            switch["mtu"] = mtu

    return edit


def _nic(host: int, nic: int, **fields: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["hosts"][host]["nics"][nic].update(fields)

    return edit


def _all_nics(**fields: Any) -> Edit:
    def edit(host: dict[str, Any]) -> None:
        for nic in host["nics"]:
            nic.update(fields)

    return _each_host(edit)


def _both(*edits: Edit) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        for e in edits:
            e(data)

    return edit


# rule id -> (an edit of the good design that triggers it, a near miss that does not)
CASES: dict[str, tuple[Edit, Edit]] = {
    "lbfo-mixed-speed": (
        _both(_lbfo, _nic(0, 1, speed="10Gbps", rdma=False)),
        _lbfo,  # LBFO, same speeds (other rules fire; not this one)
    ),
    "lbfo-vswitch-deprecated": (
        _lbfo,
        _both(_lbfo, _each_host(lambda h: h.update(vswitches=[])), lambda d: d.update(vms=[])),
        # an LBFO team under no virtual switch is fine
    ),
    "lbfo-rdma-lost": (
        _lbfo,
        _both(_lbfo, _all_nics(rdma=False)),
    ),
    "hvport-one-member": (
        lambda d: _lbfo(d, load_balancing="hyperv_port"),
        lambda d: _lbfo(d, load_balancing="hyperv_port", standby="nic2"),  # one active member: nothing to spread
    ),
    "si-address-hash-inbound": (
        lambda d: _lbfo(d, load_balancing="address_hash"),
        lambda d: _lbfo(d, load_balancing="address_hash", standby="nic2"),  # S2's active/standby exception
    ),
    "lbfo-prefer-dynamic": (
        _both(lambda d: _lbfo(d, load_balancing="address_hash", mode="lacp")),
        lambda d: _lbfo(d, load_balancing="dynamic", mode="lacp"),
    ),
    "set-hvport-fast-nics": (
        _each_host(lambda h: h["teams"][0].update(load_balancing="dynamic")),
        _both(
            _each_host(lambda h: h["teams"][0].update(load_balancing="dynamic")),
            _all_nics(speed="1Gbps", rdma=False),  # below 10 Gbps S6 says nothing
        ),
    ),
    "single-switch-spof": (_one_switch, lambda d: None),
    "mtu-switch-drops": (_switch_mtu(1500), _both(_switch_mtu(1500), _all_nics(mtu=1500))),
    "mtu-end-to-end": (_both(_nic(1, 0, mtu=1500), _nic(1, 1, mtu=1500)), _all_nics(mtu=1500)),
    "jumbo-frames": (_all_nics(mtu=1500), _both(_all_nics(mtu=1500, speed="1Gbps", rdma=False))),
    "rss-core0": (_nic(0, 0, rss_base_core=0), lambda d: None),
    "rss-overlap": (_nic(0, 1, rss_base_core=4), _nic(0, 1, rss_base_core=20)),
    "vmq-off-on-vswitch": (_nic(0, 0, vmq=False), _all_nics(vmq=False, speed="1Gbps", rdma=False)),
    "vmq-on-1gbe": (_all_nics(speed="1Gbps", rdma=False), _both(_all_nics(speed="1Gbps", rdma=False, vmq=False))),
    "lm-transport-choice": (
        _each_host(lambda h: h.update(live_migration={"option": "compression"})),
        _both(_each_host(lambda h: h.update(live_migration={"option": "compression"})), _all_nics(rdma=False)),
    ),
    "lm-simultaneous": (
        _each_host(lambda h: h.update(live_migration={"option": "smb", "simultaneous": 4})),
        _each_host(lambda h: h.update(live_migration={"option": "smb", "simultaneous": 2})),
    ),
    "power-plan": (
        _each_host(lambda h: h.update(power_plan="balanced")),
        _each_host(lambda h: h.update(power_plan="high_performance")),
    ),
}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_fires(rule: str) -> None:
    data = copy.deepcopy(_good())
    CASES[rule][0](data)
    assert rule in _rules(data)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_the_rule_holds_on_the_near_miss(rule: str) -> None:
    data = copy.deepcopy(_good())
    CASES[rule][1](data)
    assert rule not in _rules(data)


def test_transport_says_compression_without_rdma() -> None:
    """SMB with no RDMA interface: below S6's 5 Gbps for SMB Direct, so compression."""
    data = _both(_all_nics(rdma=False))
    scenario = copy.deepcopy(_good())
    data(scenario)
    [finding] = [
        f for f in advise(scenario_from_data(scenario), simulate_effects=False) if f.rule == "lm-transport-choice"
    ]
    assert finding.fix.cmdlet == "Set-VMHost -VirtualMachineMigrationPerformanceOption Compression"
    assert {c.value for c in finding.fix.changes} == {"compression"}


def test_findings_are_sorted_by_severity_then_rule_order() -> None:
    data = copy.deepcopy(_good())
    _lbfo(data, load_balancing="address_hash", mode="lacp")
    data["hosts"][0]["nics"][1].update(speed="10Gbps", rdma=False)
    _each_host(lambda h: h.update(power_plan="balanced"))(data)
    findings = advise(scenario_from_data(data), simulate_effects=False)
    ranks = [f.severity.rank for f in findings]
    assert ranks == sorted(ranks) and findings[0].rule == "lbfo-mixed-speed"
    assert findings == advise(scenario_from_data(data), simulate_effects=False)


def test_unconfirmed_rules_say_so() -> None:
    data = copy.deepcopy(_good())
    _both(_nic(1, 0, mtu=1500), _nic(1, 1, mtu=1500))(data)
    [finding] = [f for f in advise(scenario_from_data(data), simulate_effects=False) if f.rule == "mtu-end-to-end"]
    assert not finding.confirmed and finding.note is not None and finding.note.startswith("Not confirmed")


def _scenario(edit: Edit) -> Scenario:
    data = copy.deepcopy(_good())
    edit(data)
    return scenario_from_data(data)
