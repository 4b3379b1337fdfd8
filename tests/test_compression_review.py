"""The Compression option, reviewed (issue 16, item 8; docs/model.md, "Compression, reviewed").

Microsoft made Compression the default in Windows Server 2012 R2 and expects it to halve a live migration
on a link that bounds it; it uses only otherwise idle CPU, so on a busy host it yields. F2's testbed (two
hosts of 12 cores at 2.2 GHz, an idle 8 GB VM) over 1 and 10 GbE, idle and with the source's other VMs
keeping every core busy.
"""

from __future__ import annotations

import pytest

import hvnet
from hvnet.model import MigrationOption, Scenario
from hvnet.validate import _scenario


def duration(option: MigrationOption, speed_bps: float, busy: bool = False) -> float:
    base: Scenario = _scenario("f2-compression-1gbe.yaml")
    hosts = tuple(
        h.model_copy(
            update={
                "nics": tuple(n.model_copy(update={"speed": speed_bps}) for n in h.nics),
                "live_migration": h.live_migration.model_copy(update={"option": option}),
            }
        )
        for h in base.hosts
    )
    others = tuple(
        base.vms[0].model_copy(
            update={
                "name": f"busy{i}",
                "memory": 2**30,
                "populated": 2**30,
                "working_set": 2**30,
                "vcpus": 4,
                "cpu_load": 1.0,
            }
        )
        for i in range(3 if busy else 0)
    )
    switches = tuple(s.model_copy(update={"port_speed": speed_bps}) for s in base.switches)
    results = hvnet.simulate(base.model_copy(update={"hosts": hosts, "vms": base.vms + others, "switches": switches}))
    migration = results.migrations[0]
    assert migration.vm == "vm1" and migration.duration_s is not None
    return migration.duration_s


def test_on_1_gbe_compression_nearly_halves_the_migration() -> None:
    """The link bounds both: Compression sends half the bytes (ratio 0.5), less its own overheads."""
    ratio = duration(MigrationOption.TCP_IP, 1e9) / duration(MigrationOption.COMPRESSION, 1e9)
    assert 1.7 < ratio < 2.0


def test_on_10_gbe_compression_still_wins_on_idle_hosts_but_by_less() -> None:
    """One TCP/IP stream is bound by its receiving core (below line rate); Compression's smaller stream too,
    so it gains less than on 1 GbE."""
    tcp, compressed = duration(MigrationOption.TCP_IP, 10e9), duration(MigrationOption.COMPRESSION, 10e9)
    one_gbe = duration(MigrationOption.TCP_IP, 1e9) / duration(MigrationOption.COMPRESSION, 1e9)
    assert 1.0 < tcp / compressed < one_gbe


def test_on_a_busy_source_compression_yields_and_loses_to_tcp_ip_on_10_gbe() -> None:
    """Every core busy with the guests' work: Compression gets only its small share of them (weight 0.1),
    so on 10 GbE it is slower than TCP/IP, while on 1 GbE it still beats a link-bound TCP/IP."""
    assert duration(MigrationOption.COMPRESSION, 10e9, busy=True) > duration(MigrationOption.TCP_IP, 10e9, busy=True)
    assert duration(MigrationOption.COMPRESSION, 1e9, busy=True) < duration(MigrationOption.TCP_IP, 1e9, busy=True)


INCOMPRESSIBLE = """
name: content
hosts:
  - {name: hv1, live_migration: {option: compression}, nics: [{name: nic1, speed: 1Gbps}]}
  - {name: hv2, live_migration: {option: compression}, nics: [{name: nic1, speed: 1Gbps}]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
vms:
  - {name: ordinary, host: hv1, memory: 8GiB}
  - {name: half, host: hv1, memory: 8GiB, incompressible: 4GiB}
  - {name: encrypted, host: hv1, memory: 8GiB, incompressible: 8GiB}
events:
  - {at: 0s, action: migrate, target: ordinary, to: hv2}
  - {at: 200s, action: migrate, target: half, to: hv2}
  - {at: 400s, action: migrate, target: encrypted, to: hv2}
"""


def test_compression_sends_incompressible_memory_as_it_is() -> None:
    """By content (issue 23): over a 1 GbE link that binds, the copy's time is its wire bytes over the link;
    ordinary memory goes at `ratio` (0.5), incompressible memory at 1, so a VM half incompressible takes 3/2
    of the ordinary VM's copy, and one all incompressible twice it, as TCP/IP would."""
    results = hvnet.simulate(hvnet.parse_scenario(INCOMPRESSIBLE, "content.yaml"))
    copy = {m.vm: (m.duration_s or 0.0) - hvnet.Calibration().migration.setup_s for m in results.migrations}
    assert copy["half"] / copy["ordinary"] == pytest.approx(1.5, rel=0.03)
    assert copy["encrypted"] / copy["ordinary"] == pytest.approx(2.0, rel=0.03)
    peaks = {m.vm: m.peak_wire_bps for m in results.migrations}
    assert peaks["ordinary"] == pytest.approx(peaks["encrypted"], rel=0.02)  # the link binds each alike


def test_incompressible_memory_is_part_of_populated_memory() -> None:
    text = INCOMPRESSIBLE.replace(
        "memory: 8GiB, incompressible: 8GiB}", "memory: 8GiB, populated: 6GiB, incompressible: 7GiB}"
    )
    with pytest.raises(hvnet.ScenarioError) as raised:
        hvnet.parse_scenario(text, "content.yaml")
    assert str(raised.value) == (
        "content.yaml:11: vms[2].incompressible: 7 GiB is more than populated (6 GiB); incompressible is the part "
        "of the memory that is not zero pages that does not compress, at most populated"
    )
