"""The worked answers of docs/advise.md, "From your hosts' counters": do I need 10 GbE?

Two hosts, each with a pair of 1 GbE NICs in a SET team and 32 GiB of VMs on hv1; the operators
want a host drained in 10 minutes and no NIC member above 70 % of its link for 90 % of the time.
Ten minutes of one-second counter logs of each NIC (typeperf CSV, Bytes Sent/sec and Bytes
Received/sec) become the scenario's demand (`hvnet import demand`), and `hvnet design` weighs
a 1 GbE pair against a 10 GbE pair under that load, drains included.
"""

from __future__ import annotations

import random
from pathlib import Path

from hvnet.candidates import Candidate, search
from hvnet.importers import read_measurement
from hvnet.importers.demand import import_demand, with_demand
from hvnet.model import MigrationOption, TeamKind, load_scenario

SCENARIO = """\
name: two hosts, measured
hosts:
  - name: hv1
    nics: [{name: nic1, speed: 1Gbps}, {name: nic2, speed: 1Gbps}]
    teams: [{name: t1, kind: set, members: [nic1, nic2]}]
  - name: hv2
    nics: [{name: nic1, speed: 1Gbps}, {name: nic2, speed: 1Gbps}]
    teams: [{name: t1, kind: set, members: [nic1, nic2]}]
switches: [{name: tor, ports: 8}]
cables:
  - {a: hv1/nic1, b: tor/1}
  - {a: hv1/nic2, b: tor/2}
  - {a: hv2/nic1, b: tor/3}
  - {a: hv2/nic2, b: tor/4}
vms:
  - {name: vm1, host: hv1, memory: 16GiB}
  - {name: vm2, host: hv1, memory: 16GiB}
requirements:
  max_drain: 10min
  max_utilisation: {p90: 70%}
"""

CANDIDATES = [
    Candidate(
        name=f"2 × {g} GbE",
        nics=2,
        speed_bps=g * 1e9,
        rdma=False,
        team=TeamKind.SET,
        migration=MigrationOption.COMPRESSION,
    )
    for g in (1, 10)
]


def logs(tmp_path: Path, low: float, high: float) -> list[Path]:
    """Each host's log: both NICs, both ways, a rate drawn from [low, high) bytes/s each second."""
    rng = random.Random(7)
    paths = []
    for host in ("hv1", "hv2"):
        columns = [
            f"\\\\{host}\\Network Interface({nic})\\Bytes {way}/sec"
            for nic in ("nic1", "nic2")
            for way in ("Sent", "Received")
        ]
        lines = ['"(PDH-CSV 4.0) (UTC)(0)",' + ",".join(f'"{c}"' for c in columns)]
        for k in range(601):
            minute, second = divmod(k, 60)
            values = ",".join(f'"{rng.uniform(low, high):.0f}"' for _ in columns)
            lines.append(f'"11/27/2026 10:{minute:02d}:{second:02d}.000",{values}')
        path = tmp_path / f"{host}.csv"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def answer(tmp_path: Path, low: float, high: float) -> tuple[str | None, dict[str, float]]:
    """The cheapest candidate that passes, and each candidate's p90 utilisation."""
    base = tmp_path / "cluster.yaml"
    base.write_text(SCENARIO)
    records = [r for path in logs(tmp_path, low, high) for r in read_measurement(path)]
    imported = import_demand(load_scenario(base), records)
    measured = tmp_path / "measured.yaml"
    measured.write_text(with_demand(SCENARIO, str(base), imported))
    result = search(load_scenario(measured), CANDIDATES)
    p90 = {
        t.candidate.name: next(o.figure or 0.0 for o in t.outcomes if o.requirement == "max_utilisation.p90")
        for t in result.tried
    }
    return (result.best.candidate.name if result.best else None), p90


def test_quiet_hosts_need_no_more_than_1_gbe(tmp_path: Path) -> None:
    """Adapters that carry 1-9 kB/s (tens of kilobits): the 1 GbE pair meets both requirements,
    far below the limit, and is the cheaper."""
    best, p90 = answer(tmp_path, 1e3, 9e3)
    assert best == "2 × 1 GbE"
    assert p90["2 × 1 GbE"] < 0.001


def test_hosts_near_line_rate_need_10_gbe(tmp_path: Path) -> None:
    """Members carrying 100-120 MB/s (0.8-0.96 Gbps) of a 1 GbE link: the 1 GbE pair is above 70 %
    at p90, whatever else it does; the 10 GbE pair carries the same at under 10 %."""
    best, p90 = answer(tmp_path, 100e6, 120e6)
    assert best == "2 × 10 GbE"
    assert p90["2 × 1 GbE"] > 0.7 and p90["2 × 10 GbE"] < 0.1
