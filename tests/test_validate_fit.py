"""The fit of the calibrated parameters and its leave-one-out cross-validation (hvnet.validate.fit).

The machinery is tested on a small model whose answer is known (figures that are simple functions of
`migration.setup_s` and `migration.prepare_bytes_per_s`), so that each test runs in milliseconds; the
real run (`hvnet validate --loo`, about two minutes) is in docs/validation.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hvnet.calibration import Calibration
from hvnet.calibration.residuals import Residual, Residuals, read_residuals
from hvnet.cli import app
from hvnet.errors import InputError
from hvnet.validate.check import Check, number
from hvnet.validate.fit import (
    CrossValidation,
    Fitted,
    LooRow,
    fit,
    fitted_parameters,
    leave_one_out,
    log_error,
    loo_summary,
    with_values,
)
from tests.conftest import CLI_ENV

SETUP = Fitted("migration", "setup_s", 2.07, 1.07, 3.07, False)
PREPARE = Fitted("migration", "prepare_bytes_per_s", 1.4e10, 1.26e10, 1.54e10, False)


def toy(targets: dict[str, float]) -> Callable[[Calibration], list[Check]]:
    """Three figures of two parameters: a = 2·setup, b = setup + 1, c = prepare / 1e9."""

    def predict(calibration: Calibration) -> list[Check]:
        setup, prepare = calibration.migration.setup_s, calibration.migration.prepare_bytes_per_s
        values = {"a": 2 * setup, "b": setup + 1, "c": prepare / 1e9}
        return [number(name, name, values[name], targets[name]) for name in ("a", "b", "c")]

    return predict


def test_log_error_is_zero_inside_a_range_and_measured_from_its_nearer_end_outside() -> None:
    assert log_error(number("x", "x", 4.7, 4.75, 4.5, 5.0)) == 0.0
    assert log_error(number("x", "x", 5.5, 4.75, 4.5, 5.0)) == pytest.approx(math.log(5.5 / 5.0))
    assert log_error(number("x", "x", 4.0, 4.75, 4.5, 5.0)) == pytest.approx(math.log(4.0 / 4.5))
    assert log_error(number("x", "x", 7.0, 5.0)) == pytest.approx(math.log(7.0 / 5.0))
    assert log_error(Check("w", "words", "more", "less", None, False)) is None


def test_the_fit_finds_the_least_squares_value_inside_the_range() -> None:
    """a = 2s and b = s + 1 aimed at 5 and 3.5: ln(2s/5)² + ln((s+1)/3.5)² is least at s ≈ 2.5;
    c aimed at 14 leaves prepare at 1.4e10."""
    predict = toy({"a": 5.0, "b": 3.5, "c": 14.0})
    calibration, loss = fit(predict, [SETUP, PREPARE], sweeps=3, steps=30)
    assert calibration.migration.setup_s == pytest.approx(2.5, abs=0.01)
    assert calibration.migration.prepare_bytes_per_s == pytest.approx(1.4e10, rel=1e-3)
    assert loss < 1e-5


def test_a_fit_never_leaves_the_stated_range() -> None:
    """Aimed at setup = 10 s, the fit stops at the range's high end (3.07 s): a value outside the
    range would stand in for a missing mechanism."""
    predict = toy({"a": 20.0, "b": 11.0, "c": 14.0})
    calibration, _ = fit(predict, [SETUP], sweeps=2, steps=30)
    assert calibration.migration.setup_s == pytest.approx(3.07, abs=0.01)


def test_a_left_out_figure_is_predicted_by_a_fit_that_never_saw_it() -> None:
    """The definition of leave-one-out: figure a's prediction does not move when a's reported value
    does (b alone fixes setup then), while the in-sample fit does move."""
    rows = {}
    for a_target in (5.0, 9.0):
        predict = toy({"a": a_target, "b": 3.5, "c": 14.0})
        full, _ = fit(predict, [SETUP, PREPARE], sweeps=2, steps=30)
        rows[a_target] = {r.id: r for r in leave_one_out(predict, [SETUP, PREPARE], full)}
    # equal to the search's resolution: ten golden-section steps over ln(3.07 / 1.07) leave 0.8 %
    assert rows[5.0]["a"].loo_predicted == pytest.approx(rows[9.0]["a"].loo_predicted, rel=1e-2)
    assert rows[5.0]["a"].loo_predicted == pytest.approx(2 * 2.5, rel=1e-2)  # b = s + 1 = 3.5: s = 2.5
    assert rows[9.0]["a"].loo_error_pct == pytest.approx(100 * (5.0 / 9.0 - 1), abs=0.5)


def test_the_summary_is_the_median_and_the_90th_percentile_of_the_absolute_errors() -> None:
    rows = [LooRow(str(k), "", 1.0, 1.0, 1.0, float(e)) for k, e in enumerate([-1, 2, -3, 4, 5, 6, 7, 8, 9, -30])]
    assert loo_summary(rows) == (5.5, 9.0)


def test_the_fitted_parameters_are_the_calibrated_ones_with_their_ranges() -> None:
    fitted = {f"{p.group}.{p.name}": p for p in fitted_parameters()}
    assert fitted["migration.setup_s"].low == 1.07 and fitted["migration.setup_s"].high == 3.07
    assert fitted["migration.switchover_exchanges"].whole
    assert all(p.low <= p.shipped <= p.high for p in fitted.values())
    shipped = Calibration()
    assert with_values(shipped, {("migration", "setup_s"): 2.5}).migration.setup_s == 2.5
    assert shipped.migration.setup_s == 2.07


def test_validate_loo_prints_the_fit_and_the_residuals_and_writes_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The command's wiring (the two-minute fit itself is replaced by a fixed answer here)."""
    answer = CrossValidation(
        [("migration.setup_s", 2.07, 3.07, 1.07, 3.07)],
        [LooRow("F1/1gbe-one", "s to migrate one 512 MB VM over 1 GbE", 7.0, 6.975, 7.967, 13.8)],
        13.8,
        13.8,
    )
    monkeypatch.setattr("hvnet.validate.fit.cross_validate", lambda predict, progress=None: answer)
    out = tmp_path / "v.json"
    result = CliRunner(env=CLI_ENV).invoke(app, ["validate", "--loo", "--json", str(out)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "leave-one-out" in text and "median |error| 13.8 %" in text and "3.07 (at an end)" in text
    (row,) = [c for c in json.loads(out.read_text()) if c["id"] == "F1/1gbe-one"]
    assert row["loo_predicted"] == 7.967 and row["loo_error_pct"] == 13.8
    residuals_out = tmp_path / "residuals.json"
    written = CliRunner(env=CLI_ENV).invoke(app, ["validate", "--loo", "--residuals", str(residuals_out)])
    assert written.exit_code == 0, written.output
    residuals = read_residuals(residuals_out)
    assert [(r.id, r.kind, r.loo_error_pct) for r in residuals.figures] == [("F1/1gbe-one", "time", 13.8)]
    again = CliRunner(env=CLI_ENV).invoke(app, ["validate", "--loo", "--residuals", str(residuals_out)])
    assert again.exit_code == 2 and "not overwritten" in again.output  # never replaced without --force


def test_residuals_need_the_leave_one_out_run(tmp_path: Path) -> None:
    result = CliRunner(env=CLI_ENV).invoke(app, ["validate", "--residuals", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "add --loo" in result.output
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "not what `hvnet validate --loo --residuals` writes"),
        ('{"figures": [{"id": "a"}]}', "not what"),
        ('{"figures": [{"id": "a", "kind": "speed", "loo_error_pct": 1}]}', "a: the kind is one of time, other"),
        ('{"figures": [{"id": "a", "kind": "time", "loo_error_pct": -100}]}', "above -100"),
    ],
)
def test_a_residuals_file_that_is_not_one_says_so(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(says)) as raised:
        read_residuals(path)
    assert str(raised.value).startswith(str(path))


def test_a_figure_s_kind_is_its_unit_and_its_band_comes_from_its_kind() -> None:
    """A figure in seconds ("s to migrate ...") is a time; its band is the shipped prediction over one plus
    the 5th and 95th percentiles of the residuals of its kind; a reported value beyond it is outside."""
    row = LooRow("F1/1gbe-one", "s to migrate one 512 MB VM over 1 GbE", 7.0, 6.5, 7.9, 13.8, 7.0, 7.0)
    other = LooRow("M23/one", "Gbps of one live migration", 4.0, 6.0, 5.3, 31.7, 4.0, 4.0)
    assert (row.kind, other.kind) == ("time", "other")
    residuals = Residuals(tuple(Residual(f"t{e}", "time", e) for e in (-10.0, 0.0, 10.0)))
    band = row.band(residuals)
    assert band == pytest.approx((6.5 / 1.09, 6.5 / 0.91))
    assert band is not None and not row.outside(band)
    assert other.band(residuals) is None  # no residuals of its kind
    assert row.outside((7.5, 9.0)) and row.outside((5.0, 6.9))


def test_a_parameter_only_the_left_out_figure_informs_takes_its_range_s_middle() -> None:
    """c alone informs prepare: left out, c is predicted with prepare at its range's geometric middle,
    whatever c's reported value made the full fit choose (no leak of the figure into its own test)."""
    middle = math.sqrt(PREPARE.low * PREPARE.high) / 1e9
    for c_target in (12.7, 15.3):
        predict = toy({"a": 5.0, "b": 3.5, "c": c_target})
        full, _ = fit(predict, [SETUP, PREPARE], sweeps=2, steps=30)
        assert full.migration.prepare_bytes_per_s / 1e9 == pytest.approx(c_target, rel=1e-2)
        rows = {r.id: r for r in leave_one_out(predict, [SETUP, PREPARE], full)}
        assert rows["c"].loo_predicted == pytest.approx(middle, abs=1e-3)  # predictions keep 3 decimals
