"""The entry points the Python targets (ntttcp, variants, measurement, config, prices, candidates) run in a
case's working directory, as the command would call them: `entry` prints a refusal on standard error with exit
code 2, or writes the result to out.json with exit code 0."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path


class Refused(Exception):
    """What an entry point printed as its refusal (exit code 2)."""


def _strict(document: object) -> None:
    json.dumps(document, allow_nan=False, default=str)


def _entry_ntttcp() -> object:
    import hvnet
    from hvnet.ntttcp import run_ntttcp
    from hvnet.units import parse_bytes, parse_duration, parse_option

    args = json.loads(Path("case.json").read_text())
    scenario = hvnet.load("scenario.yaml")
    time_s, buffer = (
        parse_option("--time", args["time"], parse_duration),
        parse_option("--buffer", args["buffer"], parse_bytes),
    )
    result = run_ntttcp(scenario, args["sender"], args["receiver"], args["threads"], time_s, buffer)
    return {
        "total_mb_per_s": result.total_mb_per_s,
        "cpu_percent": result.cpu_percent,
        "seconds": result.seconds,
    }


def _entry_variants() -> object:
    from hvnet.variants import load_variants

    variants = load_variants("case.yaml")
    names = []
    for k, variant in enumerate(variants):
        if k >= 20:
            break
        names.append(variants.scenario(variant).name)
    return {"variants": len(variants), "names": names}


def _entry_measurement() -> object:
    from hvnet.importers import read_measurement

    name = next(p.name for p in Path(".").iterdir() if p.name.startswith("case."))
    return [m.model_dump(mode="json") for m in read_measurement(Path(name))]


def _entry_config() -> object:
    import hvnet
    from hvnet.importers.config import import_config

    imported = import_config([Path("case.json")])
    if not imported.problems:  # "empty when the scenario loads": then it must
        try:
            hvnet.parse_scenario(imported.yaml, "imported.yaml")
        except hvnet.HvnetError as error:
            raise AssertionError(f"the import says it loads, and it does not: {error}") from None
    return {"yaml": imported.yaml, "assumptions": imported.assumptions, "problems": imported.problems}


def _entry_prices() -> object:
    import hvnet
    from hvnet.cost import design_cost, load_prices
    from hvnet.cost.render import bill_document

    return bill_document(design_cost(hvnet.load("scenario.yaml"), load_prices("case.yaml")))


def _entry_candidates() -> object:
    import hvnet
    from hvnet.candidates import load_candidates
    from hvnet.candidates.build import apply

    base = hvnet.load("scenario.yaml")
    built = {}
    for k, candidate in enumerate(load_candidates("case.yaml")):
        if k >= 20:
            break
        scenario = apply(base, candidate)  # a scenario, or the loader's one-line reason
        if isinstance(scenario, str) and ("\n" in scenario or not scenario.strip()):
            raise AssertionError(f"a refused candidate's reason is not one line: {scenario!r}")
        built[candidate.name] = scenario if isinstance(scenario, str) else scenario.name
    return built


#: What each Python entry point's case makes of the files in the working directory: out.json's document.
ENTRIES: dict[str, Callable[[], object]] = {
    "ntttcp": _entry_ntttcp,
    "variants": _entry_variants,
    "measurement": _entry_measurement,
    "config": _entry_config,
    "prices": _entry_prices,
    "candidates": _entry_candidates,
}


def entry(target: str) -> int:
    """Runs one case of a Python entry point in the working directory (the case's files there):
    0 and out.json for a result, 2 and the refusal on standard error. Anything else escapes."""
    import hvnet

    try:
        if target not in ENTRIES:
            raise ValueError(f"no Python entry for {target}")
        document = ENTRIES[target]()
    except hvnet.HvnetError as error:
        print(str(error), file=sys.stderr)
        return 2
    Path("out.json").write_text(json.dumps(document, default=str))
    return 0
