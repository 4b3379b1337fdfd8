"""Words for counts of things, as hvnet's tables, reports and advice write them."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``counted(1, "host")`` is "1 host", ``counted(3, "switch", "switches")`` "3 switches"."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
