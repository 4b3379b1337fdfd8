"""`hvnet validate`: each public measurement beside hvnet's prediction.

The cases are the figures of `shared/data/calibration.md`: C6, C9 and C10
(teams, cores, frames) and C1–C5, C7, C8 (live migration), and further public measurements
with their sources (V1: two VMs on one host; F1, F2 and the M figures: the live-migration
measurements of `measurements.yaml`, by their ids there), run on built-in scenarios of the testbeds as
reported (`examples/validation/`, whose descriptions state every assumption). Each figure is
*calibration* when a parameter was fitted on it (`Calibration.fitted_on`), else a *check*: a
prediction the calibration did not see.
The physical parameters are the global defaults of `CpuParameters` and
`frames`; nothing here is tuned per case. A figure is *explained* when the
prediction is within 15 % of the reported value (or inside a reported
range); a figure the model cannot produce says why.

By module: ``check`` (a figure beside its prediction, ``Check``, and what every case uses: the
tolerance, the comparison of a number, the built-in testbeds), the cases (``network``: C6, C9, C10,
V1, V2, teams, cores and frames; ``migration``: C1–C5, C7, C8, F1, F2, live migration; ``transports``:
M15–M19, M23, M24, M27, the options and their rates; ``drains``: M20–M22, M28, M31, drains, times and
a blackout), ``coverage`` (which measurement each figure comes from, and why the rest are not cases),
and ``markdown`` (docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Callable

from hvnet.calibration import Calibration
from hvnet.validate.check import TOLERANCE_PCT as TOLERANCE_PCT
from hvnet.validate.check import Check, testbed
from hvnet.validate.drains import blackout_ping, dynamic_memory, holman, speed_up
from hvnet.validate.markdown import validation_markdown
from hvnet.validate.migration import f1, f2, live_migration
from hvnet.validate.network import c6, c9_c10, v1, v2
from hvnet.validate.network import v2_figures as v2_figures
from hvnet.validate.transports import finn_options, savill, smb_direct_jumbo

__all__ = ["Check", "run_validation", "validation_markdown"]

#: A built-in testbed by its file name (tests and bench/shared_cores.py read them through it).
_scenario = testbed

CASES: list[Callable[[Calibration | None], list[Check]]] = [
    c6,
    c9_c10,
    live_migration,
    v1,
    v2,
    f1,
    f2,
    finn_options,
    holman,
    speed_up,
    savill,
    smb_direct_jumbo,
    dynamic_memory,
    blackout_ping,
]


def run_validation(calibration: Calibration | None = None) -> list[Check]:
    """Every case's figures, predicted with `calibration` (default: the one hvnet ships)."""
    return [check for case in CASES for check in case(calibration)]
