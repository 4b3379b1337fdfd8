"""Which interfaces live migration uses: the `networks` setting, and SMB over
a team's interface.

Two hosts on one switch, each with two 10 Gbps NICs (nic1, nic2; teamed as
team1 unless a test says otherwise) and a 1 Gbps NIC outside the team
(nic3); cores fast enough that the links limit. An idle 4 GiB VM moves from
hv1 to hv2.
"""

from __future__ import annotations

import pytest

from hvnet import ScenarioError, parse_scenario, simulate
from hvnet.results import Results

CLUSTER = """
name: networks
hosts:
%(hosts)s
switches: [{name: tor1, ports: 8}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor1/2}
  - {a: hv1/nic3, b: tor1/3}
  - {a: hv2/nic1, b: tor1/4}
  - {a: hv2/nic2, b: tor1/5}
  - {a: hv2/nic3, b: tor1/6}
vms:
  - {name: vm1, host: hv1, memory: 4GiB}
events:
  - {at: 0s, action: migrate, target: vm1, to: hv2}
"""
HOST = """  - name: %(name)s
    cpu: {ghz: 6}
    power_plan: high_performance
    live_migration: {option: %(option)s%(extra)s}
    nics:
      - {name: nic1, speed: 10Gbps, rdma: %(rdma)s}
      - {name: nic2, speed: 10Gbps, rdma: %(rdma)s}
      - {name: nic3, speed: 1Gbps, rss_queues: 1}
    teams: [%(team)s]
"""
LBFO = "{name: team1, members: [nic1, nic2], mode: %s, load_balancing: %s}"
SET = "{name: team1, kind: set, members: [nic1, nic2], load_balancing: hyperv_port}"


def cluster(
    option: str = "tcp_ip",
    team: str = LBFO % ("switch_independent", "dynamic"),
    extra: tuple[str, str] = ("", ""),
    rdma: bool = False,
) -> str:
    hosts = "".join(
        HOST % {"name": name, "option": option, "extra": more, "rdma": str(rdma).lower(), "team": team}
        for name, more in zip(("hv1", "hv2"), extra)
    )
    return CLUSTER % {"hosts": hosts}


def run(**kwargs: object) -> Results:
    return simulate(parse_scenario(cluster(**kwargs)))  # type: ignore[arg-type]


def nics_used(results: Results, host: str = "hv1") -> set[str]:
    """The NICs of `host` that sent something (hv1) or received something (hv2)."""
    sent = host == "hv1"
    return {a.nic for a in results.adapters if a.host == host and (a.send_bps if sent else a.receive_bps).peak() > 0}


def test_without_a_networks_setting_tcp_ip_rides_one_member_of_the_hosts_own_team() -> None:
    """Address hash: the migration's connections keep their ports, so one member carries them all."""
    results = run(team=LBFO % ("switch_independent", "address_hash"))
    assert nics_used(results) <= {"nic1", "nic2"} and len(nics_used(results)) == 1


def test_the_first_network_in_the_order_is_used() -> None:
    """networks: [nic3, team1] on both: the migration goes over the 1 Gbps nic3 although the team is faster."""
    results = run(extra=(", networks: [nic3, team1]", ", networks: [nic3, team1]"))
    assert nics_used(results) == {"nic3"}
    (m,) = results.migrations
    assert (m.peak_bps / 1e9) < 1.0


def test_a_network_the_destination_does_not_allow_is_skipped() -> None:
    """hv1 prefers nic3, but hv2 accepts live migrations on team1 only: team1 it is."""
    results = run(extra=(", networks: [nic3, team1]", ", networks: [team1]"))
    assert nics_used(results) <= {"nic1", "nic2"}
    (m,) = results.migrations
    assert (m.peak_bps / 1e9) > 5


def test_no_common_network_is_refused_with_both_lists() -> None:
    with pytest.raises(ScenarioError, match=r"no live migration network joins hv1 \(nic3\) and hv2 \(team1\)"):
        run(extra=(", networks: [nic3]", ", networks: [team1]"))


@pytest.mark.parametrize(
    ("networks", "expected"),
    [
        (
            "[nic9]",
            "hosts[0].live_migration.networks[0]: unknown interface 'nic9'; hv1 has NICs: nic1, nic2, nic3;"
            " teams: team1",
        ),
        (
            "[nic1]",
            "hosts[0].live_migration.networks[0]: 'nic1' is a member of team team1;"
            " live migration uses the team: list team1",
        ),
    ],
)
def test_a_network_that_is_not_an_interface_of_the_host_is_refused(networks: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenario(cluster(extra=(f", networks: {networks}", "")), "cluster.yaml")
    assert expected in str(raised.value)


def test_smb_over_a_lacp_team_spreads_its_four_connections_over_both_members() -> None:
    """The team interface is one RSS interface (20 Gbps, faster than nic3): 4 SMB connections,
    which the LACP team's address hash and the switch's hash spread over both members both ways,
    so the migration goes faster than one 10 Gbps NIC could carry."""
    results = run(option="smb", team=LBFO % ("lacp", "address_hash"))
    (m,) = results.migrations
    assert m.option == "smb"
    assert nics_used(results) == {"nic1", "nic2"}
    assert nics_used(results, "hv2") == {"nic1", "nic2"}
    assert (m.peak_bps / 1e9) > 10


def test_smb_over_a_switch_independent_team_arrives_on_one_member() -> None:
    """Switch independent, address hash: hv1 sends on both members, but everything for hv2's
    team interface arrives on its primary member, so one 10 Gbps NIC is the limit."""
    results = run(option="smb", team=LBFO % ("switch_independent", "address_hash"))
    (m,) = results.migrations
    assert nics_used(results) == {"nic1", "nic2"}
    assert len(nics_used(results, "hv2")) == 1
    assert (m.peak_bps / 1e9) < 10


def test_smb_over_a_set_team_with_hyperv_port_stays_on_one_member() -> None:
    """One host vNIC on a SET team with Hyper-V port: the vNIC is affinitized to one member, so
    all four connections ride it."""
    results = run(option="smb", team=SET)
    assert len(nics_used(results)) == 1


def test_smb_direct_over_a_set_team_uses_every_member_at_line_rate() -> None:
    """RDMA members in a SET team: SMB Direct over one RDMA host vNIC per member: both members,
    at next to no CPU."""
    results = run(option="smb", team=SET, rdma=True)
    (m,) = results.migrations
    assert m.option == "smb_direct"
    assert nics_used(results) == {"nic1", "nic2"}
    assert (m.peak_bps / 1e9) > 18
    assert m.duration_s is not None and m.cpu_core_s_destination / m.duration_s < 0.05


def test_smb_over_an_lbfo_team_of_rdma_nics_falls_back_to_smb_over_tcp() -> None:
    """An LBFO team gives no RDMA (BEHAVIOUR.md), so with option smb Windows runs SMB Multichannel
    over TCP on the team interface: the same migration as over non-RDMA members, at TCP's CPU cost."""
    fallback = run(option="smb", rdma=True)
    plain = run(option="smb", rdma=False)
    (m,), (p,) = fallback.migrations, plain.migrations
    assert m.option == "smb"
    assert nics_used(fallback) == nics_used(plain) == {"nic1", "nic2"}
    assert m.duration_s == pytest.approx(p.duration_s)
    assert m.cpu_core_s_destination == pytest.approx(p.cpu_core_s_destination)
    assert m.duration_s is not None and m.cpu_core_s_destination / m.duration_s > 0.1  # TCP's receive cores


def test_smb_falls_back_to_tcp_where_only_one_host_has_rdma() -> None:
    """hv1 has RDMA NICs in a SET team, hv2 none: SMB Direct needs both ends, so SMB runs over TCP."""
    text = cluster(option="smb", team=SET, rdma=True)
    hv2 = text.index("- name: hv2")
    text = text[:hv2] + text[hv2:].replace("rdma: true", "rdma: false")
    (m,) = simulate(parse_scenario(text)).migrations
    assert m.option == "smb"
    assert m.duration_s is not None


def test_smb_keeps_to_the_networks_setting() -> None:
    """networks: [nic3] on both: SMB uses the 1 Gbps nic3 only (one connection: it is not RSS)."""
    results = run(option="smb", extra=(", networks: [nic3]", ", networks: [nic3]"))
    assert nics_used(results) == {"nic3"}


@pytest.mark.parametrize(
    "team",
    [
        LBFO % (mode, balancing)
        for mode in ("switch_independent", "static", "lacp")
        for balancing in ("address_hash", "hyperv_port", "dynamic")
    ]
    + [SET, SET.replace("hyperv_port", "dynamic")],
)
def test_a_single_tcp_ip_migration_never_uses_two_members_at_once(team: str) -> None:
    """One TCP connection per step (BEHAVIOUR.md): whatever the team, the migration never runs
    faster than one 10 Gbps member carries (10 Gbps × 1460/1538 of payload); a team that hashes
    (address hash, Hyper-V port) keeps it on one member for its whole life."""
    results = run(team=team)
    (m,) = results.migrations
    assert (m.peak_bps / 1e9) <= 10 * 1460 / 1538 * (1 + 1e-9)
    if "dynamic" not in team:
        assert len(nics_used(results)) == 1


def test_smb_direct_runs_where_both_hosts_have_rdma() -> None:
    (m,) = run(option="smb_direct", team=SET, rdma=True).migrations
    assert m.option == "smb_direct"


def test_the_smb_direct_option_without_rdma_nics_is_refused_where_it_is_written() -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenario(cluster(option="smb_direct", team=SET), "cluster.yaml")
    message = str(raised.value)
    assert "cluster.yaml:" in message
    assert "hosts[0].live_migration.option: smb_direct needs RDMA, but none of hv1's NICs has rdma: true" in message


def test_the_smb_direct_option_with_rdma_only_in_an_lbfo_team_is_refused() -> None:
    with pytest.raises(
        ScenarioError, match=r"smb_direct needs RDMA, but its RDMA NICs \(nic1 and nic2\) are in an LBFO team"
    ):
        parse_scenario(cluster(option="smb_direct", rdma=True), "cluster.yaml")


def test_the_smb_direct_option_needs_rdma_on_the_destination_too() -> None:
    """hv1 has RDMA, hv2 does not: SMB would run over TCP, so smb_direct is refused when the migration is planned."""
    text = cluster(option="smb_direct", team=SET, rdma=True)
    hv2 = text.index("- name: hv2")
    text = text[:hv2] + text[hv2:].replace("rdma: true", "rdma: false").replace("option: smb_direct", "option: smb")
    with pytest.raises(
        ScenarioError, match="hv1 asks for smb_direct, but hv1 and hv2 do not both have an RDMA interface"
    ):
        simulate(parse_scenario(text))


def test_smb_multichannel_adds_the_interfaces_like_the_listed_one() -> None:
    """Two unteamed 10 Gbps NICs, networks: [nic1] on both: Multichannel finds nic2, of the same
    kind and speed, and uses it too (the setting does not stop it, as administrators observe);
    the 1 Gbps nic3 stays out."""
    results = run(option="smb", team="", extra=(", networks: [nic1]", ", networks: [nic1]"))
    assert nics_used(results) == {"nic1", "nic2"}


def test_a_destination_without_the_setting_takes_the_migration_on_any_interface() -> None:
    """hv1 sends over its team; hv2 has no team of that name and no networks setting: the
    migration arrives on the first of hv2's interfaces a cable path joins (its first NIC)."""
    text = cluster(extra=(", networks: [team1]", ""))
    hv2 = text.index("- name: hv2")
    text = text[:hv2] + text[hv2:].replace(
        "    teams: [{name: team1, members: [nic1, nic2], mode: switch_independent, load_balancing: dynamic}]\n",
        "    teams: []\n",
    )
    results = simulate(parse_scenario(text))
    assert nics_used(results, "hv2") == {"nic1"}


def test_a_destination_that_accepts_only_one_network_decides_it() -> None:
    """hv2 accepts live migrations on nic3 only; hv1 states nothing: hv1 sends from its own nic3."""
    results = run(extra=("", ", networks: [nic3]"))
    assert nics_used(results) == {"nic3"} and nics_used(results, "hv2") == {"nic3"}
