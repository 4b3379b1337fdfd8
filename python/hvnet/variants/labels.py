"""Labels: how a variant's values are written in its name (``jumbo=9000, algorithm=dynamic``)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from hvnet.units import show_value

__all__ = ["show_axis_value", "variant_name"]


def show_axis_value(value: object) -> str:
    """A value as a variant's name shows it: ``9000``, ``dynamic``, ``true``, ``{"ghz":3}``."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return show_value(value)
    return json.dumps(value, separators=(",", ":"))


def variant_name(settings: Iterable[tuple[str, object]]) -> str:
    """``jumbo=9000, algorithm=dynamic`` for (axis name, value) pairs; ``base`` for none."""
    return ", ".join(f"{name}={show_axis_value(value)}" for name, value in settings) or "base"
