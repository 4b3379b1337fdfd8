"""The bill's table and JSON document, and what a better design costs per unit gained."""

from __future__ import annotations

import json
import math

import pytest
from rich.console import Console

from hvnet.cost import (
    DOCUMENT_VERSION,
    Verdict,
    bill_document,
    bill_table,
    cost_per_minute_saved,
    cost_per_unit,
    design_cost,
    format_money,
)
from hvnet.model import parse_scenario
from hvnet.topology import leaf_spine

PRICED = design_cost(
    parse_scenario(leaf_spine(hosts=40, nic="25Gbps", leaves=2, spines=2, uplink="100Gbps"), "ls.yaml")
)


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_table_never_cuts_a_number(width: int) -> None:
    console = Console(width=width, record=True, color_system=None)
    console.print(bill_table(PRICED))
    text = console.export_text()
    for line in PRICED.lines:
        assert format_money(line.total) in text
        assert format_money(line.unit_price) in text
    assert format_money(PRICED.total) in text and "total USD" in text
    assert "EXAMPLE PRICES" in text and "assumptions:" in text


def test_the_document() -> None:
    document = bill_document(PRICED)
    assert json.loads(json.dumps(document)) == document
    assert document["document_version"] == DOCUMENT_VERSION
    assert document["currency"] == "USD"
    assert document["total"] == PRICED.total == sum(line["total"] for line in document["lines"])
    assert document["prices"]["notice"].startswith("EXAMPLE PRICES")
    assert document["prices"]["examples_used"] == len(document["lines"])
    first = document["lines"][0]
    assert set(first) == {
        "item",
        "category",
        "description",
        "quantity",
        "unit",
        "unit_price",
        "total",
        "price_from",
        "example",
        "sources",
    }
    assert (first["item"], first["quantity"], first["unit_price"], first["total"]) == ("switch", 4, 3000.0, 12000.0)
    assert math.isclose(sum(document["by_category"].values()), document["total"])


def test_money() -> None:
    assert format_money(1234567.5) == "1,234,567.50"
    assert format_money(-12, "EUR") == "EUR -12.00"


def test_cost_per_minute_saved() -> None:
    # B costs 1,200 more and its maintenance window is 4 minutes shorter: 300 per minute saved.
    result = cost_per_minute_saved(10_000, 11_200, 30 * 60, 26 * 60)
    assert (result.verdict, result.extra_cost, result.gain, result.per_unit) == (Verdict.BETTER_FOR_MORE, 1200, 4, 300)
    assert result.describe("USD", "min") == "USD 1,200.00 more for 4 min 00 s saved: USD 300.00 per min saved"


@pytest.mark.parametrize(
    ("costs", "figures", "better", "verdict", "per_unit"),
    [
        ((100, 50), (10, 8), "lower", Verdict.BETTER_FOR_LESS, None),
        ((100, 100), (10, 8), "lower", Verdict.BETTER_FOR_LESS, None),
        ((100, 150), (10, 12), "lower", Verdict.WORSE_FOR_MORE, None),
        ((100, 150), (10, 10), "lower", Verdict.WORSE_FOR_MORE, None),
        ((100, 60), (10, 12), "lower", Verdict.WORSE_FOR_LESS, 20),
        ((100, 100), (10, 10), "lower", Verdict.SAME, None),
        ((100, 300), (10, 20), "higher", Verdict.BETTER_FOR_MORE, 20),
        ((100, 300), (None, 20), "higher", Verdict.NOT_COMPARABLE, None),
    ],
)
def test_cost_per_unit(
    costs: tuple[float, float],
    figures: tuple[float | None, float | None],
    better: str,
    verdict: Verdict,
    per_unit: float | None,
) -> None:
    result = cost_per_unit(*costs, *figures, better="higher" if better == "higher" else "lower")
    assert result.verdict is verdict
    assert result.per_unit == per_unit
    assert result.describe("USD", "unit")
