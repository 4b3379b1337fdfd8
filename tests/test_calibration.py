"""Every parameter has one home, a value, a unit, a source and an uncertainty (issue 11)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hvnet.calibration import Calibration, CpuParameters, calibration_markdown
from hvnet.errors import InputError

MODEL_DOC = Path(__file__).parents[1] / "docs" / "model.md"


def test_every_parameter_states_its_unit_kind_source_and_uncertainty() -> None:
    parameters = list(Calibration().parameters())
    assert len(parameters) >= 20
    for p in parameters:
        assert p.kind in ("calibrated", "documented", "assumed"), p
        assert p.unit and p.source and p.uncertainty, f"{p.group}.{p.name} lacks a unit, source or uncertainty"


def test_a_calibrated_parameter_names_the_figure_it_was_fitted_on() -> None:
    """Its source names the measurement (calibration.md's, or a public one with its address), and
    `fitted_on` the `hvnet validate` figures it was fitted on."""
    sources = ("calibration.md C", "BEHAVIOUR.md", "aidanfinn.com", "blog.workinghardinit.work")
    for p in Calibration().parameters():
        if p.kind == "calibrated":
            named = any(source in p.source for source in sources)
            assert named and p.fitted_on, f"{p.group}.{p.name}: {p.source}"


def test_a_changed_value_is_what_the_models_read() -> None:
    """The groups are plain values: a calibration with another value reports it, nothing else changes."""
    changed = Calibration(cpu=CpuParameters(rsc_packets=3.0))
    values = {(p.group, p.name): p.value for p in changed.parameters()}
    assert values[("cpu", "rsc_packets")] == 3.0
    assert values[("cpu", "receive_cycles_per_byte")] == CpuParameters().receive_cycles_per_byte


def test_docs_list_every_parameter_as_the_code_has_it() -> None:
    text = MODEL_DOC.read_text()
    start = text.index("<!-- parameters: generated")
    table = text[text.index("\n", start) + 1 : text.index("<!-- end of parameters -->")]
    assert table == calibration_markdown(), (
        "docs/model.md's parameter table is stale: regenerate it from calibration_markdown()"
    )


@pytest.mark.parametrize(
    ("group", "name", "value", "message"),
    [
        ("compression", "weight", 0.0, "compression.weight: 0.0 must be more than 0 (share weight)"),
        (
            "cpu",
            "receive_cycles_per_byte",
            float("nan"),
            "cpu.receive_cycles_per_byte: nan is not a finite number (cycles/byte)",
        ),
        ("migration", "setup_s", -1.0, "migration.setup_s: -1.0 must be 0 or more (s)"),
        ("vmq", "busy", 1.5, "vmq.busy: 1.5 must be at most 1 (share of a core)"),
    ],
)
def test_a_calibration_with_a_value_no_model_can_take_is_refused_in_one_line(
    group: str, name: str, value: float, message: str
) -> None:
    """Issue 15: the core never sees it (a zero weight once reached the engine's assertions)."""
    calibration = Calibration()
    with pytest.raises(InputError) as caught:
        dataclasses.replace(calibration, **{group: dataclasses.replace(getattr(calibration, group), **{name: value})})
    assert str(caught.value) == f"<calibration>: {message}"
