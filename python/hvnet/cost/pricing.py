"""A bill with prices, and what a better design costs per unit of what it improves.

priced = price(bill_of_materials(scenario), load_prices())
priced.total                                  # in priced.currency
cost_per_minute_saved(cheap.total, dear.total, cheap_window_s, dear_window_s).per_unit
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hvnet.cost.bill import Bill, BillLine, Category
from hvnet.cost.prices import PriceList
from hvnet.errors import InputError
from hvnet.units import human_duration

__all__ = [
    "CostPerUnit",
    "PricedBill",
    "PricedLine",
    "Verdict",
    "cost_per_minute_saved",
    "cost_per_unit",
    "format_money",
    "price",
]


class PricedLine(BaseModel):
    """A line of the bill with its unit price and total."""

    model_config = ConfigDict(frozen=True)

    line: BillLine
    unit_price: float
    total: float
    """quantity × unit price, to the cent."""
    price_from: str
    """Where its price comes from: ``my-prices.yaml:12``, or ``example (prices.yaml:17)``."""
    example: bool
    """Its price is one of the default list's examples."""


class PricedBill(BaseModel):
    """A bill of materials with prices: its lines, their total, and what the prices are."""

    model_config = ConfigDict(frozen=True)

    scenario: str
    currency: str
    lines: tuple[PricedLine, ...]
    total: float
    by_category: dict[str, float]
    """The total of each category that has lines: switch, nic, transceiver, cable."""
    status: str
    """The price list's status line."""
    date: str | None
    price_files: tuple[str, ...]
    examples_used: int
    """How many lines are priced from the default list's examples."""
    notice: str | None
    """The example list's status ("EXAMPLE PRICES, <date>, for comparison only — ...") when a line uses it."""
    assumptions: tuple[str, ...]


def _cents(value: Decimal) -> float:
    return float(value.quantize(Decimal("0.01")))


def price(bill: Bill, prices: PriceList) -> PricedBill:
    """`bill` priced from `prices`; InputError when the list has no price for one of its items
    (only possible with a user's list in another currency than the default's)."""
    lines: list[PricedLine] = []
    sums: dict[str, Decimal] = {}
    for line in bill.lines:
        entry = prices.prices.get(line.item)
        if entry is None:
            user = prices.files[-1]
            message = (
                f"no price for {line.item} ({line.description}), which the bill of {bill.scenario!r} needs; "
                f"add it (the list is in {prices.currency}, so the default's example prices do not fill in)"
            )
            raise InputError(user, None, "prices", message)
        total = Decimal(repr(entry.amount)) * line.quantity
        sums[line.category.value] = sums.get(line.category.value, Decimal(0)) + total
        lines.append(
            PricedLine(
                line=line, unit_price=entry.amount, total=_cents(total), price_from=entry.source, example=entry.example
            )
        )
    examples = sum(priced.example for priced in lines)
    by_category = {c.value: _cents(sums[c.value]) for c in Category if c.value in sums}
    return PricedBill(
        scenario=bill.scenario,
        currency=prices.currency,
        lines=tuple(lines),
        total=_cents(sum(sums.values(), Decimal(0))),
        by_category=by_category,
        status=prices.status,
        date=prices.date,
        price_files=prices.files,
        examples_used=examples,
        notice=prices.example_status if examples else None,
        assumptions=bill.assumptions,
    )


def format_money(amount: float, currency: str | None = None) -> str:
    """``12,345.00``, or ``USD 12,345.00`` with a currency; negative amounts with a minus sign."""
    text = f"{amount:,.2f}"
    return f"{currency} {text}" if currency else text


class Verdict(str, Enum):
    """How design B compares with design A, on cost and on one figure."""

    BETTER_FOR_MORE = "better_for_more"
    """B costs more and does better: per_unit is what each unit gained costs."""
    BETTER_FOR_LESS = "better_for_less"
    """B costs no more and does better (or the same for less): no trade-off, B wins."""
    WORSE_FOR_LESS = "worse_for_less"
    """B costs less and does worse: per_unit is what each unit given up saves."""
    WORSE_FOR_MORE = "worse_for_more"
    """B costs no less and does worse (or the same for more): no trade-off, A wins."""
    SAME = "same"
    """Same cost, same figure."""
    NOT_COMPARABLE = "not_comparable"
    """A figure is missing (e.g. a design never finished its maintenance window)."""


@dataclass(frozen=True)
class CostPerUnit:
    """What design B's difference in cost buys, per unit of one figure, against design A."""

    extra_cost: float
    """cost_b − cost_a: what B costs more (negative: less)."""
    gain: float | None
    """How much better B's figure is, in the figure's unit: figure_a − figure_b where lower is better,
    figure_b − figure_a where higher is; None when a figure is missing."""
    per_unit: float | None
    """extra_cost / gain, when that is a trade-off (better for more, or worse for less); None otherwise."""
    verdict: Verdict

    def describe(self, currency: str, unit: str, gained: str = "saved", lost: str = "lost") -> str:
        """In words: ``USD 1,200.00 more for 4 min 00 s saved: USD 300.00 per min saved`` (a gain of
        minutes written as every time is, `human_duration`)."""
        cost = format_money(abs(self.extra_cost), currency)
        if self.verdict is Verdict.NOT_COMPARABLE or self.gain is None:
            return f"{cost} {'more' if self.extra_cost >= 0 else 'less'}; not comparable (a figure is missing)"
        if self.verdict is Verdict.SAME:
            return "same cost, same figure"
        size = human_duration(abs(self.gain) * 60) if unit == "min" else f"{abs(self.gain):,.2f} {unit}"
        amount = f"{size} {gained if self.gain > 0 else lost}"
        if self.verdict is Verdict.BETTER_FOR_MORE and self.per_unit is not None:
            return f"{cost} more for {amount}: {format_money(self.per_unit, currency)} per {unit} {gained}"
        if self.verdict is Verdict.WORSE_FOR_LESS and self.per_unit is not None:
            return f"{cost} less for {amount}: {format_money(self.per_unit, currency)} saved per {unit} {lost}"
        if self.gain == 0:
            return f"{cost} {'more' if self.extra_cost > 0 else 'less'} for the same figure"
        return f"{cost} {'less' if self.extra_cost < 0 else 'more'} for {amount}"


def cost_per_unit(
    cost_a: float,
    cost_b: float,
    figure_a: float | None,
    figure_b: float | None,
    better: Literal["lower", "higher"] = "lower",
) -> CostPerUnit:
    """What B costs per unit of a figure it improves over A (docs/cost.md, "Cost per unit").

    gain = figure_a − figure_b when lower is better (a maintenance window), figure_b − figure_a when
    higher is (a throughput); per_unit = (cost_b − cost_a) / gain, given only for a trade-off: B costs
    more and gains (the price of each unit gained), or B costs less and loses (the saving per unit given up).
    """
    extra = cost_b - cost_a
    if figure_a is None or figure_b is None or not (math.isfinite(figure_a) and math.isfinite(figure_b)):
        return CostPerUnit(extra, None, None, Verdict.NOT_COMPARABLE)
    gain = figure_a - figure_b if better == "lower" else figure_b - figure_a
    if gain == 0 and extra == 0:
        return CostPerUnit(extra, gain, None, Verdict.SAME)
    if gain > 0 and extra > 0:
        return CostPerUnit(extra, gain, extra / gain, Verdict.BETTER_FOR_MORE)
    if gain < 0 and extra < 0:
        return CostPerUnit(extra, gain, extra / gain, Verdict.WORSE_FOR_LESS)
    if gain >= 0 and extra <= 0:
        return CostPerUnit(extra, gain, None, Verdict.BETTER_FOR_LESS)
    return CostPerUnit(extra, gain, None, Verdict.WORSE_FOR_MORE)


def cost_per_minute_saved(
    cost_a: float, cost_b: float, seconds_a: float | None, seconds_b: float | None
) -> CostPerUnit:
    """``cost_per_unit`` of a duration where shorter is better (a maintenance window, a drain), in
    minutes: per_unit is B's extra cost per minute it saves. Durations are given in seconds."""
    minutes_a = None if seconds_a is None else seconds_a / 60
    minutes_b = None if seconds_b is None else seconds_b / 60
    return cost_per_unit(cost_a, cost_b, minutes_a, minutes_b, better="lower")
