"""What a design costs: its bill of materials, priced from a price list (docs/cost.md).

    from hvnet.cost import bill_of_materials, load_prices, price, bill_table, bill_document
    bill = bill_of_materials(scenario)            # switches, ports, NIC cards, DACs/optics, cables
    priced = price(bill, load_prices(path))       # path None: the default list (EXAMPLE PRICES)
    bill_table(priced)                            # a rich Table
    bill_document(priced)                         # JSON-ready dict
    design_cost(scenario)                         # bill and prices in one call

For a comparison, ``cost_per_unit`` (and ``cost_per_minute_saved``) says what
design B's extra cost buys per unit of a figure it improves over design A.
"""

from __future__ import annotations

import os

from hvnet.cost.bill import (
    ITEMS,
    SPEED_CLASSES,
    Bill,
    BillLine,
    Category,
    Item,
    SpeedClass,
    bill_of_materials,
    speed_class,
)
from hvnet.cost.prices import DEFAULT_PRICES, Price, PriceList, load_prices
from hvnet.cost.pricing import (
    CostPerUnit,
    PricedBill,
    PricedLine,
    Verdict,
    cost_per_minute_saved,
    cost_per_unit,
    format_money,
    price,
)
from hvnet.cost.render import DOCUMENT_VERSION, bill_document, bill_table
from hvnet.model import Scenario

__all__ = [
    "DEFAULT_PRICES",
    "DOCUMENT_VERSION",
    "ITEMS",
    "SPEED_CLASSES",
    "Bill",
    "BillLine",
    "Category",
    "CostPerUnit",
    "Item",
    "Price",
    "PriceList",
    "PricedBill",
    "PricedLine",
    "SpeedClass",
    "Verdict",
    "bill_document",
    "bill_of_materials",
    "bill_table",
    "cost_per_minute_saved",
    "cost_per_unit",
    "design_cost",
    "format_money",
    "load_prices",
    "price",
    "speed_class",
]


def design_cost(scenario: Scenario, prices: PriceList | str | os.PathLike[str] | None = None) -> PricedBill:
    """`scenario`'s bill of materials priced from `prices`: a loaded list, a user's file merged
    over the default list, or None for the default list alone."""
    if not isinstance(prices, PriceList):
        prices = load_prices(prices)
    return price(bill_of_materials(scenario), prices)
