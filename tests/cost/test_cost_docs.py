"""docs/cost.md lists every item with its example price, and states the default list's status."""

from __future__ import annotations

from pathlib import Path

from hvnet.cost import ITEMS, load_prices

DOC = (Path(__file__).parents[2] / "docs" / "cost.md").read_text(encoding="utf-8")


def test_every_item_is_documented_with_its_example_price() -> None:
    prices = load_prices()
    for key, item in ITEMS.items():
        row = (
            f"| `{key}` | {item.category.value} | {item.description} | {item.unit} | {prices.prices[key].amount:,.0f} |"
        )
        assert row in DOC, key


def test_the_default_lists_status_is_quoted() -> None:
    assert f"> {load_prices().status}" in DOC
