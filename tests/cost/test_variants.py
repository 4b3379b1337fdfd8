"""`hvnet cost` on a file with variants: every variant priced, side by side (issue "Readable everywhere").

The file: four hosts with one NIC each on a 4-port switch, at 10 or 25 Gbps, MTU 1500 or 9000. At the
example prices (docs/cost.md) a 10 GbE variant buys a switch (3,000), 4 × 10 GbE ports (600), 4 dual-port
10 GbE NICs (1,400) and 4 DACs (160): 5,160.00; a 25 GbE variant 3,000 + 1,000 + 2,000 + 240 = 6,240.00.
The MTU changes nothing that is bought.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import Result

from hvnet.cost import design_cost
from hvnet.cost.variants import price_variants, variants_document, variants_table
from hvnet.variants import load_variants

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

FOUR_HOSTS = """
name: Four hosts
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv3, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv4, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: switch, ports: 4}]
cables:
  - {a: hv1/nic1, b: switch/1}
  - {a: hv2/nic1, b: switch/2}
  - {a: hv3/nic1, b: switch/3}
  - {a: hv4/nic1, b: switch/4}
traffic: [{from: hv1, to: hv2, size: 1GB}]
"""
VARIANTS = """
variants:
  nic: {set: "hosts[*].nics[*].speed", values: [10Gbps, 25Gbps]}
  mtu: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
"""


def test_every_variant_is_priced_in_order_as_its_own_design_would_be(write: WriteFile) -> None:
    path = write("v.yaml", FOUR_HOSTS + VARIANTS)
    priced = price_variants(path)
    assert [(v.name, v.values, v.priced.total) for v in priced] == [
        ("nic=10Gbps, mtu=1500", {"nic": "10Gbps", "mtu": 1500}, 5160.0),
        ("nic=10Gbps, mtu=9000", {"nic": "10Gbps", "mtu": 9000}, 5160.0),
        ("nic=25Gbps, mtu=1500", {"nic": "25Gbps", "mtu": 1500}, 6240.0),
        ("nic=25Gbps, mtu=9000", {"nic": "25Gbps", "mtu": 9000}, 6240.0),
    ]
    design = load_variants(path)
    assert [v.priced for v in priced] == [design_cost(design.scenario(variant)) for variant in design]


def test_the_table_has_a_row_per_variant_its_total_the_extra_and_the_lines_that_differ(write: WriteFile) -> None:
    """The switch is in every variant's bill: it is left out of the rows and priced once under the table.
    At 80 columns a line that differs wraps inside its description, never between a count or a price and it."""
    console = Console(width=80, record=True)
    console.print(variants_table(price_variants(write("v.yaml", FOUR_HOSTS + VARIANTS))))
    text = console.export_text()
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]
    assert [row[:4] for row in rows if row[0]] == [
        ["10Gbps", "1500", "5,160.00", "cheapest"],
        ["10Gbps", "9000", "5,160.00", "cheapest"],
        ["25Gbps", "1500", "6,240.00", "+1,080.00"],
        ["25Gbps", "9000", "6,240.00", "+1,080.00"],
    ]
    assert [row[4] for row in rows[:3]] == ["4 × 10 GbE switch port (600.00)", "4 × dual-port 10 GbE", "NIC (1,400.00)"]
    assert "4 × 25G SFP28 DAC, ≤ 3 m (240.00)" in text and "switch (chassis" not in text
    assert text.startswith("bill of materials of 4 variants: Four hosts (USD)")
    assert "* EXAMPLE PRICES" in text
    assert "the same in every variant: 1 other line, USD 3,000.00; each variant's whole" in text


def test_variants_that_buy_the_same_say_so(write: WriteFile) -> None:
    mtu_only = FOUR_HOSTS + 'variants:\n  mtu: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}\n'
    console = Console(width=80, record=True)
    console.print(variants_table(price_variants(write("v.yaml", mtu_only))))
    text = console.export_text()
    assert "the lines that differ" not in text and "every variant buys the same" in text
    assert [line.split()[1:4] for line in text.splitlines() if line.startswith("│")] == [
        ["1500", "│", "5,160.00"],
        ["9000", "│", "5,160.00"],
    ]


def test_cost_prints_the_variants_side_by_side_and_json_has_every_variants_bill(cli: Invoke, write: WriteFile) -> None:
    path = write("v.yaml", FOUR_HOSTS + VARIANTS)
    table = cli("cost", path)
    assert table.exit_code == 0, table.stderr
    assert "bill of materials of 4 variants" in table.stdout and "+1,080.00" in table.stdout
    result = cli("cost", path, "--json", "-")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document == variants_document(price_variants(path))
    assert [(v["variant"], v["values"], v["total"]) for v in document["variants"]] == [
        ("nic=10Gbps, mtu=1500", {"nic": "10Gbps", "mtu": 1500}, 5160.0),
        ("nic=10Gbps, mtu=9000", {"nic": "10Gbps", "mtu": 9000}, 5160.0),
        ("nic=25Gbps, mtu=1500", {"nic": "25Gbps", "mtu": 1500}, 6240.0),
        ("nic=25Gbps, mtu=9000", {"nic": "25Gbps", "mtu": 9000}, 6240.0),
    ]
    bill = document["variants"][2]["bill"]
    assert bill["total"] == 6240.0 and [line["item"] for line in bill["lines"]] == [
        "switch",
        "switch_port_25g",
        "nic_dual_25g",
        "dac_25g",
    ]
    assert (document["currency"], document["scenario"], document["document_version"]) == ("USD", "Four hosts", 1)


def test_a_price_file_prices_every_variant(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    mine = tmp_path / "prices.yaml"
    mine.write_text("currency: USD\nprices:\n  dac_25g: 10\n")
    result = cli("cost", write("v.yaml", FOUR_HOSTS + VARIANTS), "--prices", mine, "--json", "-")
    assert [v["total"] for v in json.loads(result.stdout)["variants"]] == [5160.0, 5160.0, 6040.0, 6040.0]


@pytest.mark.parametrize(
    ("axis", "message"),
    [
        ('  nic: {set: "hosts[*].nics[*].speed", values: [10Gbps, 25Gbs]}\n', "variants.nic.values[1]: with '25Gbs'"),
        ('  nic: {set: "hosts[*].nic.speed", values: [10Gbps]}\n', "hosts[0].nic: unknown field"),
    ],
)
def test_a_bad_variant_is_one_line(cli: Invoke, write: WriteFile, axis: str, message: str) -> None:
    path = write("v.yaml", FOUR_HOSTS + "variants:\n" + axis)
    result = cli("cost", path)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{path}:") and message in line


def test_the_documented_example_is_what_cost_prints(write: WriteFile, tmp_path: Path) -> None:
    """docs/cost.md, "Variants": the generated star with two axes, at 80 columns, as printed."""
    from typer.testing import CliRunner

    from hvnet.cli import app

    runner = CliRunner(env={"COLUMNS": "80", "FORCE_COLOR": None, "TTY_COMPATIBLE": None})
    star = runner.invoke(app, ["topology", "star", "--hosts", "4", "--vms", "2", "--drain", "hv1"]).stdout
    axes = 'variants:\n  nic: {set: "hosts[*].nics[*].speed", values: [10Gbps, 25Gbps]}\n'
    axes += '  mtu: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}\n'
    printed = runner.invoke(app, ["cost", str(write("v.yaml", star + axes))]).stdout
    docs = (Path(__file__).parents[2] / "docs" / "cost.md").read_text()
    shown = docs.split("## Variants", 1)[1].split("```\n", 2)[1]
    assert [line.rstrip() for line in printed.splitlines()] == shown.splitlines()
