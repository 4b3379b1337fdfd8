#!/usr/bin/env python3
"""How `hvnet sweep` of the 64-host case scales with Dask workers (docs/performance.md).

One run: the 64-host, 20-VMs-per-host rolling update of `bench/scale.py` with
12 variants (live-migration option × MTU × simultaneous migrations), swept on a
local Dask cluster of 1 worker, then 2, then 1 again (so both sizes share the
machine's noise); prints each sweep's time as `hvnet sweep` reports it, the
command's wall time, and the speed-up of 2 workers over the better 1-worker run.

    python bench/sweep_workers.py

Not a test: nothing here asserts on time.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale import OUT, cluster_yaml

VARIANTS = """variants:
  option: {set: "hosts[*].live_migration.option", values: [tcp_ip, compression, smb]}
  jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
  simultaneous: {set: "hosts[*].live_migration.simultaneous", values: [1, 2]}
"""


def sweep(scenario: Path, workers: int) -> tuple[float, float]:
    """(the sweep's own time, the command's wall time) with `workers` local workers."""
    out = OUT / f"sweep-{workers}.parquet"
    began = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hvnet",
            "sweep",
            str(scenario),
            "--out",
            str(out),
            "--workers",
            str(workers),
            "--force",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - began
    found = re.search(r"in ([0-9.]+) s;", done.stdout)
    return (float(found.group(1)) if found else float("nan")), wall


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    scenario = OUT / "sweep-64.yaml"
    scenario.write_text(cluster_yaml(64, 20 * 64, "rolling_update") + VARIANTS)
    runs = [(workers, *sweep(scenario, workers)) for workers in (1, 2, 1)]
    print("| workers | sweep s | command wall s |\n|---|---:|---:|")
    for workers, own, wall in runs:
        print(f"| {workers} | {own:.1f} | {wall:.1f} |")
    one = min(own for workers, own, _ in runs if workers == 1)
    two = next(own for workers, own, _ in runs if workers == 2)
    print(f"\nspeed-up of 2 workers: {one / two:.2f}x")


if __name__ == "__main__":
    main()
