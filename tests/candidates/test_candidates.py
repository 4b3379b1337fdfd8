"""`hvnet design`: the cheapest candidate that meets the requirements, and why (docs/advise.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet.candidates import (
    DEFAULT_CANDIDATES,
    NEEDS_REQUIREMENTS,
    Candidate,
    apply,
    load_candidates,
    search,
)
from hvnet.errors import HvnetError, InputError
from hvnet.model import MigrationOption, TeamKind, load_scenario

Invoke = Callable[..., Result]
HERE = Path(__file__).parent
TWO_HOSTS = HERE / "two_hosts.yaml"

ONE_AND_TEN = """\
candidates:
  - {nics: 2, speed: 1Gbps, team: set, migration: compression}
  - {nics: 2, speed: 10Gbps, team: [lbfo, set], migration: compression}
"""


def candidates_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "candidates.yaml"
    path.write_text(text)
    return path


def test_default_list_is_the_issues() -> None:
    hardware = list(dict.fromkeys(c.hardware for c in DEFAULT_CANDIDATES))
    assert hardware == ["2 × 1 GbE", "4 × 1 GbE", "2 × 10 GbE", "2 × 25 GbE RDMA"]
    assert len(DEFAULT_CANDIDATES) == 32
    assert sum(c.skip_reason() is None for c in DEFAULT_CANDIDATES) == 25


def test_one_gbe_fails_max_drain_ten_gbe_meets_it(tmp_path: Path) -> None:
    # hv1's 96 GiB over one 1 GbE member, compressed: 482.9 s (8 min 03 s) > 5 min;
    # over 10 GbE: 66.7 s. The 10 GbE bill costs more, so 1 GbE would win if it passed.
    scenario = load_scenario(TWO_HOSTS)
    result = search(scenario, load_candidates(candidates_file(tmp_path, ONE_AND_TEN)))
    tried = {t.candidate.name: t for t in result.tried}
    one = tried["2 × 1 GbE SET, Compression"]
    drain = next(o for o in one.outcomes if o.requirement == "max_drain")
    assert one.status == "fail" and drain.figure == pytest.approx(482.9, abs=1)
    ten = tried["2 × 10 GbE SET, Compression"]
    drain = next(o for o in ten.outcomes if o.requirement == "max_drain")
    assert ten.status == "pass" and drain.figure == pytest.approx(66.7, abs=1)
    assert one.cost is not None and ten.cost is not None and one.cost < ten.cost
    assert result.best is ten  # LBFO and SET tie on cost and figures: SET first
    assert [t.status for t in result.tried] == ["pass", "pass", "fail"]
    words = result.reasoning()
    assert words.startswith(
        "2 × 10 GbE SET, Compression (USD 22,140.00) is the cheapest design that meets every requirement:"
        " max_drain 1 min 07 s ≤ 5 min"
    )
    assert (
        "2 × 1 GbE SET, Compression fails: the closest, 2 × 1 GbE SET, Compression (USD 11,272.00),"
        " fails max_drain (8 min 03 s > 5 min 00 s)" in words
    )


def test_candidate_rebuilds_nics_team_cables_and_ports() -> None:
    scenario = load_scenario(TWO_HOSTS)
    four = Candidate("four", 4, 10e9, False, TeamKind.SET, MigrationOption.SMB)
    built = apply(scenario, four)
    assert not isinstance(built, str)
    hv1 = built.host("hv1")
    assert [n.name for n in hv1.nics] == ["nic1", "nic2", "nic3", "nic4"]
    assert {n.speed for n in hv1.nics} == {10e9}
    assert hv1.teams[0].kind is TeamKind.SET and hv1.teams[0].members == ("nic1", "nic2", "nic3", "nic4")
    assert hv1.live_migration.option is MigrationOption.SMB
    ends = {c.a: c.b for c in built.cables}
    # NIC 1 and 2 keep their ports; 3 and 4 go to the first switch hv1 used, on free ports.
    assert ends["hv1/nic1"] == "tor1/1" and ends["hv1/nic2"] == "tor2/1"
    assert ends["hv1/nic3"] == "tor1/2" or ends["hv1/nic3"].startswith("tor1/")
    assert len({c.b for c in built.cables if c.a.startswith("hv")}) == 8
    assert ends["tor1/48"] == "tor2/48"


VM_TEAM = """\
name: A VM teamed over two virtual switches
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}],
     vswitches: [{name: vs1, uplink: nic1}, {name: vs2, uplink: nic2}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}],
     vswitches: [{name: vs1, uplink: nic1}, {name: vs2, uplink: nic2}]}
switches: [{name: tor1}, {name: tor2}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor2/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv2/nic2, b: tor2/2}
  - {a: tor1/48, b: tor2/48, speed: 40Gbps}
vms: [{name: app1, host: hv1, memory: 8GiB, team: {members: [vs1, vs2]}}]
requirements: {max_drain: 5min}
"""


def test_refused_candidate_is_listed_with_the_loaders_reason(tmp_path: Path) -> None:
    # A candidate binds both of a host's virtual switches to its one team, which the loader refuses
    # (a virtual switch per uplink); the search lists it with that reason and carries on.
    base = tmp_path / "base.yaml"
    base.write_text(VM_TEAM)
    result = search(
        load_scenario(base), load_candidates(candidates_file(tmp_path, "candidates:\n  - {nics: 2, speed: 10Gbps}\n"))
    )
    (refused,) = [t for t in result.tried if t.status == "refused"]
    assert refused.candidate.name == "2 × 10 GbE SET, Compression"
    assert "already the uplink of a virtual switch" in refused.reason and "\n" not in refused.reason


def test_a_candidate_spreads_a_team_over_two_switches_and_buys_the_ports_it_needs(tmp_path: Path) -> None:
    """8 NICs per host on switches of 4 ports: the NICs alternate between tor1 and tor2 (a team that
    survives a switch), and each switch grows to the 9 ports it now needs (8 NICs and the link)."""
    text = TWO_HOSTS.read_text().replace(
        "switches: [{name: tor1}, {name: tor2}]", "switches: [{name: tor1, ports: 4}, {name: tor2, ports: 4}]"
    )
    base = tmp_path / "base.yaml"
    base.write_text(text.replace("tor1/48, b: tor2/48", "tor1/4, b: tor2/4"))
    candidate = load_candidates(candidates_file(tmp_path, "candidates:\n  - {nics: 8, speed: 10Gbps}\n"))[0]
    built = apply(load_scenario(base), candidate)
    assert not isinstance(built, str), built
    switches_of = [[c.b.split("/")[0] for c in built.cables if c.a.startswith(f"{host}/")] for host in ("hv1", "hv2")]
    assert switches_of == [["tor1", "tor2"] * 4] * 2
    assert [s.ports for s in built.switches] == [9, 9]


def test_smb_direct_without_rdma_or_with_lbfo_is_skipped_with_the_reason() -> None:
    skipped = {c.name: c.skip_reason() for c in DEFAULT_CANDIDATES if c.skip_reason()}
    assert skipped["2 × 10 GbE SET, SMB Direct"] == "SMB Direct needs RDMA NICs; these are not (rdma: false)"
    assert "needs SET" in str(skipped["2 × 25 GbE RDMA LBFO, SMB Direct"])
    assert "2 × 25 GbE RDMA SET, SMB Direct" not in skipped


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("candidates: []\n", "candidates: expected a list of at least one candidate"),
        ("candidates:\n  - {nics: 2}\n", "candidates[0]: speed is missing"),
        ("candidates:\n  - {nics: 2, speed: fast}\n", "candidates[0].speed: 'fast': expected a link rate"),
        ("candidates:\n  - {nics: 0, speed: 1Gbps}\n", "candidates[0].nics: 0: expected a whole number"),
        (
            "candidates:\n  - {nics: 2, speed: 1Gbps, team: switch}\n",
            "candidates[0].team: 'switch' is not one of lbfo, set",
        ),
        ("candidates:\n  - {nics: 2, speed: 1Gbps, migraton: smb}\n", "candidates[0].migraton: unknown field"),
        ("designs: []\n", "expected a mapping with candidates:"),
    ],
)
def test_bad_candidates_file_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_candidates(candidates_file(tmp_path, text))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_no_requirements_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bare.yaml"
    path.write_text(TWO_HOSTS.read_text().split("requirements:")[0])
    with pytest.raises(HvnetError, match="needs the scenario's requirements"):
        search(load_scenario(path))


def test_cli_table_reasoning_and_json(cli: Invoke, tmp_path: Path) -> None:
    path = candidates_file(tmp_path, ONE_AND_TEN)
    result = cli("design", TWO_HOSTS, "--candidates", path)
    assert result.exit_code == 0, result.stderr
    for text in ("2 × 10 GbE SET, Compression", "8 min 03 s", "1 min 07 s", "is the cheapest design"):
        assert text in result.stdout
    result = cli("design", TWO_HOSTS, "--candidates", path, "--json", "-")
    document = json.loads(result.stdout)
    assert document["best"] == "2 × 10 GbE SET, Compression"
    assert [c["status"] for c in document["candidates"]] == ["pass", "pass", "fail"]
    assert document["candidates"][2]["outcomes"][0]["requirement"] == "max_drain"


def test_cli_without_requirements_or_with_a_bad_file(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "bare.yaml"
    path.write_text(TWO_HOSTS.read_text().split("requirements:")[0])
    result = cli("design", path)
    assert result.exit_code == 2
    assert result.stderr.strip() == NEEDS_REQUIREMENTS
    result = cli("design", TWO_HOSTS, "--candidates", candidates_file(tmp_path, "candidates: 3\n"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_cli_exit_1_when_nothing_passes(cli: Invoke, tmp_path: Path) -> None:
    path = candidates_file(tmp_path, "candidates:\n  - {nics: 2, speed: 1Gbps}\n")
    result = cli("design", TWO_HOSTS, "--candidates", path)
    assert result.exit_code == 1
    assert "No candidate meets every requirement" in result.stdout


def test_none_passes_names_the_closest_and_what_every_candidate_fails(tmp_path: Path) -> None:
    # Every NIC on tor1: no candidate (they change NICs, not switches) survives tor1 down.
    text = TWO_HOSTS.read_text().replace("tor2/1}", "tor1/3}").replace("tor2/2}", "tor1/4}")
    path = tmp_path / "one_switch.yaml"
    path.write_text(text.replace("max_drain: 5min", "max_drain: 10min"))
    result = search(load_scenario(path), load_candidates(candidates_file(tmp_path, ONE_AND_TEN)))
    assert result.best is None
    words = result.reasoning()
    assert words.startswith("No candidate meets every requirement. The closest, 2 × 1 GbE SET, Compression")
    assert (
        "Every candidate fails survive switch. The candidates change NICs, teams and live migration, not the switches"
        in words
    )
