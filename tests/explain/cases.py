"""What the explain tests share: issue 24's worked example, the designs and files of test_explain.py."""

from __future__ import annotations

import functools
from pathlib import Path

from hvnet.explain import Explanation, TestExplanation, explain
from hvnet.importers import read_measurement
from hvnet.model import Scenario, load_scenario, scenario_from_data
from tests.explain.test_explain import C9_RECEIVER, C9_SET, LACP_JUMBO, ntttcp_receiver

__all__ = [
    "C9_RECEIVER",
    "C9_SET",
    "LACP_JUMBO",
    "RECEIVE_CORES",
    "TWO_VMS",
    "explained",
    "lacp_hashing_on_macs",
    "ntttcp_receiver",
    "worked_example",
]

HERE = Path(__file__).parent
#: docs/import.md, "Example: 6.00 Gbps between two VMs on 2 x 10 GbE": the design and the receiver's file.
TWO_VMS = HERE / "scenarios" / "two-vms-2x10g.yaml"
RECEIVE_CORES = HERE / "samples" / "ntttcp_windows_receive_cores_receiver.txt"


@functools.cache
def worked_example() -> TestExplanation:
    """Issue 24's test explained: 6.00 Gbps measured, 7.86 Gbps predicted (computed once for the module)."""
    (result,) = explain(load_scenario(TWO_VMS), read_measurement(RECEIVE_CORES), "vm1", "vm2").tests
    return result


def explained(scenario: Path | Scenario, *files: Path) -> Explanation:
    """The files explained on the scenario, vm1 sending to vm2."""
    loaded = load_scenario(scenario) if isinstance(scenario, Path) else scenario
    return explain(loaded, [m for f in files for m in read_measurement(f)], "vm1", "vm2")


def lacp_hashing_on_macs() -> Scenario:
    """lacp-10g-jumbo.yaml with a switch that hashes port channels on MAC addresses: every connection
    between the same two VMs comes in on one member."""
    data = load_scenario(LACP_JUMBO).model_dump(mode="json", by_alias=True)
    data["switches"][0]["port_channel_hash"] = "mac_addresses"
    return scenario_from_data(data, "lacp-10g-jumbo.yaml with a MAC hash")
