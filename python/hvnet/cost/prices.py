"""Price lists: the default one that ships (example prices, dated) and a user's, merged over it.

    prices = load_prices()                    # the default list: EXAMPLE PRICES, for comparison only
    prices = load_prices("my-prices.yaml")    # each line of the user's file replaces the default's

A price list is YAML (docs/cost.md, "Price lists")::

    status: "Quote 2026-113 from ACME, valid to 2027-01-31"
    currency: EUR
    prices:
      switch_port_25g: 180
      dac_25g: 45

A mistake in the file is an ``InputError`` that prints as one line,
``my-prices.yaml:4: prices.dac_25G: unknown item; did you mean dac_25g? ...``.
"""

from __future__ import annotations

import datetime
import difflib
import math
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict

from hvnet.cost.bill import ITEMS
from hvnet.errors import InputError, ScenarioError
from hvnet.model import key_part, load_yaml
from hvnet.model.yamltree import key_line, start_line
from hvnet.units import show_value

__all__ = ["DEFAULT_PRICES", "FIELDS", "Price", "PriceList", "load_prices"]

#: The list that ships with hvnet: dated example prices.
DEFAULT_PRICES = "prices.yaml"
#: The fields of a price list file, and what each holds.
FIELDS = {
    "status": "what the prices are, in one line (e.g. a quote's number and validity)",
    "date": "when the prices were set",
    "currency": "the currency of every price in the file",
    "source": "where the prices come from",
    "prices": "a mapping of item keys to prices (docs/cost.md lists the items)",
}


class Price(BaseModel):
    """One line of a price list."""

    model_config = ConfigDict(frozen=True)

    amount: float
    """The price of one unit, in the list's currency."""
    source: str
    """Where it comes from: ``my-prices.yaml:12``, or ``example (prices.yaml:17)`` for the default list."""
    example: bool
    """True for the default list's example prices."""


class PriceList(BaseModel):
    """A price per item key, in one currency, with what the prices are."""

    model_config = ConfigDict(frozen=True)

    currency: str
    status: str
    """The list's status: the default's "EXAMPLE PRICES, <date>, for comparison only — ...", or the user's."""
    date: str | None
    source: str
    files: tuple[str, ...]
    """The files merged, default first."""
    prices: dict[str, Price]
    example_status: str
    """The default list's status line, shown wherever one of its example prices is used."""


def _problem(file: str, line: int | None, field: str, message: str) -> InputError:
    return InputError(file, line, field, message)


def _text(file: str, line: int | None, field: str, value: object) -> str:
    if isinstance(value, datetime.date) and field == "date":
        return value.isoformat()
    if not isinstance(value, str) or not value.strip():
        raise _problem(file, line, field, f"expected text, got {_describe(value)}")
    if any(ord(char) < 32 for char in value):
        raise _problem(file, line, field, "expected text on one line")
    return value.strip()


def _describe(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return show_value(value)


#: The most a price may be: past a trillion of any currency a price is a typo (and sums of such prices would
#: pass the 28 digits the bill's decimal arithmetic keeps).
MAX_PRICE = 1e12


def _amount(file: str, line: int | None, field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        hint = "; write the number alone (the file's currency: says which currency)" if isinstance(value, str) else ""
        raise _problem(file, line, field, f"expected a number, got {_describe(value)}{hint}")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # a whole number past any float
        finite = False
    if not finite:
        raise _problem(file, line, field, f"{show_value(value)} is not a finite number; write a price such as 250")
    if value < 0:
        raise _problem(file, line, field, f"{show_value(value)} is negative; a price is 0 or more")
    if value > MAX_PRICE:
        raise _problem(file, line, field, f"{show_value(value)} is too large; a price is at most {MAX_PRICE:,.0f}")
    return float(value)


def _unknown_item(key: object) -> str:
    close = difflib.get_close_matches(str(key), list(ITEMS), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown item; {hint}the items are listed in docs/cost.md and in hvnet's prices.yaml"


def _read(path: str, example: bool) -> tuple[dict[str, Any], dict[str, Price]]:
    """A price list file's fields and its prices; InputError (one line) for the first mistake in it."""
    try:
        tree = load_yaml(path)
    except ScenarioError as error:  # cannot read it, not UTF-8, not YAML: the loader's words
        first = error.problems[0]
        raise _problem(first.file, first.line, first.field, first.message) from None
    name = os.path.basename(path) if example else path
    if not isinstance(tree, Mapping):
        got = "nothing" if tree is None else _describe(tree)
        raise _problem(
            path, start_line(tree) or 1, "", f"expected a mapping of {', '.join(FIELDS)} at the top, got {got}"
        )
    fields: dict[str, Any] = {}
    prices: dict[str, Price] = {}
    for key, value in tree.items():
        line = key_line(tree, key)
        field = key_part(key).removeprefix(".")
        if key not in FIELDS:
            raise _problem(path, line, field, f"unknown field; allowed: {', '.join(FIELDS)}")
        if key != "prices":
            fields[field] = _text(path, line, field, value)
            continue
        if value is None:
            continue  # `prices:` with nothing under it
        if not isinstance(value, Mapping):
            raise _problem(path, line, field, f"expected a mapping of item keys to prices, got {_describe(value)}")
        for item, amount in value.items():
            where = key_line(value, item)
            at = f"prices{key_part(item)}"
            if item not in ITEMS:
                raise _problem(path, where, at, _unknown_item(item))
            source = f"example ({name}:{where})" if example else f"{name}:{where}" if where else name
            prices[str(item)] = Price(amount=_amount(path, where, at, amount), source=source, example=example)
    return fields, prices


def _default_path() -> str:
    return str(resources.files("hvnet.cost").joinpath(DEFAULT_PRICES))


def load_prices(path: str | os.PathLike[str] | None = None) -> PriceList:
    """The default price list, with the lines of the file at `path` (if any) in place of its own.

    A user's file may set any line and any field. Where it states a currency other than the
    default's, the default's prices are left out (they cannot be mixed), so the file must price
    every item a bill needs. InputError, one line, for the first mistake in the file."""
    default_file = _default_path()
    fields, prices = _read(default_file, example=True)
    status = str(fields.get("status", ""))
    base = PriceList(
        currency=str(fields["currency"]),
        status=status,
        date=fields.get("date"),
        source=str(fields.get("source", "")),
        files=(default_file,),
        prices=prices,
        example_status=status,
    )
    if path is None:
        return base
    user = os.fspath(path)
    mine, overrides = _read(user, example=False)
    currency = str(mine.get("currency", base.currency))
    merged = dict(base.prices) if currency == base.currency else {}
    merged.update(overrides)
    if merged.keys() == overrides.keys():
        status = f"{user}: your prices"
    else:
        status = f"{user}: {len(overrides)} of your prices; the rest {base.status}"
    return PriceList(
        currency=currency,
        status=str(mine.get("status", status)),
        date=mine.get("date", base.date),
        source=str(mine.get("source", base.source)),
        files=(default_file, user),
        prices=merged,
        example_status=base.status,
    )
