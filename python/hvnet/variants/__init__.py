"""Variants of a design: the axes a scenario file declares, and what each variant scores.

A scenario file may end with a ``variants:`` mapping of *axes*. Each axis sets
the value at a path of the scenario to each of its values in turn; the
variants are every combination of the axes' values (their cartesian product),
named after them: ``jumbo=9000, algorithm=dynamic``::

    variants:
      jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
      algorithm: {set: "hosts[*].teams[*].load_balancing", values: [hyperv_port, dynamic]}

A path is fields joined by dots; after a field that holds a list, ``[*]``
takes every entry, ``[2]`` the third and ``[hv1]`` the one named hv1. The
last field is set whether or not the file writes it (a default is
overridden). The rest of the file is the *base* design, which ``hvnet
simulate`` runs (``load_scenario`` leaves ``variants:`` out).

By job:

- ``expand``: ``load_variants(path)`` checks the base design, each axis and
  each value on its own, and reports every problem at once, on the axis's
  lines; ``Variants`` builds a variant's data only when asked for
  (``Variants.data``), so a sweep ships the base design to its workers once
  and each builds its own variant. ``axes`` reads the ``variants:`` block.
- ``paths``: applying a variant's changes: where a path points in a design,
  and setting it.
- ``labels``: how a variant's values are written in its name.
- ``metrics``: ``Metrics.of(results)`` sums a run up in the numbers a
  comparison ranks, and ``best(metrics)`` says which runs are best at each
  (docs/sweeps.md).
"""

from __future__ import annotations

from hvnet.variants.axes import Axis
from hvnet.variants.expand import MAX_VARIANTS, Variant, Variants, load_variants
from hvnet.variants.labels import show_axis_value
from hvnet.variants.metrics import METRICS, Metric, Metrics, best

__all__ = [
    "MAX_VARIANTS",
    "METRICS",
    "Axis",
    "Metric",
    "Metrics",
    "Variant",
    "Variants",
    "best",
    "load_variants",
    "show_axis_value",
]
