"""`hvnet design`: every candidate that fails says why in one clause, beneath its row in the table and as
its `reason` in the JSON (docs/advise.md); SMB over an LBFO team of RDMA NICs runs over TCP, as Windows
does, instead of never finishing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet.candidates import Tried, load_candidates, search
from hvnet.check.show import figure_text
from hvnet.model import load_scenario

Invoke = Callable[..., Result]
HERE = Path(__file__).parent
TWO_HOSTS = HERE / "two_hosts.yaml"

#: Jumbo frames on every NIC (a candidate keeps the first NIC's settings), a switch that forwards 1500:
#: every full-size frame of a migration is dropped, so no drain ever ends, whatever the candidate.
JUMBO = """\
name: Jumbo hosts, a switch at 1500
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 1Gbps, mtu: 9000}]}
  - {name: hv2, nics: [{name: nic1, speed: 1Gbps, mtu: 9000}]}
switches: [{name: tor1, mtu: 1500}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv2/nic1, b: tor1/2}
vms:
  - {name: sql1, host: hv1, memory: 16GiB}
requirements: {max_drain: 5min}
"""
BLACK_HOLED = (
    "drain of hv1 never ends: sql1's migration is black-holed: a switch on its route drops its full-size frames"
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def tried(tmp_path: Path, base: Path, candidates: str) -> dict[str, Tried]:
    result = search(load_scenario(base), load_candidates(write(tmp_path, "candidates.yaml", candidates)))
    return {t.candidate.name: t for t in result.tried}


def test_a_candidate_whose_migrations_never_finish_says_what_holds_them(tmp_path: Path) -> None:
    """The run's warning says why the migration never completes; the candidate's reason says so too, where
    it used to read only `never`."""
    base = write(tmp_path, "jumbo.yaml", JUMBO)
    (t,) = tried(tmp_path, base, "candidates:\n  - {nics: 2, speed: 10Gbps}\n").values()
    assert t.status == "fail"
    (drain,) = t.outcomes
    assert drain.figure is None
    assert t.why() == BLACK_HOLED
    assert drain.worst == f"drain of hv1: never ends ({BLACK_HOLED.removeprefix('drain of hv1 never ends: ')})"


def test_the_table_prints_the_reason_beneath_the_row_and_the_json_has_it(cli: Invoke, tmp_path: Path) -> None:
    base = write(tmp_path, "jumbo.yaml", JUMBO)
    candidates = write(tmp_path, "mine.yaml", "candidates:\n  - {nics: 2, speed: 10Gbps}\n")
    result = cli("design", base, "--candidates", candidates)
    assert result.exit_code == 1
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    row = next(n for n, line in enumerate(lines) if "✗ 2 × 10 GbE SET, Compression" in line)
    assert "never ✗" in lines[row]
    # The reason is longer than the terminal is wide: it wraps, each line indented under the name.
    beneath = []
    for line in lines[row + 1 :]:
        if not line.startswith("    "):
            break
        beneath.append(line.strip())
    assert len(beneath) == 2 and lines[row + 1].startswith("    drain of hv1 never ends")
    assert " ".join(beneath) == BLACK_HOLED
    document = json.loads(cli("design", base, "--candidates", candidates, "--json", "-").stdout)
    (candidate,) = document["candidates"]
    assert (candidate["status"], candidate["reason"]) == ("fail", BLACK_HOLED)
    assert BLACK_HOLED in document["reasoning"]


def test_a_candidate_a_single_failure_cuts_off_names_the_failure_and_the_hosts(tmp_path: Path) -> None:
    """One NIC per host, on tor1: with tor1 down neither host has a NIC left."""
    (t,) = tried(tmp_path, TWO_HOSTS, "candidates:\n  - {nics: 1, speed: 10Gbps}\n").values()
    assert t.status == "fail"
    assert t.why() == "with switch tor1 down, drain of hv1 never ends: hv1 and hv2 are cut off"


def test_a_candidate_over_a_limit_says_by_how_much(tmp_path: Path) -> None:
    """The design as is fails before a single failure does: its reason is max_drain, not survive switch."""
    (t,) = tried(tmp_path, TWO_HOSTS, "candidates:\n  - {nics: 2, speed: 1Gbps}\n").values()
    assert t.status == "fail" and "survive switch" in t.failed_names()
    drain = next(o for o in t.outcomes if o.requirement == "max_drain")
    assert drain.figure == pytest.approx(482.9, abs=1)  # 8 min 03 s
    # Times as every face writes them (`check.show.figure_text`).
    assert t.why() == f"drain of hv1 takes {figure_text(drain.figure, 's')} > max_drain {figure_text(300.0, 's')}"


def test_a_candidate_the_simulator_refuses_to_drain_says_why(tmp_path: Path) -> None:
    base = write(
        tmp_path,
        "no_room.yaml",
        TWO_HOSTS.read_text()
        .replace("{name: hv1,", "{name: hv1, memory: 256GiB,")
        .replace("{name: hv2,", "{name: hv2, memory: 64GiB,"),
    )
    (t,) = tried(tmp_path, base, "candidates:\n  - {nics: 2, speed: 10Gbps}\n").values()
    assert t.status == "fail"
    assert t.why().startswith("drain of hv1 refused: ") and "fits on no other host" in t.why()


def test_passing_skipped_and_refused_candidates_keep_their_reasons(tmp_path: Path) -> None:
    found = tried(
        tmp_path,
        TWO_HOSTS,
        "candidates:\n  - {nics: 2, speed: 10Gbps, migration: [compression, smb_direct]}\n",
    )
    assert found["2 × 10 GbE SET, Compression"].why() == ""
    assert found["2 × 10 GbE SET, SMB Direct"].why() == "SMB Direct needs RDMA NICs; these are not (rdma: false)"


def test_smb_over_an_lbfo_team_of_rdma_nics_falls_back_to_tcp_and_passes(tmp_path: Path) -> None:
    """It used to be refused ("SMB Direct is refused on an LBFO team") and read `never`: an LBFO team gives
    no RDMA, so SMB runs over TCP on the team interface (BEHAVIOUR.md), slower than SMB Direct over SET."""
    found = tried(
        tmp_path,
        TWO_HOSTS,
        "candidates:\n  - {nics: 2, speed: 25Gbps, rdma: true, team: [lbfo, set], migration: smb}\n",
    )
    lbfo, set_ = found["2 × 25 GbE RDMA LBFO, SMB"], found["2 × 25 GbE RDMA SET, SMB"]
    assert lbfo.status == "pass" and set_.status == "pass"
    drains = [next(o.figure for o in t.outcomes if o.requirement == "max_drain") for t in (lbfo, set_)]
    assert drains[0] is not None and drains[1] is not None
    assert drains[0] > drains[1] * 1.2  # TCP over the team, against SMB Direct over both members
    assert drains[0] == pytest.approx(42.2, abs=1)
