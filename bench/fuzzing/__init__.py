"""The parts of bench/fuzz.py, the input fuzzer (docs/reliability.md), one purpose each:

- `values`: the odd values a field may get: numbers at and past every boundary, numbers and units as
  quantities are written, text that renders oddly, containers, quantities at the documented bounds;
- `mutations`: structure-level, YAML-level and byte-level mutations of a file;
- `cases`: each target's case builder and what it starts from, the name a case's file has, and `generate`,
  which draws a seeded list of cases;
- `entries`: what a Python target (ntttcp, variants, measurement, config, prices, candidates) runs in the
  case's directory, as the command would;
- `outcomes`: how a case ended and the class it is sorted into.

bench/fuzz.py runs the cases in child processes, saves the failing ones and is the command line. It puts
bench/ first on the path when run as a script, so this package is `fuzzing`.
"""
