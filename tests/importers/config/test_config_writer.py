"""The writer of imported scenarios (`hvnet.importers.config.writer`): model objects and comments as YAML.

`hvnet import config` builds the model's own objects and this one writer dumps them. These tests say
what it writes from objects built in the test, so that a change of the writer shows here and not only
as a different golden file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hvnet
from hvnet.importers.config import import_config
from hvnet.importers.config.writer import Comment, scenario_yaml
from hvnet.model import VM, Host, LiveMigration, Nic, Scenario, Team, TeamingMode, TeamKind

FIXTURES = Path(__file__).parent / "fixtures"


def one_host() -> Scenario:
    nic = Nic.model_construct(name="NIC1", speed=10e9, mtu=9000, vmq=False)
    team = Team.model_construct(name="Team1", kind=TeamKind.LBFO, members=("NIC1",), mode=TeamingMode.LACP)
    host = Host.model_construct(name="hv1", nics=(nic,), teams=(team,), live_migration=LiveMigration.model_construct())
    vm = VM.model_construct(name="vm1", host="hv1", memory=4 * 2**30)
    return Scenario.model_construct(name="one", hosts=(host,), vms=(vm,))


def test_only_the_fields_set_are_written_in_the_models_order_with_its_units() -> None:
    """A NIC states what it was given (no dynamic_vmq, no rss_queues: the model's defaults stay unsaid);
    speeds and memory as the model writes them; enums by their values; empty objects as {}."""
    assert scenario_yaml(one_host(), {}) == (
        "name: one\n"
        "hosts:\n"
        "  - name: hv1\n"
        "    nics:\n"
        "      - {name: NIC1, speed: 10 Gbps, mtu: 9000, vmq: false}\n"
        "    teams:\n"
        "      - {name: Team1, kind: lbfo, members: [NIC1], mode: lacp}\n"
        "    live_migration: {}\n"
        "vms:\n"
        "  - {name: vm1, host: hv1, memory: 4 GiB}\n"
    )


def test_comments_go_above_and_after_what_their_path_names() -> None:
    """Lines above an item or field at its indentation; notes after a value, two spaces before '#', joined
    by '; '; the comment of a field that is not written is not written either."""
    comments = {
        "": Comment(above=("head",)),
        "hosts[0]": Comment(above=("the host",)),
        "hosts[0].nics": Comment(above=("from Get-NetAdapter",)),
        "hosts[0].nics[0]": Comment(after=("one", "two")),
        "hosts[0].live_migration": Comment(after=("ASSUMED: defaults",)),
        "hosts[0].vswitches": Comment(above=("no virtual switch, so not written",)),
        "vms[0]": Comment(after=("vRSS on",)),
    }
    assert scenario_yaml(one_host(), comments) == (
        "# head\n"
        "name: one\n"
        "hosts:\n"
        "  # the host\n"
        "  - name: hv1\n"
        "    # from Get-NetAdapter\n"
        "    nics:\n"
        "      - {name: NIC1, speed: 10 Gbps, mtu: 9000, vmq: false}  # one; two\n"
        "    teams:\n"
        "      - {name: Team1, kind: lbfo, members: [NIC1], mode: lacp}\n"
        "    live_migration: {}  # ASSUMED: defaults\n"
        "vms:\n"
        "  - {name: vm1, host: hv1, memory: 4 GiB}  # vRSS on\n"
    )


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("hv1", "hv1"),  # a simple name: plain
        ("switch_independent", "switch_independent"),
        ("10 Gbps", "10 Gbps"),  # a quantity: plain
        ("Ethernet 2", '"Ethernet 2"'),  # anything else double-quoted
        ("hv1/NIC1", '"hv1/NIC1"'),
        ("yes", '"yes"'),  # a word YAML 1.1 reads as a boolean or null stays text
        ("Null", '"Null"'),
        ('say "hi"\\ \x01', '"say \\"hi\\"\\\\ \\u0001"'),  # with JSON's escapes
        ("Netzwerkbrücke", '"Netzwerkbrücke"'),  # not ASCII: quoted, kept as it is
    ],
)
def test_a_string_is_plain_only_when_it_is_a_simple_name_or_a_quantity(name: str, written: str) -> None:
    assert scenario_yaml(Scenario.model_construct(name=name, hosts=()), {}) == f"name: {written}\n"


def test_a_written_scenario_reads_back_as_the_same_scenario() -> None:
    """Every fixture imported at once, read by the loader, written again without comments and read again:
    the same design (the writer loses nothing the loader read)."""
    loaded = hvnet.parse_scenario(import_config(sorted(FIXTURES.glob("*.json"))).yaml, "imported.yaml")
    again = hvnet.parse_scenario(scenario_yaml(loaded, {}), "again.yaml")
    assert again == loaded
    assert again.host("hv5").live_migration.smb_bandwidth_limit == 8 * 2**30
