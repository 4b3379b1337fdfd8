"""The public live-migration measurements (issue 23, python/hvnet/validate/measurements.yaml): each has
a source a reader can find, its setup as the source states it, what the source leaves unstated, and
the figures as the source writes them; the set is large enough to cross-validate on."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

KINDS = {"blog", "talk", "whitepaper", "paper", "docs", "forum"}
OPTIONS = {"tcp_ip", "compression", "smb", "smb_direct", "unknown", None}


def measurements() -> list[dict[str, Any]]:
    text = resources.files("hvnet.validate").joinpath("measurements.yaml").read_text(encoding="utf-8")
    entries = yaml.safe_load(text)["measurements"]
    assert isinstance(entries, list)
    return entries


def test_every_measurement_says_where_it_is_from_and_what_it_does_not_say() -> None:
    entries = measurements()
    assert len({m["id"] for m in entries}) == len(entries)
    for m in entries:
        source = m["source"]
        assert isinstance(source, dict) and source["title"] and source["kind"] in KINDS, m["id"]
        assert isinstance(m["setup"], dict) and isinstance(m["unstated"], list), m["id"]
        assert m["setup"].get("option") in OPTIONS, m["id"]
        results = m["result"]
        assert isinstance(results, list) and all(r["what"] and r["value"] for r in results), m["id"]
        assert m["quote"] is None or len(m["quote"]) <= 300, m["id"]


def test_the_set_is_large_enough_to_cross_validate_on() -> None:
    """Issue 23 asks for at least 25 sourced measurements, Hyper-V first."""
    entries = measurements()
    hyper_v = [m for m in entries if m["hypervisor"] == "hyper-v"]
    assert len(entries) >= 25 and len(hyper_v) >= 18


def test_every_hyper_v_measurement_is_a_case_or_says_why_not() -> None:
    """Each Hyper-V measurement is compared by figures of `hvnet validate` (coverage.FIGURES) or listed with
    the reason it cannot be (coverage.NOT_CASES, which the module's docstring lists too); every figure named
    exists, and every figure of `hvnet validate` but V1 (ntttcp between VMs, not a migration) comes from one."""
    from hvnet.validate import coverage, run_validation

    entries = {m["id"]: m for m in measurements()}
    hyper_v = {i for i, m in entries.items() if m["hypervisor"] == "hyper-v"}
    not_cases = {m for m, _, _ in coverage.NOT_CASES}
    assert hyper_v <= set(coverage.FIGURES) | not_cases
    assert set(coverage.FIGURES) | not_cases <= hyper_v
    assert all(why and figure for _, figure, why in coverage.NOT_CASES)
    doc = coverage.__doc__ or ""
    assert all(f"- {m}," in doc for m in not_cases)
    checks = {c.id for c in run_validation()}
    named = [f for figures in coverage.FIGURES.values() for f in figures]
    assert len(named) == len(set(named)) and set(named) <= checks
    assert {c.split("/")[0] for c in checks - set(named)} == {"V1"}
