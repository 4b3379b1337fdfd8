"""`hvnet lab run` from the file to the report: check, scale, predict, run, measure, compare, write.

    scenario.yaml ─► refusals (machine, network) ─► scaled (lab.scaling) ─► predicted once (lab.prediction)
                  ─► refusals (size) ─► the lab (lab.runner) ─► measured (lab.measure) ─► LabReport (lab.compare)

Everything the run writes goes to one directory (`--out`, default `./hvnet-lab`): `scenario.yaml`
(the scaled scenario, as `hvnet simulate` and `hvnet explain` read it), `prediction.json` (its
`hvnet simulate --json`), `HOST.netdev.log` per host (docs/import.md's snapshot logs), `agents/`
(each agent's job, records and standard error) and `lab.json` (the report). `hvnet explain
OUT/scenario.yaml OUT/*.netdev.log` then sets the logs beside the twin as it does a real cluster's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from hvnet.lab.compare import LabReport, compare
from hvnet.lab.measure import measure
from hvnet.lab.plan import SWITCH_BUFFER_S
from hvnet.lab.prediction import predict
from hvnet.lab.refusals import Limits, check_machine, check_network, check_size
from hvnet.lab.runner import run_lab
from hvnet.lab.scaling import Scale, scaled_data, scaled_scenario
from hvnet.model import Scenario

__all__ = ["lab_run", "write_scaled"]


def write_scaled(scenario: Scenario, scale: Scale, path: Path) -> None:
    """The scaled scenario as a file `hvnet simulate` and `hvnet explain` read."""
    header = (
        f"# {scenario.source} for hvnet lab: {scale.describe()}, sizes {scale.size:g} "
        "(written by hvnet lab run; docs/lab.md)\n"
    )
    path.write_text(header + yaml.safe_dump(scaled_data(scenario, scale), sort_keys=False, allow_unicode=True))


def lab_run(
    scenario: Scenario,
    scale: Scale,
    out: Path | None = None,
    keep: bool = False,
    limits: Limits | None = None,
    say: Callable[[str], None] = lambda _: None,
    buffer_s: float = SWITCH_BUFFER_S,
) -> LabReport:
    """Runs the scenario in the lab and sets the measurement beside the prediction (module doc).
    LabRefused (one line) where the machine or the scenario is beyond the lab."""
    limits = limits or Limits()
    check_machine()
    check_network(scenario)
    scaled = scaled_scenario(scenario, scale)
    prediction = predict(scaled)
    check_size(
        scaled, len(prediction.streams), sum(t.bytes for t in prediction.transfers), prediction.results.end_s, limits
    )
    directory = out or Path.cwd() / "hvnet-lab"
    directory.mkdir(parents=True, exist_ok=True)
    write_scaled(scenario, scale, directory / "scenario.yaml")
    (directory / "prediction.json").write_text(prediction.results.model_dump_json(indent=1) + "\n")
    lab = run_lab(prediction, directory, keep, say, buffer_s)
    measured = measure(lab, prediction)
    logs = [str(p) for p in measured.logs]
    files = [str(directory / "scenario.yaml"), str(directory / "prediction.json"), *logs, str(directory / "lab.json")]
    explain = " ".join(["hvnet explain", str(directory / "scenario.yaml"), *logs])
    report = compare(prediction, lab, measured, scale, scenario.source, files, explain, buffer_s)
    (directory / "lab.json").write_text(report.model_dump_json(indent=2) + "\n")
    return report
