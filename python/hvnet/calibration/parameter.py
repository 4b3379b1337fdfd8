"""A parameter of the calibration: a dataclass field that carries its unit, kind, source and uncertainty.

The groups declare each parameter with ``parameter(...)``; ``Calibration.parameters()`` reads them back
as ``Parameter``s, each with its range as values (``spread_values``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Kind", "Parameter", "parameter", "spread_values"]

Kind = Literal["calibrated", "documented", "assumed"]


def spread_values(value: Any, spread: tuple[float, float] | float | None) -> tuple[float, float] | None:
    """A parameter's range as values: its stated ends, or ±`spread` % around its value."""
    if isinstance(spread, float):
        return (value * (1 - spread / 100), value * (1 + spread / 100))
    return spread


def parameter(
    default: Any,
    unit: str,
    kind: Kind,
    source: str,
    uncertainty: str,
    fitted_on: tuple[str, ...] = (),
    spread: tuple[float, float] | float | None = None,
) -> Any:
    """A dataclass field that carries its unit, kind, source and uncertainty, for a calibrated one the
    figures of `hvnet validate` it was fitted on (their ids, e.g. ``C2/peak``), and its uncertainty as
    values (`spread`): the low and high ends of its range, or a percentage either side of whatever value it
    has (15.0: ±15 %); None: exact, or not a single number."""
    meta = {
        "unit": unit,
        "kind": kind,
        "source": source,
        "uncertainty": uncertainty,
        "fitted_on": fitted_on,
        "spread": spread,
    }
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Parameter:
    """One parameter as a reader sees it: `group.name = value unit`, and why."""

    group: str
    name: str
    value: Any
    unit: str
    kind: Kind
    source: str
    uncertainty: str
    #: The `hvnet validate` figures a calibrated parameter was fitted on (empty for the others).
    fitted_on: tuple[str, ...] = ()
    #: Its uncertainty as values: the low and high ends of its range (None: exact, or not one number).
    spread: tuple[float, float] | None = None
