"""A candidate keeps each host's measured demand, whatever NICs it gives the host (candidates/build.py):
the host's load is the sum over the NICs it was measured on, split evenly over the candidate's NICs."""

from __future__ import annotations

from hvnet.candidates import Candidate, apply
from hvnet.model import MigrationOption, Scenario, TeamKind, parse_scenario

BASE = """\
name: four NICs measured
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 1Gbps}
      - {name: nic2, speed: 1Gbps}
      - {name: nic3, speed: 1Gbps}
      - {name: nic4, speed: 1Gbps}
  - {name: hv2, nics: [{name: nic1, speed: 1Gbps}]}
switches: [{name: tor}]
cables:
  - {a: hv1/nic1, b: tor/1}
  - {a: hv1/nic2, b: tor/2}
  - {a: hv1/nic3, b: tor/3}
  - {a: hv1/nic4, b: tor/4}
  - {a: hv2/nic1, b: tor/5}
demand:
  - {nic: hv1/nic1, send: [[0s, 100Mbps], [60s, 300Mbps], [120s, 0bps]]}
  - {nic: hv1/nic3, send: [[30s, 200Mbps], [120s, 0bps]], receive: [[0s, 40Mbps], [120s, 0bps]]}
"""


def two_nics() -> Scenario:
    candidate = Candidate(
        name="2 x 10", nics=2, speed_bps=10e9, rdma=False, team=TeamKind.SET, migration=MigrationOption.TCP_IP
    )
    built = apply(parse_scenario(BASE), candidate)
    assert isinstance(built, Scenario), built
    return built


def test_the_hosts_load_is_summed_over_its_nics_and_split_over_the_new_ones() -> None:
    """hv1 sent 100, then 300 (nic1) plus 200 from 30 s (nic3): 100, 300, 500, 0 Mbps at 0, 30, 60, 120 s;
    each of its two new NICs replays half. nic3's receive moves the same way; hv2 measured nothing."""
    demand = {d.nic: d for d in two_nics().demand}
    assert set(demand) == {"hv1/nic1", "hv1/nic2"}
    for nic in ("hv1/nic1", "hv1/nic2"):
        assert list(demand[nic].send) == [(0.0, 50e6), (30.0, 150e6), (60.0, 250e6), (120.0, 0.0)]
        assert list(demand[nic].receive) == [(0.0, 20e6), (120.0, 0.0)]
