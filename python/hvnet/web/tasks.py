"""What each run of the web app does, in its worker process: the CLI's command, minus the terminal.

Each task calls the functions the CLI command calls (`hvnet.cli.running`, `hvnet.cli.answering`),
in the same order with the same defaults, and answers the same JSON document as the command's
``--json`` — built by the same function (`comparison_document`, `check_document`, ...) — plus a
page to show: the HTML report where the CLI has one (`simulate`, `compare`, `explain`), else the
terminal's tables (`views.terminal_page`). Nothing is computed twice, and tests/web compare every
document with the CLI's.

A task reads its files where the worker wrote them, in its own scratch folder, under the names
the user gave: a problem reads ``cluster.yaml:12: hosts[0]...`` as the CLI prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import RenderableType

from hvnet.advise import advise, findings_document, findings_text
from hvnet.candidates import DEFAULT_CANDIDATES, search, search_document, search_table
from hvnet.candidates.show import not_tried
from hvnet.check import NOTHING_TO_CHECK, check, check_document, check_table
from hvnet.compare import comparison_document, run_comparison
from hvnet.cost import bill_document, bill_table, design_cost
from hvnet.cost.variants import price_variants, variants_document, variants_table
from hvnet.errors import HvnetError, ScenarioError
from hvnet.explain import explain, explanation_document
from hvnet.explain.report import render_explain_report
from hvnet.failure_costs import DEFAULT_LIMIT, with_costs
from hvnet.importers import measurement_document, read_measurement
from hvnet.importers.config import import_config
from hvnet.importers.show import measurement_table
from hvnet.model import load_scenario
from hvnet.report import render_comparison, render_report
from hvnet.simulation import nothing_to_simulate, simulate
from hvnet.tables.paragraph import Paragraph
from hvnet.uncertainty import bands
from hvnet.web.views import terminal_page
from hvnet.words import counted

__all__ = ["COMMANDS", "Answer", "Progress", "Task", "run_task"]

#: `progress(done, total)`: called by a task as its simulations finish.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Task:
    """One run asked for: the command, the scenario (name and text), uploaded files, options."""

    command: str
    scenario_name: str | None = None
    scenario_text: str | None = None
    #: Uploaded files: (name as uploaded, bytes); parsed by the task, never executed.
    uploads: tuple[tuple[str, bytes], ...] = ()
    options: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """What a run answers: the `--json` document (as JSON text), a page to show, and notes."""

    document: str
    view: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Files:
    """Where the worker wrote a task's files, in its scratch folder."""

    scenario: Path | None
    uploads: list[Path]


def _json(document: object) -> str:
    """The document as `hvnet ... --json` writes it (`cli.app.write_json`)."""
    dump = getattr(document, "model_dump_json", None)
    return dump(indent=2) + "\n" if dump is not None else json.dumps(document, indent=2) + "\n"


def _simulate(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet simulate FILE --json --report` (with --failure-costs N and --uncertainty as asked)."""
    assert files.scenario is not None
    name = str(files.scenario)
    scenario = load_scenario(files.scenario)
    idle = nothing_to_simulate(scenario, name)
    if idle is not None:
        raise ScenarioError([idle])
    notes = []
    if scenario.had_variants:
        notes.append(f"{name}: its variants: are not simulated here; this is its base design (compare runs every one)")
    results = simulate(scenario, filename=name)
    limit = task.options.get("failure_costs")
    limit = DEFAULT_LIMIT if limit is None else int(str(limit))
    if results.failures and limit:
        total, done = min(len(results.failures), limit), 0

        def step() -> None:
            nonlocal done
            done += 1
            progress(done, total)

        results = with_costs(scenario, results, name, limit, step=step)
    if task.options.get("uncertainty"):
        found = bands(scenario, results, filename=name, step=lambda: None)
        results = results.model_copy(update={"uncertainty": found})
    return Answer(_json(results), render_report(results, scenario), tuple(notes))


def _compare(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet compare FILE --json --report`: every variant of the file, side by side."""
    assert files.scenario is not None
    runs = run_comparison([files.scenario])
    return Answer(_json(comparison_document(runs)), render_comparison(runs))


def _check(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet check FILE --json [--limit N]`: a scenario without requirements is bad input."""
    assert files.scenario is not None
    limit = task.options.get("limit")
    result = check(load_scenario(files.scenario), progress, None if limit is None else int(str(limit)))
    if not result.checked:
        raise HvnetError(NOTHING_TO_CHECK)
    verdict = "every requirement is met" if result.passed else "a requirement fails"
    summary = f"{verdict}; {counted(result.simulations, 'simulation')} in {result.wall_s:.1f} s"
    return Answer(_json(check_document(result)), terminal_page("check", [check_table(result), summary]))


def _advise(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet advise FILE --json [--no-effects]`."""
    assert files.scenario is not None
    findings = advise(load_scenario(files.scenario), simulate_effects=task.options.get("effects", True) is not False)
    shown = findings_text(findings) if findings else "no findings: the design follows every rule hvnet checks"
    return Answer(_json(findings_document(findings)), terminal_page("advise", [shown]))


def _cost(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet cost FILE --json`: a file's variants side by side, or its one bill."""
    assert files.scenario is not None
    scenario = load_scenario(files.scenario)
    if scenario.had_variants:
        variants = price_variants(files.scenario)
        return Answer(_json(variants_document(variants)), terminal_page("cost", [variants_table(variants)]))
    priced = design_cost(scenario)
    return Answer(_json(bill_document(priced)), terminal_page("cost", [bill_table(priced)]))


def _design(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet design FILE --json`: the default candidates, the default prices."""
    assert files.scenario is not None
    result = search(load_scenario(files.scenario), DEFAULT_CANDIDATES, None, progress=progress)
    shown: list[RenderableType] = [search_table(result), *(Paragraph(line) for line in not_tried(result))]
    shown += ["", Paragraph(result.reasoning())]
    return Answer(_json(search_document(result)), terminal_page("design", shown))


def _explain(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet explain FILE MEASUREMENT... [--from A] [--to B] --json --report`."""
    assert files.scenario is not None
    records = [record for path in files.uploads for record in read_measurement(path)]
    sender, receiver = task.options.get("from"), task.options.get("to")
    explanation = explain(
        load_scenario(files.scenario),
        records,
        None if sender is None else str(sender),
        None if receiver is None else str(receiver),
    )
    return Answer(_json(explanation_document(explanation)), render_explain_report(explanation))


def _import_measurement(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet import measurement FILE... --json`: each file's records, normalised."""
    records = [record for path in files.uploads for record in read_measurement(path)]
    page = terminal_page("measurements", [measurement_table(record) for record in records])
    return Answer(_json(measurement_document(records)), page)


def _import_config(task: Task, files: _Files, progress: Progress) -> Answer:
    """`hvnet import config DUMP...`: the scenario (YAML), what it assumes and what it breaks."""
    imported = import_config(files.uploads)
    document = {"yaml": imported.yaml, "assumptions": imported.assumptions, "problems": imported.problems}
    return Answer(_json(document))


#: Each command the app runs, and what runs it.
COMMANDS: dict[str, Callable[[Task, _Files, Progress], Answer]] = {
    "simulate": _simulate,
    "compare": _compare,
    "check": _check,
    "advise": _advise,
    "cost": _cost,
    "design": _design,
    "explain": _explain,
    "import-measurement": _import_measurement,
    "import-config": _import_config,
}


def run_task(task: Task, scenario: Path | None, uploads: list[Path], progress: Progress) -> Answer:
    """Runs `task` on the files the worker wrote (relative paths, as the user named them)."""
    return COMMANDS[task.command](task, _Files(scenario, uploads), progress)
