"""Every variant of a file priced side by side: `hvnet cost FILE` on a file with `variants:`.

    priced = price_variants("cluster.yaml")            # one PricedVariant per variant, in order
    variants_table(priced)                             # one column per variant
    variants_document(priced)                          # JSON-ready: each variant's whole bill

A variant that changes no part of the bill (an MTU, a load-balancing algorithm) costs what the base
design costs; the table says which lines differ, so a reader sees what a dearer variant buys.
Not imported by `hvnet.cost`: it reads variants (`hvnet.variants`), which the bill alone needs not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text

from hvnet._version import __version__
from hvnet.cost import DOCUMENT_VERSION, PricedBill, PriceList, bill_document, design_cost, format_money, load_prices
from hvnet.errors import Problem, ScenarioError
from hvnet.tables.fit import FittedTable
from hvnet.tables.paragraph import Paragraph
from hvnet.variants import load_variants, show_axis_value
from hvnet.words import counted

__all__ = ["PricedVariant", "price_variants", "variants_document", "variants_table"]


@dataclass(frozen=True)
class PricedVariant:
    """One variant of a file and its priced bill."""

    #: The variant's name: ``nic=25Gbps, switches=2``; ``base`` for a file without variants.
    name: str
    #: Its value on each axis of the file.
    values: dict[str, object]
    priced: PricedBill


def price_variants(
    path: str | os.PathLike[str], prices: PriceList | str | os.PathLike[str] | None = None
) -> list[PricedVariant]:
    """Every variant of the file at `path`, priced from `prices` (as `design_cost`); ScenarioError lists
    every problem of the file and of its variants at once."""
    design = load_variants(path)
    price_list = prices if isinstance(prices, PriceList) else load_prices(prices)
    priced: list[PricedVariant] = []
    problems: list[Problem] = []
    for variant in design:
        try:
            scenario = design.scenario(variant)
        except ScenarioError as error:
            problems.extend(error.problems)
            continue
        values = {axis.name: value for axis, value in zip(design.axes, variant.values)}
        priced.append(PricedVariant(variant.name, values, design_cost(scenario, price_list)))
    if problems:
        raise ScenarioError(dict.fromkeys(problems))
    return priced


def _differing(variants: list[PricedVariant]) -> tuple[set[str], float]:
    """The items whose quantity is not the same in every variant's bill (one it lacks counts as 0), and
    what the others cost (the same in each)."""
    counts: dict[str, set[int]] = {}
    for variant in variants:
        for priced_line in variant.priced.lines:
            counts.setdefault(priced_line.line.item, set()).add(priced_line.line.quantity)
    differ = {
        item
        for item, quantities in counts.items()
        if len(quantities) > 1 or any(item not in {p.line.item for p in v.priced.lines} for v in variants)
    }
    same = sum(p.total for p in variants[0].priced.lines if p.line.item not in differ)
    return differ, same


def _what_differs(variant: PricedVariant, differ: set[str]) -> str:
    """The lines of a variant's bill that differ between variants, one a line: ``4 × dual-port 25 GbE NIC
    (2,000.00)``."""
    return "\n".join(
        f"{p.line.quantity}\u00a0×\u00a0{p.line.description}\u00a0({format_money(p.total)})"  # wraps only in the words
        for p in variant.priced.lines
        if p.line.item in differ
    )


def variants_table(variants: list[PricedVariant]) -> Group:
    """One row per variant: its value on each axis, its total, what it costs more than the cheapest,
    and the lines of its bill that differ between variants (what the extra buys). Names and numbers
    never wrap. Under it (wrapped at the console's width, not the table's), what the other lines cost
    and what the prices are."""
    priced = [v.priced for v in variants]
    currency = priced[0].currency
    table = FittedTable(
        title=f"bill of materials of {len(variants)} variants: {priced[0].scenario} ({currency})",
        title_justify="left",
        caption_justify="left",
    )
    axes = list(variants[0].values)
    names = [[show_axis_value(v.values[axis]) for axis in axes] if axes else [v.name] for v in variants]
    for k, axis in enumerate(axes or ["variant"]):
        table.add_column(axis, no_wrap=True, min_width=max(len(axis), *(len(row[k]) for row in names)))
    cheapest = min(p.total for p in priced)
    totals = [format_money(p.total) for p in priced]
    more = ["cheapest" if p.total == cheapest else f"+{format_money(p.total - cheapest)}" for p in priced]
    table.add_column("total", justify="right", no_wrap=True, min_width=max(map(len, totals)))
    table.add_column("more than\nthe cheapest", justify="right", no_wrap=True, min_width=max(9, *map(len, more)))
    differ, same = _differing(variants)
    if differ:
        table.add_column("the lines that differ", overflow="fold", ratio=1, min_width=16)
    for variant, row, total, extra in zip(variants, names, totals, more):
        cells: list[str | Paragraph] = [*row, total, extra]
        cells += [Paragraph(_what_differs(variant, differ))] if differ else []
        table.add_row(*cells, style="bold" if extra == "cheapest" and differ else None)
    notes = Text()
    noticed = next((p.notice for p in priced if p.notice), None)
    if noticed:
        notes.append(f"* {noticed}\n", style="bold yellow")
    if priced[0].status != noticed:
        notes.append(f"prices: {priced[0].status}\n")
    others = len({p.line.item for p in priced[0].lines} - differ)
    if not differ:
        notes.append("every variant buys the same; ")
    elif others:
        notes.append(f"the same in every variant: {counted(others, 'other line')}, {format_money(same, currency)}; ")
    notes.append("each variant's whole bill, its prices and assumptions: hvnet cost --json")
    return Group(table, notes)


def variants_document(variants: list[PricedVariant]) -> dict[str, Any]:
    """Every variant's priced bill as JSON-ready data (docs/cost.md, "Variants")."""
    return {
        "hvnet": __version__,
        "document_version": DOCUMENT_VERSION,
        "scenario": variants[0].priced.scenario,
        "currency": variants[0].priced.currency,
        "variants": [
            {"variant": v.name, "values": v.values, "total": v.priced.total, "bill": bill_document(v.priced)}
            for v in variants
        ],
    }
