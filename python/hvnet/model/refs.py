"""References to a port: ``host/nic`` and ``switch/port``, parsed in one place.

A cable's two ends and the target of a NIC, cable or port event name a port
of a device: the device's name, a '/', and the port (a NIC's name, or a
switch port's number). Names cannot contain '/' (``scenario.Name``), so the
one '/' is where a reference splits.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SEPARATOR", "Ref", "is_ref", "parse_ref", "split_endpoint"]

#: What separates a device from its port: ``hv1/nic1``, ``tor1/3``.
SEPARATOR = "/"


@dataclass(frozen=True)
class Ref:
    """A parsed reference: the device (host or switch) and its port, as written."""

    node: str
    port: str  # a NIC's name, or a switch port's number as text

    def __str__(self) -> str:
        return f"{self.node}{SEPARATOR}{self.port}"


def parse_ref(text: str) -> Ref:
    """``"hv1/nic1"`` -> ``Ref("hv1", "nic1")``; ``" tor1/3 "`` -> ``Ref("tor1", "3")``.

    Raises ValueError unless the text, stripped, is two non-empty parts around one '/'.
    """
    node, slash, port = text.strip().partition(SEPARATOR)
    if not slash or not node or not port or SEPARATOR in port:
        raise ValueError(f"{text!r} is not an endpoint; write host/nic (e.g. hv1/nic1) or switch/port (e.g. tor1/1)")
    return Ref(node, port)


def is_ref(text: str) -> bool:
    """Whether the text is written as a reference (has a '/'), well formed or not; a name has none."""
    return SEPARATOR in text


def split_endpoint(endpoint: str) -> tuple[str, str]:
    """``"hv1/nic1"`` -> ``("hv1", "nic1")``; ``"tor1/3"`` -> ``("tor1", "3")``.

    Raises ValueError unless the text is two non-empty parts around one '/' (``parse_ref``).
    """
    ref = parse_ref(endpoint)
    return ref.node, ref.port
