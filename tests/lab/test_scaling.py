"""The lab's scale: rates by one factor, times by another, sizes by both; the same scenario otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

import hvnet
from hvnet.errors import UnitError
from hvnet.lab.scaling import Scale, parse_factor, scaled_data, scaled_scenario
from hvnet.model import parse_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "python" / "hvnet" / "examples").rglob("*.yaml"))
LAB = ROOT / "python" / "hvnet" / "lab" / "scenarios"


@pytest.mark.parametrize(("text", "value"), [("1/100", 0.01), ("0.01", 0.01), (" 1 / 4 ", 0.25), ("1", 1.0)])
def test_a_factor_is_a_fraction_or_a_number(text: str, value: float) -> None:
    assert parse_factor("--scale", text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["0", "2", "1/0.5", "fast", "-1/100"])
def test_a_factor_outside_0_to_1_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(UnitError, match=r"^--scale: "):
        parse_factor("--scale", text)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_at_scale_1_every_example_is_the_same_scenario(path: Path) -> None:
    """The scenario is rebuilt from its model, field by field: nothing is lost (but `requirements`)."""
    scenario = hvnet.load(path)
    again = scaled_scenario(scenario, Scale(1.0, 1.0))
    fields = [f for f in type(scenario).model_fields if f != "requirements"]
    assert all(getattr(scenario, f) == getattr(again, f) for f in fields)


def test_rates_sizes_and_times_scale_by_their_factors() -> None:
    """failover.yaml at rates 1/100, times 1/4: 10 GbE is 100 Mbit/s, 20 GB is 20 GB / 400, the failure at 5 s
    comes at 1.25 s; a VM's memory and its default device state (32 MiB) scale as sizes."""
    scenario = hvnet.load(ROOT / "python" / "hvnet" / "examples" / "failover.yaml")
    scaled = scaled_scenario(scenario, Scale(0.01, 0.25))
    assert scaled.host("hv1").nic("nic1").speed == 1e8
    assert scaled.host("hv1").nic("nic1").mtu == 9000
    assert scaled.traffic[0].size == 50_000_000
    assert [e.at for e in scaled.events] == [1.25, 3.0]
    assert scaled.vm("vm-big").memory == round(55 * 2**30 / 400)
    assert scaled.vm("vm-big").device_state == round(32 * 2**20 / 400)
    assert scaled.switch("s4810").port_speed == 1e8


def test_a_link_bound_transfer_ends_at_the_time_scale_times_its_end() -> None:
    """One 1 GbE copy (no CPU limit at that rate): at rates 1/100 and times 1/4 it ends at a quarter of its time."""
    text = (LAB / "two-hosts.yaml").read_text().replace("10Gbps", "1Gbps")
    scenario = parse_scenario(text)
    full = hvnet.simulate(scenario).traffic[0].end_s
    scaled = hvnet.simulate(scaled_scenario(scenario, Scale(0.01, 0.25))).traffic[0].end_s
    assert full is not None and scaled is not None
    assert scaled == pytest.approx(full / 4, rel=1e-9)


def test_the_file_leaves_out_defaults_and_requirements() -> None:
    scenario = hvnet.load(ROOT / "python" / "hvnet" / "examples" / "rolling-update.yaml")
    data = scaled_data(scenario, Scale(0.01, 1.0))
    assert "requirements" not in data and "fabric" not in data
    assert data["hosts"][0]["nics"][0]["speed"].endswith("bps")
