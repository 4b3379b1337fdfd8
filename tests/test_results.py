"""The results document: its fields, their meaning, and its documentation.

tests/golden/failover.json is the JSON of `hvnet simulate failover.yaml --json -`
with the two fields that vary removed or replaced: `wall_s` (the engine's
wall-clock time) and `hvnet` (the version, so a release does not rewrite
the file). Rewrite it with `pytest --update-golden` and read the diff.

docs/output.md documents every field; a test checks that its tables list
exactly the fields the models have.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest
from pydantic import BaseModel
from typer.testing import Result

from hvnet import Results, __version__, parse_scenario, simulate
from hvnet.flows import FlowsResult
from hvnet.model import Flow
from hvnet.results import (
    AdapterSeries,
    ConnectionResult,
    CoreSeries,
    CoreUtilisation,
    FailureResult,
    FigureBand,
    FlowHit,
    MigrationPass,
    MigrationResult,
    NicChoice,
    NicUtilisation,
    RoutingChange,
    TeamUtilisation,
    TrafficResult,
    VcpuSeries,
)
from hvnet.series import Series

Invoke = Callable[..., Result]
CheckGolden = Callable[[str, str], None]

ROOT = Path(__file__).resolve().parents[1]
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
OUTPUT_DOC = ROOT / "docs" / "output.md"


def test_failover_json(cli: Invoke, golden: CheckGolden) -> None:
    result = cli("simulate", FAILOVER, "--json", "-")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    wall_s = document.pop("wall_s")
    assert isinstance(wall_s, float) and wall_s >= 0.0
    assert document["hvnet"] == __version__
    document["hvnet"] = "<version>"
    golden("failover.json", json.dumps(document, indent=2) + "\n")


def test_the_json_reads_back_into_results(cli: Invoke) -> None:
    document = json.loads(cli("simulate", FAILOVER, "--json", "-").stdout)
    assert Results.model_validate(document).model_dump(mode="json") == document


def test_results_refuse_unknown_fields_and_changes() -> None:
    """Results are immutable, and a document with a field they do not know is an error, not ignored."""
    results = simulate(parse_scenario(FAILOVER.read_text()))
    with pytest.raises(pydantic.ValidationError):
        results.end_s = 0.0  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError):
        Results.model_validate({**results.model_dump(), "surprise": 1})


def flow(**fields: object) -> Flow:
    data: dict[str, object] = {"from": "a", "to": "b", "size": "2.5GB", **fields}
    return Flow.model_validate(data)


def connection(end_s: float | None, blackholed_s: float = 0.0) -> ConnectionResult:
    return ConnectionResult(
        end_s=end_s,
        blackholed_s=blackholed_s,
        stalled_since_s=None if end_s is not None else 1.0,
        nics=[NicChoice(at_s=0.0, out_nic="a/nic1", in_nic="b/nic1")],
    )


def test_a_traffic_result_derives_duration_and_mean_rate() -> None:
    """2.5 GB in 2 connections started at 1 s, ending at 2.5 s and 3 s: the entry ends
    with its last connection, after 2 s, at 8 × 2.5e9 / 2 = 10 Gbps; the longest
    black-holed connection gives the entry's black-holed time."""
    conns = [connection(2.5, blackholed_s=0.5), connection(3.0)]
    result = TrafficResult.of(flow(name="copy", start="1s", connections=2), conns, 2.5e9)
    assert result.model_dump() == {
        "name": "copy",
        "source": "a",
        "destination": "b",
        "size_bytes": 2_500_000_000,
        "connections": 2,
        "start_s": 1.0,
        "end_s": 3.0,
        "duration_s": 2.0,
        "sent_bytes": 2_500_000_000,
        "mean_bps": 10e9,
        "rate_bps": None,
        "blackholed_s": 0.5,
        "connection_results": [c.model_dump() for c in conns],
    }


def test_a_traffic_result_that_never_ended_has_no_duration_or_rate() -> None:
    """One connection of two never completed: the entry never completed either."""
    result = TrafficResult.of(flow(), [connection(2.0), connection(None)], 1e9)
    assert (result.name, result.end_s, result.duration_s, result.mean_bps) == (None, None, None, None)


def test_end_s_counts_a_failure_after_the_traffic() -> None:
    """The run ends at its last event: a 1.06 s transfer, then a NIC failure at 10 s: end_s is 10.

    1.25 GB at 10 Gbps in frames of MTU 1500 takes FRAME = 1538 / 1460 = 1.06 s.
    The time series are change points: the line rate from 0 until the transfer's
    end, then 0 (until the end of the run); at 1 s, 10 bins, busy for all of the
    first and 0.06 s of the second.
    """
    frame = 1538 / 1460
    results = simulate(
        parse_scenario(
            "name: late failure\n"
            "hosts:\n"
            "  - {name: a, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
            "  - {name: b, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps},"
            " {name: spare, speed: 10Gbps}]}\n"
            "cables: [{a: a/nic1, b: b/nic1}]\n"
            "traffic: [{from: a, to: b, size: 1.25GB}]\n"
            "events: [{at: 10s, action: nic_down, target: a/nic1}]\n"
        )
    )
    assert results.traffic[0].end_s == pytest.approx(frame)
    assert results.end_s == pytest.approx(10.0)
    send = results.adapters[0].send_bps
    assert send.t_s == pytest.approx([0.0, frame]) and send.values == pytest.approx([10e9, 0.0])
    assert send.resample(1.0, results.end_s) == pytest.approx([10e9, 10e9 * (frame - 1)] + [0.0] * 8)
    assert send.peak() == pytest.approx(10e9) and send.integral(0, results.end_s) == pytest.approx(10e9 * frame)
    # b/spare has no cable: empty series.
    spare = results.adapters[2]
    assert (spare.nic, spare.send_bps, spare.receive_bps) == ("spare", Series(), Series())


def test_nothing_to_do_ends_at_zero() -> None:
    results = simulate(
        parse_scenario(
            "name: idle\n"
            "hosts:\n"
            "  - {name: a, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
            "  - {name: b, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
            "cables: [{a: a/nic1, b: b/nic1}]\n"
        )
    )
    assert (results.end_s, results.events, results.traffic) == (0.0, 0, [])
    assert all(a.send_bps == a.receive_bps == Series(t_s=[], values=[]) for a in results.adapters)


# docs/output.md


def documented_fields(heading: str) -> list[str]:
    """Field names in the first column of the table under the docs heading that contains `heading`."""
    text = OUTPUT_DOC.read_text()
    sections = re.split(r"^#+ ", text, flags=re.MULTILINE)
    (section,) = [s for s in sections if s and heading in s.splitlines()[0]]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("model", "heading"),
    [
        (Results, "(`Results`)"),
        (TrafficResult, "(`TrafficResult`)"),
        (ConnectionResult, "(`ConnectionResult`)"),
        (NicChoice, "(`NicChoice`)"),
        (MigrationResult, "(`MigrationResult`)"),
        (MigrationPass, "(`MigrationPass`)"),
        (CoreSeries, "(`CoreSeries`)"),
        (VcpuSeries, "(`VcpuSeries`)"),
        (AdapterSeries, "(`AdapterSeries`)"),
        (Series, "(`Series`)"),
        (NicUtilisation, "(`NicUtilisation`)"),
        (TeamUtilisation, "(`TeamUtilisation`)"),
        (CoreUtilisation, "(`CoreUtilisation`)"),
        (FigureBand, "(`FigureBand`)"),
        (FailureResult, "(`FailureResult`)"),
        (RoutingChange, "(`RoutingChange`)"),
        (FlowHit, "(`FlowHit`)"),
    ],
    ids=[
        "Results",
        "TrafficResult",
        "ConnectionResult",
        "NicChoice",
        "MigrationResult",
        "MigrationPass",
        "CoreSeries",
        "VcpuSeries",
        "AdapterSeries",
        "Series",
        "NicUtilisation",
        "TeamUtilisation",
        "CoreUtilisation",
        "FigureBand",
        "FailureResult",
        "RoutingChange",
        "FlowHit",
    ],
)
def test_output_md_documents_every_field(model: type[BaseModel], heading: str) -> None:
    """Each model's table in docs/output.md lists its fields, in order, and no others."""
    assert documented_fields(heading) == list(model.model_fields)


def test_output_md_documents_the_flows_document() -> None:
    assert documented_fields("`hvnet flows --json`") == list(FlowsResult(wall_s=0.0, end_s=[]).to_json())


def test_every_results_field_is_mentioned_in_output_md() -> None:
    """The brief version of the check above, for any field a table might miss."""
    text = OUTPUT_DOC.read_text()
    for model in (
        Results,
        TrafficResult,
        ConnectionResult,
        NicChoice,
        MigrationResult,
        MigrationPass,
        CoreSeries,
        VcpuSeries,
        AdapterSeries,
        NicUtilisation,
        TeamUtilisation,
        CoreUtilisation,
        FailureResult,
        RoutingChange,
        FlowHit,
    ):
        for field in model.model_fields:
            assert f"`{field}`" in text, f"docs/output.md does not mention {model.__name__}.{field}"


def _as_validated(model: BaseModel) -> None:
    """`model` and every model in it are what validating their fields makes: equal, of the same field
    types, the same fields set, and in the same order (read-back builds them with `hvnet.trusted`)."""
    again = type(model)(**{name: value for name, value in model if name in model.model_fields_set})
    assert again == model and list(again.__dict__) == list(model.__dict__)
    assert again.model_fields_set == model.model_fields_set
    assert [type(v) for v in again.__dict__.values()] == [type(v) for v in model.__dict__.values()]
    for value in model.__dict__.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                _as_validated(item)


@pytest.mark.parametrize("example", ["rolling-update.yaml", "validation/v2-lacp-migrations-cpu.yaml"])
def test_read_back_builds_each_model_as_validation_would(example: str) -> None:
    from hvnet.model import load_scenario

    results = simulate(load_scenario(Path(__file__).parents[1] / "python/hvnet/examples" / example))
    assert results.migrations and results.cores and results.cores_utilisation and results.utilisation
    _as_validated(results)


def test_trusted_makes_what_model_construct_makes() -> None:
    from hvnet.trusted import trusted

    values: dict[str, Any] = {"bytes": 3, "start_s": 1.0, "end_s": 2.0}
    made = trusted(MigrationPass, dict(values))
    assert made == MigrationPass(**values) == MigrationPass.model_construct(bytes=3, start_s=1.0, end_s=2.0)
    assert made.model_fields_set == set(values) and made.model_dump_json() == MigrationPass(**values).model_dump_json()
    with pytest.raises(pydantic.ValidationError):
        made.bytes = 4  # type: ignore[misc]  # still frozen
    # Models made with every field share one set of them; a copy with an update has its own.
    other = trusted(MigrationPass, {**values, "bytes": 5})
    assert other.model_fields_set is made.model_fields_set
    copied = other.model_copy(update={"bytes": 6})
    assert copied.bytes == 6 and copied.model_fields_set is not made.model_fields_set
    assert made.model_fields_set == set(values) == copied.model_fields_set
    # Fewer fields than the model has (its defaults left out): a set of those, as model_construct makes.
    partial = trusted(Series, {"t_s": [1.0]})
    assert partial.model_fields_set == {"t_s"} == Series.model_construct(t_s=[1.0]).model_fields_set
