"""The RSS Toeplitz hash, computed in the Rust core.

Windows hashes a connection's addresses (and, for TCP and UDP, ports) with a
40-byte secret key; the hash picks an RSS queue through the indirection
table and, for address-hash teams, a team member.
"""

from __future__ import annotations

import ipaddress

from hvnet import _core

__all__ = ["rss_hash", "toeplitz"]

IPAddress = str | ipaddress.IPv4Address | ipaddress.IPv6Address


def toeplitz(data: bytes, key: bytes | None = None) -> int:
    """The Toeplitz hash of `data`; Microsoft's default RSS key when `key` is None."""
    return _core.toeplitz(bytes(data), None if key is None else bytes(key))


def rss_hash(src_ip: IPAddress, dst_ip: IPAddress, src_port: int | None = None, dst_port: int | None = None) -> int:
    """The RSS hash Windows computes for a connection (ports: both or neither)."""
    return _core.rss_hash(str(src_ip), str(dst_ip), src_port, dst_port)
