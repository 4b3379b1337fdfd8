"""What holds a predicted test: the resources on its path, read back from a recorded run (issue 24)."""

from __future__ import annotations

import pytest

from hvnet import simulate
from hvnet.explain import recreate
from hvnet.explain.bottleneck import bottleneck_chain
from hvnet.explain.predict import predict
from hvnet.explain.sentences import chain_summary, limit_phrase
from hvnet.model import load_scenario, scenario_from_data
from tests.explain.cases import LACP_JUMBO, TWO_VMS, lacp_hashing_on_macs, worked_example


def ntttcp(threads: int, seconds: float = 15.0) -> recreate.Test:
    """The test re-created from an ntttcp -m THREADS run vm1 -> vm2 of SECONDS."""
    return recreate.Test("ntttcp", "vm1", "vm2", threads, seconds, 128 * 1024, ())


def test_the_receive_cores_hold_the_worked_example() -> None:
    """Issue 24: 8 threads vm1 -> vm2, vm2 on hv2 with VMQ on core 3 and vRSS over its 2 vCPUs. Expected:
    cores 3 and 4 of hv2 are full (100 %) for the whole test and are the only stage that holds it; every
    thread is held by them; the link into hv2/nic2, which takes all 8 connections, is 83 % used, and
    hv2/nic1 none; in words, as an engineer would say it."""
    chain = worked_example().chain
    assert chain is not None
    assert chain.holding == ("receive cores",)
    cores = {u.resource: u for u in chain.stage("receive cores")}
    assert set(cores) == {"hv2 core 3", "hv2 core 4"}
    assert all(u.mean_share == pytest.approx(1.0) and u.full_s == pytest.approx(15.002) for u in cores.values())
    received = {u.resource: u for u in chain.stage("NIC receive")}
    assert received["hv2/nic2"].connections == 8 and received["hv2/nic2"].mean_share == pytest.approx(0.828, abs=1e-3)
    assert received["hv2/nic1"].connections == 0 and received["hv2/nic1"].mean_share == 0.0
    assert all(u.full_s == 0.0 for u in chain.uses if u.stage != "receive cores")
    assert sorted(t for g in chain.groups for t in g.threads) == list(range(8))
    assert all(g.held_by == ("hv2 core 3", "hv2 core 4") for g in chain.groups)
    assert worked_example().limit == (
        "vm2's receive work lands on cores 3 and 4 of hv2, both 100 % busy for the whole 15.0 s: they hold all 8 "
        "connections. The 10 Gbps link into hv2/nic2 is only 83 % used."
    )
    assert limit_phrase(chain) == "the receive cores (hv2 core 3, hv2 core 4)"


def test_the_chain_is_what_simulate_shows_for_the_same_traffic() -> None:
    """The chain reads the run, it does not re-derive it: the threads' rates add up to the prediction,
    and the same 8 connections as a traffic entry in `hvnet simulate` give the same shares (hv2's cores
    3 and 4 at 100 %, hv2/nic2 receiving at 83 %) while they all run."""
    scenario = load_scenario(TWO_VMS)
    chain = bottleneck_chain(scenario, ntttcp(8))
    rates = [r for g in chain.groups for r in g.rate_bps]
    assert sum(rates) == pytest.approx(predict(scenario, ntttcp(8)).throughput_bps, rel=1e-9)
    data = scenario.model_dump(mode="json", by_alias=True)
    data["traffic"] = [{"from": "vm1", "to": "vm2", "size": "14GB", "connections": 8, "start": "0s"}]
    results = simulate(scenario_from_data(data, "with the test as traffic"))
    cores = {(c.host, c.core): c for c in results.cores_utilisation}
    assert cores[("hv2", 3)].p50_share == pytest.approx(1.0) and cores[("hv2", 4)].p50_share == pytest.approx(1.0)
    nic = next(n for n in results.utilisation if (n.host, n.nic, n.direction) == ("hv2", "nic2", "receive"))
    assert nic.p50_share == pytest.approx(chain.stage("NIC receive")[1].mean_share, rel=1e-9)


def test_links_hold_a_team_that_spreads_its_connections() -> None:
    """8 threads over LACP teams of 2 x 10 GbE at MTU 9000, hashing on ports: 4 connections on each
    member, all four member directions full for the whole test; the cores are not (47 %). Nothing is
    the hash's fault: every member carries its share."""
    chain = bottleneck_chain(load_scenario(LACP_JUMBO), ntttcp(8))
    assert chain.holding == ("NIC send", "NIC receive")
    links = chain.stage("NIC send") + chain.stage("NIC receive")
    assert [u.connections for u in links] == [4, 4, 4, 4]
    assert all(u.full_s == pytest.approx(15.0) for u in links)
    words = chain_summary(chain, ntttcp(8))
    assert words.startswith("The 10 Gbps links out of hv1/nic1 and hv1/nic2 are both 100 % used for the whole 15.0 s")
    assert "hash" not in words and "hv2 core 3 is only 47 % busy" in words
    assert limit_phrase(chain) == "the sending links (hv1/nic1, hv1/nic2) and the receiving links (hv2/nic1, hv2/nic2)"


def test_the_teams_hash_is_named_when_one_member_takes_every_connection() -> None:
    """The same design with a switch that hashes on MAC addresses: all 8 connections between the two VMs
    come in on one member, which is full, while the other carries none. Expected: the receiving member
    holds the test, and the sentence and the short phrase blame the team's hash."""
    chain = bottleneck_chain(lacp_hashing_on_macs(), ntttcp(8))
    assert chain.holding == ("NIC receive",)
    words = chain_summary(chain, ntttcp(8))
    assert "team1's hash puts 8 of the 8 connections on hv2/nic2 (0 on hv2/nic1)" in words
    assert limit_phrase(chain) == "the team's hash (hv2/nic2)"


def test_one_connection_on_one_member_is_the_link_not_the_hash() -> None:
    """One thread is on one member whatever the hash: the links hold it, and the hash is not blamed."""
    chain = bottleneck_chain(load_scenario(LACP_JUMBO), ntttcp(1))
    assert chain.holding == ("NIC send", "NIC receive")
    assert "hash" not in chain_summary(chain, ntttcp(1)) + limit_phrase(chain)
    assert chain_summary(chain, ntttcp(1)).endswith("they hold the connection. hv2 core 3 is 94 % busy.")
