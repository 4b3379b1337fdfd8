"""The form view edits the YAML file itself (hvnet.web.forms): a changed value replaces exactly the old
one's characters, so every comment and every other line stays as the user wrote it; a NIC or a VM
added or removed keeps the file's comments and layout too; and what comes out loads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.model import parse_scenario
from hvnet.web.forms import FormError, apply_edits, read_form
from tests.web.conftest import Served, drained_star

FAILOVER = (Path(__file__).parents[2] / "python" / "hvnet" / "examples" / "failover.yaml").read_text()


def test_the_form_reads_hosts_nics_teams_live_migration_and_vms_as_written() -> None:
    form = read_form(FAILOVER)
    hv1 = form["hosts"][0]
    assert hv1["name"] == "hv1"
    assert hv1["nics"][1] == {"name": "nic2", "speed": "10Gbps", "mtu": "9000", "rdma": "true"}
    assert hv1["teams"][0]["members"] == ["nic1", "nic2"]
    assert hv1["teams"][0]["load_balancing"] == "dynamic"
    assert hv1["live_migration"] == {"option": None, "simultaneous": None, "networks": None}
    assert form["vms"][0] == {"name": "vm-big", "host": "hv1", "vcpus": "4", "memory": "55GiB"}
    assert form["vm_count"] == 7


def test_a_changed_value_replaces_only_its_characters() -> None:
    """Changing hv1's nic2 to 25 Gbps changes that one line, by those characters: comments, flow
    mappings and the folded description are as they were."""
    changed = apply_edits(FAILOVER, [{"path": ["hosts", 0, "nics", 1, "speed"], "value": "25Gbps"}])
    before, after = FAILOVER.splitlines(), changed.splitlines()
    differing = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after)
    assert differing == [
        (
            "      - {name: nic2, speed: 10Gbps, mtu: 9000, rdma: true}",
            "      - {name: nic2, speed: 25Gbps, mtu: 9000, rdma: true}",
        )
    ]
    assert parse_scenario(changed).hosts[0].nics[1].speed == 25e9


def test_numbers_and_booleans_are_written_as_such_and_odd_text_quoted() -> None:
    changed = apply_edits(
        FAILOVER,
        [
            {"path": ["hosts", 0, "nics", 0, "mtu"], "value": "1500"},
            {"path": ["hosts", 0, "nics", 0, "rdma"], "value": "false"},
            {"path": ["vms", 0, "name"], "value": "yes"},  # YAML 1.1 would read yes as true: quoted
        ],
    )
    assert "- {name: nic1, speed: 10Gbps, mtu: 1500, rdma: false}" in changed
    assert '{name: "yes", host: hv1' in changed
    assert parse_scenario(changed).vms[0].name == "yes"


def test_a_field_not_written_yet_is_added_with_its_parents() -> None:
    """hv1 has no live_migration: block; setting its option makes one, and the file still loads."""
    changed = apply_edits(FAILOVER, [{"path": ["hosts", 0, "live_migration", "option"], "value": "smb"}])
    scenario = parse_scenario(changed)
    assert scenario.hosts[0].live_migration.option.value == "smb"
    assert "# hvnet's failover example" in changed  # comments kept
    assert "- {name: nic1, speed: 10Gbps, mtu: 9000, rdma: true}" in changed  # flow style kept


def test_entries_are_added_and_removed() -> None:
    text = drained_star()
    added = apply_edits(text, [{"path": ["vms"], "append": {"name": "vm5", "host": "hv2", "memory": "4GiB"}}])
    assert [vm.name for vm in parse_scenario(added).vms] == ["vm1", "vm2", "vm3", "vm4", "vm5"]
    removed = apply_edits(added, [{"path": ["vms", 0], "remove": True}])
    assert [vm.name for vm in parse_scenario(removed).vms] == ["vm2", "vm3", "vm4", "vm5"]
    nic = apply_edits(text, [{"path": ["hosts", 1, "nics"], "append": {"name": "nic2", "speed": "10Gbps"}}])
    assert [n.name for n in parse_scenario(nic).hosts[1].nics] == ["nic1", "nic2"]


def test_an_edit_of_no_place_or_of_bad_yaml_is_refused() -> None:
    with pytest.raises(FormError, match="no such entry"):
        apply_edits(drained_star(), [{"path": ["vms", 99], "remove": True}])
    with pytest.raises(FormError, match="fix the file first"):
        read_form("hosts: [")
    with pytest.raises(FormError, match="fix the file first"):
        apply_edits("a: [", [{"path": ["a"], "append": {"b": 1}}])
    with pytest.raises(FormError, match="a list of field names"):
        apply_edits(drained_star(), [{"path": "vms", "value": 1}])


def test_the_form_endpoints_read_and_edit(served: Served) -> None:
    form = served.client.post("/api/form", content=drained_star(), headers={"Content-Type": "application/yaml"})
    assert form.json()["hosts"][0]["nics"] == [{"name": "nic1", "speed": "10Gbps", "mtu": None, "rdma": None}]
    edited = served.client.post(
        "/api/form/apply",
        json={"yaml": drained_star(), "edits": [{"path": ["hosts", 0, "nics", 0, "speed"], "value": "1Gbps"}]},
    )
    assert edited.json()["yaml"] == drained_star().replace(
        "{name: nic1, speed: 10Gbps}", "{name: nic1, speed: 1Gbps}", 1
    )
    bad = served.client.post("/api/form/apply", json={"yaml": "a: [", "edits": [{"path": ["a"], "value": "1"}]})
    assert bad.status_code == 422
