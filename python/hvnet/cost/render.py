"""A priced bill for people (a rich table) and for programs (a JSON document, docs/cost.md)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from hvnet._version import __version__
from hvnet.cost.bill import BillLine, Category
from hvnet.cost.pricing import PricedBill, format_money

__all__ = ["DOCUMENT_VERSION", "bill_document", "bill_table"]

#: The version of the document's layout; it changes when a field changes meaning or goes away.
DOCUMENT_VERSION = 1


_PLURAL = {
    Category.SWITCH.value: "switches",
    Category.NIC.value: "NICs",
    Category.TRANSCEIVER.value: "DACs and optics",
    Category.CABLE.value: "cables",
}


def _from(line: BillLine) -> str:
    """Where a line comes from, short: up to three names, else a count (the JSON lists them all)."""
    if line.category is Category.NIC:
        names = list(dict.fromkeys(source.split("/")[0] for source in line.sources))
        what = "hosts"
    elif line.category is Category.SWITCH:
        names, what = list(line.sources), "switches"
    else:
        names, what = list(line.sources), "cables"
    if len(names) <= 3:
        return ", ".join(names)
    if what == "cables":
        return f"{len(names)} cables"
    return f"{len(names)} {what}: {names[0]} … {names[-1]}"


def bill_table(priced: PricedBill) -> Table:
    """One row per line: item, quantity and unit, unit price, line total, where it comes from
    (up to three names, else a count); then a subtotal per category and the total. Numbers never wrap; the caption
    says what the prices are and lists the
    assumptions. Lines priced from the default list's examples are marked ``*``."""
    table = Table(
        title=f"bill of materials: {priced.scenario}",
        title_justify="left",
        caption_justify="left",
    )
    prices = [format_money(p.unit_price) + " *" for p in priced.lines]
    totals = [format_money(p.total) for p in priced.lines] + [format_money(priced.total)]
    quantities = [str(p.line.quantity) for p in priced.lines]
    # A number column is as wide as its widest number: rich shrinks the text columns instead.
    table.add_column("item", overflow="fold", ratio=3, min_width=10)
    table.add_column("qty", justify="right", no_wrap=True, min_width=max(map(len, quantities), default=3))
    table.add_column("unit", no_wrap=True, min_width=max((len(p.line.unit) for p in priced.lines), default=4))
    table.add_column(
        f"unit price {priced.currency}", justify="right", no_wrap=True, min_width=max(map(len, prices), default=5)
    )
    table.add_column(f"total {priced.currency}", justify="right", no_wrap=True, min_width=max(map(len, totals)))
    table.add_column("from", overflow="fold", ratio=2, min_width=6)
    for priced_line in priced.lines:
        line = priced_line.line
        table.add_row(
            line.description,
            str(line.quantity),
            line.unit,
            format_money(priced_line.unit_price) + (" *" if priced_line.example else "  "),
            format_money(priced_line.total),
            _from(line),
        )
    table.add_section()
    for category, amount in priced.by_category.items():
        table.add_row(f"subtotal: {_PLURAL[category]}", "", "", "", format_money(amount), "", style="dim")
    table.add_row(Text("total", style="bold"), "", "", "", Text(format_money(priced.total), style="bold"), "")
    caption = Text()
    if priced.notice:
        caption.append(f"* {priced.notice}\n", style="bold yellow")
    if priced.status != priced.notice:
        caption.append(f"prices: {priced.status}\n")
    caption.append("assumptions:")
    for assumption in priced.assumptions:
        caption.append(f"\n- {assumption}")
    table.caption = caption
    return table


def bill_document(priced: PricedBill) -> dict[str, Any]:
    """The priced bill as JSON-ready data (docs/cost.md, "JSON")."""
    return {
        "hvnet": __version__,
        "document_version": DOCUMENT_VERSION,
        "scenario": priced.scenario,
        "currency": priced.currency,
        "prices": {
            "status": priced.status,
            "date": priced.date,
            "files": list(priced.price_files),
            "examples_used": priced.examples_used,
            "notice": priced.notice,
        },
        "lines": [
            {
                "item": p.line.item,
                "category": p.line.category.value,
                "description": p.line.description,
                "quantity": p.line.quantity,
                "unit": p.line.unit,
                "unit_price": p.unit_price,
                "total": p.total,
                "price_from": p.price_from,
                "example": p.example,
                "sources": list(p.line.sources),
            }
            for p in priced.lines
        ],
        "by_category": dict(priced.by_category),
        "total": priced.total,
        "assumptions": list(priced.assumptions),
    }
