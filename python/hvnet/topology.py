"""Scenario generators for common fabrics: a star and a leaf-spine.

They return plain YAML text that `load_scenario` accepts, so a user can
save, read and edit what was generated.
"""

from __future__ import annotations

import io

from ruamel.yaml import YAML

__all__ = ["leaf_spine", "star"]


def _host(name: str, nic_speed: str) -> dict[str, object]:
    return {"name": name, "nics": [{"name": "nic1", "speed": nic_speed}]}


def _dump(document: dict[str, object]) -> str:
    yaml = YAML()
    yaml.default_flow_style = None
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


def star(hosts: int, nic: str, switch_ports: int | None = None) -> str:
    """`hosts` hosts with one NIC each, cabled to one non-blocking switch."""
    if hosts < 1:
        raise ValueError("a star needs at least one host")
    ports = max(switch_ports or hosts, hosts)
    return _dump(
        {
            "name": f"Star of {hosts} hosts at {nic}",
            "hosts": [_host(f"hv{i}", nic) for i in range(1, hosts + 1)],
            "switches": [{"name": "switch", "ports": ports}],
            "cables": [{"a": f"hv{i}/nic1", "b": f"switch/{i}"} for i in range(1, hosts + 1)],
        }
    )


def leaf_spine(hosts: int, nic: str, leaves: int, spines: int, uplink: str) -> str:
    """Hosts spread evenly over `leaves` leaf switches, each leaf cabled to every spine."""
    if hosts < 1 or leaves < 1 or spines < 1:
        raise ValueError("a leaf-spine needs at least one host, one leaf and one spine")
    per_leaf = -(-hosts // leaves)
    cables: list[dict[str, str]] = []
    for i in range(1, hosts + 1):
        leaf, port = divmod(i - 1, per_leaf)
        cables.append({"a": f"hv{i}/nic1", "b": f"leaf{leaf + 1}/{port + 1}"})
    for leaf in range(1, leaves + 1):
        for spine in range(1, spines + 1):
            cables.append({"a": f"leaf{leaf}/{per_leaf + spine}", "b": f"spine{spine}/{leaf}", "speed": uplink})
    return _dump(
        {
            "name": f"Leaf-spine: {hosts} hosts at {nic}, {leaves} leaves, {spines} spines at {uplink}",
            "hosts": [_host(f"hv{i}", nic) for i in range(1, hosts + 1)],
            "switches": [{"name": f"leaf{i}", "ports": per_leaf + spines} for i in range(1, leaves + 1)]
            + [{"name": f"spine{i}", "ports": leaves} for i in range(1, spines + 1)],
            "cables": cables,
        }
    )
