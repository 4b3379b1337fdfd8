"""The fuzzer's package, bench/fuzzing/, is imported as `fuzzing`, as bench/fuzz.py imports it when run as a
script (bench/ first on its path). Appended, so that bench/'s scripts shadow nothing installed."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = str(Path(__file__).resolve().parents[2] / "bench")
if BENCH not in sys.path:
    sys.path.append(BENCH)
