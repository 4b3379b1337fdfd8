#!/usr/bin/env python3
"""The proof a refactor of the pipeline carries: every `Results` the same, byte for byte, before and after.

Simulates issue 25's workloads (`bench/pipeline_ab.py`'s: the 64 × 20
rolling updates over each live-migration option and with a switch down, the
10,000-VM drain, and the small 4 × 20 and 100-VM points) and every example
under python/hvnet/examples that simulates, and writes each `Results` as JSON without `wall_s` (the engine's
own time, the only field that may differ between two runs) to DIR; `check`
compares what this install makes now with what was recorded, file by file,
and exits 1 on any difference. Record with the code before the change,
check with the code after it:

    python bench/results_golden.py record bench/out/golden
    ... change the code, rebuild ...
    python bench/results_golden.py check bench/out/golden

Examples that do not simulate (nothing to run, or a refused scenario) are
listed and skipped on both sides.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pipeline_ab  # noqa: E402  (bench/ scripts: the same workloads)

import hvnet  # noqa: E402
from hvnet.errors import HvnetError  # noqa: E402
from hvnet.model import load_scenario, parse_scenario  # noqa: E402

EXAMPLES = HERE.parent / "python" / "hvnet" / "examples"


def results_text(scenario: hvnet.Scenario) -> str:
    """The scenario's `Results` as sorted JSON, without `wall_s`."""
    document = json.loads(hvnet.simulate(scenario).model_dump_json())
    document.pop("wall_s")
    return json.dumps(document, sort_keys=True)


def cases() -> dict[str, Callable[[], hvnet.Scenario]]:
    """Name -> how to load its scenario: the bench workloads, then every example file."""
    out: dict[str, Callable[[], hvnet.Scenario]] = {
        name.replace(" ", "-"): functools.partial(parse_scenario, text)
        for name, text in pipeline_ab.workloads().items()
    }
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        out["examples-" + "-".join(path.relative_to(EXAMPLES).with_suffix("").parts)] = functools.partial(
            load_scenario, path
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["record", "check"])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    if args.mode == "record":
        args.directory.mkdir(parents=True, exist_ok=True)
    differences = 0
    for name, load in cases().items():
        target = args.directory / f"{name}.json"
        try:
            text = results_text(load())
        except HvnetError as error:
            print(f"skipped {name}: {str(error).splitlines()[0][:100]}")
            continue
        if args.mode == "record":
            target.write_text(text)
            print(f"recorded {name}")
        elif not target.exists():
            differences += 1
            print(f"MISSING {name}: not recorded in {args.directory}")
        elif target.read_text() != text:
            differences += 1
            print(f"DIFFERENT {name}")
        else:
            print(f"same {name}")
    if args.mode == "check":
        print(f"differences: {differences}")
        raise SystemExit(1 if differences else 0)


if __name__ == "__main__":
    main()
