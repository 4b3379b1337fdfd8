"""The RSS Toeplitz hash against Microsoft's published verification vectors.

The vectors (shared/data/rss-toeplitz-vectors.json, beside the repository) come
from "Verifying the RSS Hash Calculation" in the Windows driver docs: for each
connection, the hash of its addresses alone and of its addresses and ports,
under Microsoft's default 40-byte key. The input is the source address, the
destination address, the source port and the destination port, in network
byte order.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest

from hvnet.hashing import rss_hash, toeplitz

VECTORS_FILE = Path(__file__).resolve().parents[2] / "shared" / "data" / "rss-toeplitz-vectors.json"


def _load() -> dict[str, Any]:
    if not VECTORS_FILE.exists():
        return {"key_hex": "", "vectors": []}
    document: dict[str, Any] = json.loads(VECTORS_FILE.read_text())
    return document


DOCUMENT = _load()
VECTORS: list[dict[str, Any]] = DOCUMENT["vectors"]
IDS = [f"{v['source']}:{v['source_port']}->{v['destination']}:{v['destination_port']}" for v in VECTORS]


def test_the_vectors_are_there() -> None:
    assert VECTORS_FILE.exists(), (
        f"{VECTORS_FILE} is missing: the RSS test vectors live in shared/data/ beside the repository"
    )
    # Five IPv4 and three IPv6 connections in Microsoft's table.
    assert len(VECTORS) == 8


def _input(vector: dict[str, Any], ports: bool) -> bytes:
    data = ipaddress.ip_address(vector["source"]).packed + ipaddress.ip_address(vector["destination"]).packed
    if ports:
        data += vector["source_port"].to_bytes(2, "big") + vector["destination_port"].to_bytes(2, "big")
    return data


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_rss_hash_of_addresses(vector: dict[str, Any]) -> None:
    assert rss_hash(vector["source"], vector["destination"]) == int(vector["hash_ip_only"], 16)


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_rss_hash_of_addresses_and_ports(vector: dict[str, Any]) -> None:
    got = rss_hash(vector["source"], vector["destination"], vector["source_port"], vector["destination_port"])
    assert got == int(vector["hash_with_ports"], 16)


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_toeplitz_of_the_packed_input(vector: dict[str, Any]) -> None:
    """`toeplitz` hashes the bytes rss_hash builds: addresses, then ports, big-endian."""
    assert toeplitz(_input(vector, ports=False)) == int(vector["hash_ip_only"], 16)
    assert toeplitz(_input(vector, ports=True)) == int(vector["hash_with_ports"], 16)


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_the_default_key_is_microsofts(vector: dict[str, Any]) -> None:
    """Passing the published key explicitly gives the same hash as the default."""
    key = bytes.fromhex(DOCUMENT["key_hex"])
    assert len(key) == 40
    data = _input(vector, ports=True)
    assert toeplitz(data, key) == toeplitz(data) == int(vector["hash_with_ports"], 16)


def test_addresses_may_be_ipaddress_objects() -> None:
    vector = VECTORS[0] if VECTORS else pytest.fail(f"{VECTORS_FILE} is missing")
    source, destination = ipaddress.ip_address(vector["source"]), ipaddress.ip_address(vector["destination"])
    assert rss_hash(source, destination) == int(vector["hash_ip_only"], 16)


def test_another_key_gives_another_hash() -> None:
    """The hash depends on the key: an all-zero key hashes everything to 0."""
    data = bytes(range(12))
    assert toeplitz(data, bytes(40)) == 0
    assert toeplitz(data) != 0
