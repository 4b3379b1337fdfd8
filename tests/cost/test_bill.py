"""Bills of small designs, each worked out by hand (docs/cost.md, "Rules")."""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.cost import ITEMS, Category, bill_of_materials, design_cost, load_prices, price, speed_class
from hvnet.model import Scenario, load_scenario, parse_scenario
from hvnet.topology import leaf_spine

EXAMPLES = sorted((Path(__file__).parents[2] / "python" / "hvnet" / "examples").rglob("*.yaml"))


def _scenario(text: str) -> Scenario:
    return parse_scenario(text, "test.yaml")


BACK_TO_BACK = """
name: two hosts back to back
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 25Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 25Gbps}]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
"""

TEAMS_ON_TWO_SWITCHES = """
name: two hosts, a team of two each, on two switches
hosts:
  - name: hv1
    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
    teams: [{name: team1, members: [nic1, nic2]}]
  - name: hv2
    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
    teams: [{name: team1, members: [nic1, nic2]}]
switches:
  - {name: tor1, ports: 24}
  - {name: tor2, ports: 24}
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor2/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv2/nic2, b: tor2/2}
"""


def test_two_hosts_back_to_back() -> None:
    bill = bill_of_materials(_scenario(BACK_TO_BACK))
    # One 25 GbE port per host: one dual-port card each; the cable is one DAC (≤ 3 m); no switch.
    assert bill.quantities() == {"nic_dual_25g": 2, "dac_25g": 1}
    assert bill.line("nic_dual_25g").sources == ("hv1/nic1", "hv2/nic1")
    assert bill.line("nic_dual_25g").description == "dual-port 25 GbE NIC"
    assert bill.line("dac_25g").description == "25G SFP28 DAC, ≤ 3 m"
    assert bill.line("dac_25g").sources == ("hv1/nic1 – hv2/nic1",)
    assert bill.line("dac_25g").category is Category.TRANSCEIVER
    # 2 × 500 + 60 at the example prices
    assert price(bill, load_prices()).total == 1060.0


def test_two_hosts_with_a_team_each_on_two_switches() -> None:
    bill = bill_of_materials(_scenario(TEAMS_ON_TWO_SWITCHES))
    # Two 24-port switches, all ports at the 10 GbE its hosts' links run at; each host's two 10 GbE
    # ports share one dual-port card; four host cables, a DAC each.
    assert bill.quantities() == {"switch": 2, "switch_port_10g": 48, "nic_dual_10g": 2, "dac_10g": 4}
    assert bill.line("switch").sources == ("tor1", "tor2")
    assert bill.line("switch_port_10g").description == "10 GbE switch port"
    priced = price(bill, load_prices())
    assert priced.total == 2 * 3000 + 48 * 150 + 2 * 350 + 4 * 40
    assert priced.by_category == {"switch": 13200.0, "nic": 700.0, "transceiver": 160.0}


def test_a_leaf_spine() -> None:
    scenario = _scenario(leaf_spine(hosts=4, nic="25Gbps", leaves=2, spines=2, uplink="100Gbps"))
    bill = bill_of_materials(scenario)
    # Leaves: 2 host ports (25 GbE) + 2 uplinks (100 GbE) each; spines: 2 ports (100 GbE) each.
    # Hosts: one 25 GbE port, one card and one DAC each. Leaf-spine cables run between racks:
    # two 100G optics and one MPO fibre each.
    assert bill.quantities() == {
        "switch": 4,
        "switch_port_25g": 4,
        "switch_port_100g": 8,
        "nic_dual_25g": 4,
        "dac_25g": 4,
        "optic_sr_100g": 8,
        "fibre_om4_mpo": 4,
    }
    assert bill.line("optic_sr_100g").sources[0] == "leaf1/3 – spine1/1"
    total = 4 * 3000 + 4 * 250 + 8 * 700 + 4 * 500 + 4 * 60 + 8 * 300 + 4 * 80
    assert design_cost(scenario).total == total == 23560
    assert any("between racks" in a for a in bill.assumptions)


def test_a_stacks_peer_link_is_a_dac_and_a_1_gbe_link_copper() -> None:
    scenario = _scenario(
        """
name: stacked pair
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 1Gbps}]}
switches:
  - {name: tor1, ports: 4, stack: s1, port_speed: 25Gbps}
  - {name: tor2, ports: 4, stack: s1, port_speed: 25Gbps}
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: tor1/4, b: tor2/4}
"""
    )
    bill = bill_of_materials(scenario)
    assert bill.quantities() == {
        "switch": 2,
        "switch_port_25g": 8,  # port_speed: every port at it
        "nic_dual_1g": 1,
        "dac_25g": 1,  # the peer link
        "copper_rj45": 1,  # the host's 1 GbE link
    }


def test_cards_per_host_and_speed_with_rdma_apart() -> None:
    scenario = _scenario(
        """
name: cards
hosts:
  - name: hv1
    nics:
      - {name: a, speed: 25Gbps, rdma: true}
      - {name: b, speed: 25Gbps}
      - {name: c, speed: 25Gbps}
      - {name: d, speed: 10Gbps, rdma: true}
      - {name: e, speed: 10Gbps, rdma: true}
      - {name: f, speed: 10Gbps, rdma: true}
      - {name: g, speed: 2.5Gbps}
  - name: hv2
    nics: [{name: a, speed: 25Gbps}]
"""
    )
    bill = bill_of_materials(scenario)
    # hv1, 25 GbE: 3 ports, 2 cards; the RDMA port's card takes b, c gets a plain card.
    # hv1, 10 GbE: 3 RDMA ports and the 2.5 GbE port (priced as 10 GbE): 2 RDMA cards, the plain
    # port on the second one's spare port. hv2: one plain 25 GbE card. Nothing is cabled, no switches.
    assert bill.quantities() == {
        "nic_dual_10g_rdma": 2,
        "nic_dual_25g": 2,
        "nic_dual_25g_rdma": 1,
    }
    assert bill.line("nic_dual_25g_rdma").sources == ("hv1/a", "hv1/b")
    assert bill.line("nic_dual_25g").sources == ("hv1/c", "hv2/a")
    assert bill.line("nic_dual_25g_rdma").description == "dual-port 25 GbE NIC, RDMA-capable"
    assert bill.line("nic_dual_10g_rdma").sources == ("hv1/d", "hv1/e", "hv1/f", "hv1/g")
    assert "hv1/g: 2.5 Gbps priced as 10 GbE" in bill.assumptions


def test_a_switch_without_port_speed_prices_its_free_ports_at_its_commonest_speed() -> None:
    scenario = _scenario(
        """
name: mixed
hosts:
  - {name: hv1, nics: [{name: n1, speed: 25Gbps}, {name: n2, speed: 25Gbps}]}
  - {name: hv2, nics: [{name: n1, speed: 100Gbps}]}
switches:
  - {name: tor1, ports: 10}
  - {name: idle, ports: 8}
cables:
  - {a: hv1/n1, b: tor1/1}
  - {a: hv1/n2, b: tor1/2}
  - {a: hv2/n1, b: tor1/3}
"""
    )
    bill = bill_of_materials(scenario)
    # tor1: 2 cabled at 25, 1 at 100, 7 free at 25 (the commonest); idle: 8 at the fastest NIC's 100.
    assert bill.line("switch_port_25g").quantity == 9
    assert bill.line("switch_port_100g").quantity == 1 + 8
    assert any(a.startswith("switch idle: no port_speed and no cables") for a in bill.assumptions)


def test_every_line_is_a_known_item_in_category_order() -> None:
    bill = bill_of_materials(_scenario(leaf_spine(hosts=6, nic="10Gbps", leaves=3, spines=2, uplink="40Gbps")))
    order = list(ITEMS)
    assert [order.index(line.item) for line in bill.lines] == sorted(order.index(line.item) for line in bill.lines)
    for line in bill.lines:
        assert ITEMS[line.item].category is line.category and line.quantity > 0 and line.sources


@pytest.mark.parametrize(
    ("bps", "key"),
    [(1e8, "1g"), (1e9, "1g"), (2.5e9, "10g"), (10e9, "10g"), (25e9, "25g"), (56e9, "100g"), (1.6e12, "1600g")],
)
def test_speed_classes(bps: float, key: str) -> None:
    assert speed_class(bps).key == key


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_gets_a_bill(path: Path) -> None:
    priced = design_cost(load_scenario(path))
    assert priced.lines and priced.total > 0
    assert priced.notice is not None and priced.notice.startswith("EXAMPLE PRICES")


def test_the_rolling_update_example() -> None:
    bill = bill_of_materials(
        load_scenario(Path(__file__).parents[2] / "python" / "hvnet" / "examples" / "rolling-update.yaml")
    )
    # Three hosts with two 10 GbE RDMA NICs each on one 48-port switch.
    assert bill.quantities() == {"switch": 1, "switch_port_10g": 48, "nic_dual_10g_rdma": 3, "dac_10g": 6}
    assert any("Mellanox ConnectX-4 Lx stated (hv1, hv2, hv3)" in a for a in bill.assumptions)
