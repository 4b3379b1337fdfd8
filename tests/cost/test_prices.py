"""Price lists: the default one, a user's merged over it, and bad files refused with one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.cost import ITEMS, bill_of_materials, load_prices, price
from hvnet.cost.prices import _default_path
from hvnet.errors import HvnetError, InputError
from hvnet.model import parse_scenario

SCENARIO = parse_scenario(
    """
name: back to back
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 25Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 25Gbps}]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
""",
    "test.yaml",
)


def test_the_default_list_prices_every_item_and_says_it_is_examples() -> None:
    prices = load_prices()
    assert set(prices.prices) == set(ITEMS)
    assert prices.currency == "USD"
    assert prices.status.startswith("EXAMPLE PRICES, ")
    assert prices.status.endswith("for comparison only — replace with your own quote")
    assert prices.date is not None and prices.date in prices.status
    assert all(p.example and p.amount > 0 for p in prices.prices.values())
    first = Path(_default_path()).read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# {prices.status}"
    assert "example list prices (assumed)" in prices.source


def test_a_user_file_overrides_one_line(tmp_path: Path) -> None:
    mine = tmp_path / "my-prices.yaml"
    mine.write_text("prices:\n  dac_25g: 45.5\n", encoding="utf-8")
    priced = price(bill_of_materials(SCENARIO), load_prices(mine))
    dac = next(p for p in priced.lines if p.line.item == "dac_25g")
    nic = next(p for p in priced.lines if p.line.item == "nic_dual_25g")
    assert (dac.unit_price, dac.price_from, dac.example) == (45.5, f"{mine}:2", False)
    assert nic.example and nic.price_from.startswith("example (prices.yaml:")
    assert priced.total == 2 * 500 + 45.5
    assert priced.examples_used == 1 and priced.notice is not None
    assert priced.status.startswith(f"{mine}: 1 of your prices; the rest EXAMPLE PRICES")


def test_a_user_file_in_its_own_currency_prices_everything_itself(tmp_path: Path) -> None:
    mine = tmp_path / "eur.yaml"
    mine.write_text("currency: EUR\nstatus: quote 42\nprices:\n  dac_25g: 40\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        price(bill_of_materials(SCENARIO), load_prices(mine))
    message = str(caught.value)
    assert message.startswith(f"{mine}: prices: no price for nic_dual_25g (dual-port 25 GbE NIC)")
    assert "\n" not in message
    mine.write_text("currency: EUR\nstatus: quote 42\nprices:\n  dac_25g: 40\n  nic_dual_25g: 450\n", encoding="utf-8")
    priced = price(bill_of_materials(SCENARIO), load_prices(mine))
    assert (priced.currency, priced.total, priced.notice, priced.status) == ("EUR", 940.0, None, "quote 42")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("prices:\n  dac_25G: 45\n", ":2: prices.dac_25G: unknown item; did you mean dac_25g?"),
        (
            "prices:\n  switch: 100\n  gizmo: 4\n",
            ":3: prices.gizmo: unknown item; the items are listed in docs/cost.md",
        ),
        ("prices:\n  dac_25g: -5\n", ":2: prices.dac_25g: -5 is negative; a price is 0 or more"),
        ("prices:\n  dac_25g: 60 USD\n", ":2: prices.dac_25g: expected a number, got '60 USD'; write the number alone"),
        ("prices:\n  dac_25g: '60'\n", ":2: prices.dac_25g: expected a number, got '60'"),
        ("prices:\n  dac_25g: true\n", ":2: prices.dac_25g: expected a number, got true"),
        ("prices:\n  dac_25g: .inf\n", ":2: prices.dac_25g: inf is not a finite number"),
        ("prices:\n  dac_25g: [1]\n", ":2: prices.dac_25g: expected a number, got a list"),
        (
            "currency: EUR\nprice:\n  dac_25g: 4\n",
            ":2: price: unknown field; allowed: status, date, currency, source, prices",
        ),
        ("prices: [dac_25g]\n", ":1: prices: expected a mapping of item keys to prices, got a list"),
        ("currency: 12\n", ":1: currency: expected text, got 12"),
        ("- dac_25g\n", ":1: expected a mapping of status, date, currency, source, prices at the top, got a list"),
        ("", ":1: expected a mapping of status, date, currency, source, prices at the top, got nothing"),
        ("prices:\n  dac_25g: 4\n  dac_25g: 5\n", ":3: invalid YAML: duplicate key 'dac_25g'"),
    ],
)
def test_a_bad_price_file_is_refused_with_one_clear_line(tmp_path: Path, text: str, expected: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(HvnetError) as caught:
        load_prices(bad)
    message = str(caught.value)
    assert isinstance(caught.value, InputError)
    assert message.startswith(f"{bad}{expected}"), message
    assert "\n" not in message


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_prices(tmp_path / "nope.yaml")
    assert str(caught.value).startswith(f"{tmp_path / 'nope.yaml'}: cannot read the file")
