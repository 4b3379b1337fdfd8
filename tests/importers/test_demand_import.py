"""`hvnet import demand`: hosts' counter logs into the scenario's measured demand (docs/import.md).

Two hosts whose NICs are Mellanox ConnectX-3 adapters (named by their model in the scenario, as
Windows names the counter instance); typeperf logs of Bytes Sent/sec and Bytes Received/sec every
second. A sample is the mean over the second that ends at it, so the first sample is not used.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet import simulate
from hvnet.errors import InputError
from hvnet.importers import read_measurement
from hvnet.importers.demand import import_demand
from hvnet.model import load_scenario, parse_scenario

SCENARIO = """\
name: two hosts
hosts:
  - {name: HV1, nics: [{name: nic1, speed: 10Gbps, model: Mellanox ConnectX-3 Ethernet Adapter}]}
  - {name: HV2, nics: [{name: nic1, speed: 10Gbps, model: Mellanox ConnectX-3 Ethernet Adapter}]}
switches: [{name: tor}]
cables: [{a: HV1/nic1, b: tor/1}, {a: HV2/nic1, b: tor/2}]
"""


def pdh_log(host: str, sent: list[float], received: list[float], start: str = "11/27/2026 10:00:00.000") -> str:
    """A typeperf CSV of one adapter's bytes sent and received per second, a sample each second."""
    path = f"\\\\{host}\\Network Interface(Mellanox ConnectX-3 Ethernet Adapter)"
    lines = [f'"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","{path}\\Bytes Sent/sec","{path}\\Bytes Received/sec"']
    hour, minute, second = start.split(" ")[1].split(":")
    for k, (s, r) in enumerate(zip(sent, received)):
        lines.append(f'"11/27/2026 {hour}:{minute}:{int(float(second)) + k:02d}.000","{s}","{r}"')
    return "\n".join(lines) + "\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_each_nic_direction_becomes_steps_of_its_measured_rate(tmp_path: Path) -> None:
    """HV1 sent 125 MB/s (1 Gbps) for 2 s then 250 MB/s for 2 s: with 1-s bins, steps of 1 and 2 Gbps
    from 0 s and 2 s, and 0 at the log's end (4 s). Nothing received: a step of 0 throughout."""
    log = write(tmp_path, "hv1.csv", pdh_log("HV1", [0, 125e6, 125e6, 250e6, 250e6], [0] * 5))
    imported = import_demand(parse_scenario(SCENARIO), read_measurement(log), resolution_s=1.0)
    send, receive = imported.series
    assert (send.nic, send.direction) == ("HV1/nic1", "send")
    assert send.steps == [(0.0, 1e9), (2.0, 2e9), (4.0, 0.0)]
    assert receive.steps == [(0.0, 0.0), (4.0, 0.0)]
    assert (send.peak_bps, send.p90_bps, send.samples) == (2e9, 2e9, 5)


def test_bins_keep_the_bytes(tmp_path: Path) -> None:
    """1, 3, 2 and 6 Gbps seconds in 2-s bins: means of 2 and 4 Gbps, the bytes of each bin kept."""
    rates = [0, 125e6, 375e6, 250e6, 750e6]
    log = write(tmp_path, "hv1.csv", pdh_log("HV1", rates, [0] * 5))
    imported = import_demand(parse_scenario(SCENARIO), read_measurement(log), resolution_s=2.0)
    assert imported.series[0].steps == [(0.0, 2e9), (2.0, 4e9), (4.0, 0.0)]


def test_a_replayed_log_comes_back_out_of_the_simulation(tmp_path: Path) -> None:
    """The round trip: what the logs measured is what the simulated NICs carry, second by second."""
    sent = [0, 100e6, 300e6, 50e6, 0.0, 200e6]
    received = [0, 20e6, 20e6, 400e6, 10e6, 0.0]
    logs = [
        write(tmp_path, "hv1.csv", pdh_log("HV1", sent, received)),
        write(tmp_path, "hv2.csv", pdh_log("HV2", received, sent)),
    ]
    from hvnet.importers.demand import with_demand

    scenario_file = write(tmp_path, "cluster.yaml", SCENARIO)
    records = [r for path in logs for r in read_measurement(path)]
    imported = import_demand(load_scenario(scenario_file), records, resolution_s=1.0)
    replay = write(tmp_path, "replay.yaml", with_demand(SCENARIO, str(scenario_file), imported))
    results = simulate(load_scenario(replay))
    hv1 = next(a for a in results.adapters if a.host == "HV1")
    per_second = [hv1.send_bps.mean(k, k + 1.0) for k in range(5)]
    assert per_second == pytest.approx([8 * r for r in sent[1:]], rel=1e-12, abs=1e-3)
    assert [hv1.receive_bps.mean(k, k + 1.0) for k in range(5)] == pytest.approx(
        [8 * r for r in received[1:]], rel=1e-12, abs=1e-3
    )
    assert results.end_s == 5.0


def test_logs_start_where_their_first_timestamps_put_them(tmp_path: Path) -> None:
    """HV2's log began 2 s after HV1's: its steps start at 2 s on the common time line."""
    logs = [
        write(tmp_path, "hv1.csv", pdh_log("HV1", [0, 125e6, 125e6], [0] * 3)),
        write(tmp_path, "hv2.csv", pdh_log("HV2", [0, 125e6, 125e6], [0] * 3, start="11/27/2026 10:00:02.000")),
    ]
    records = [r for path in logs for r in read_measurement(path)]
    imported = import_demand(parse_scenario(SCENARIO), records, resolution_s=1.0)
    hv2 = next(s for s in imported.series if s.nic == "HV2/nic1" and s.direction == "send")
    assert hv2.steps[0][0] == 2.0


def test_an_instance_that_names_no_nic_is_said_and_can_be_mapped(tmp_path: Path) -> None:
    scenario = parse_scenario(SCENARIO.replace("model: Mellanox ConnectX-3 Ethernet Adapter", "model: X710"))
    log = write(tmp_path, "hv1.csv", pdh_log("HV1", [0, 1e6], [0, 1e6]))
    with pytest.raises(InputError, match="no series of bytes sent or received per second maps to a NIC"):
        import_demand(scenario, read_measurement(log))
    mapped = import_demand(scenario, read_measurement(log), mapping=["Mellanox ConnectX-3 Ethernet Adapter=HV1/nic1"])
    assert {s.nic for s in mapped.series} == {"HV1/nic1"}


def test_the_command_writes_the_scenario_with_its_demand_and_never_over_what_the_user_wrote(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from hvnet.cli import app

    scenario_file = write(tmp_path, "cluster.yaml", "# my cluster\n" + SCENARIO)
    log = write(tmp_path, "hv1.csv", pdh_log("HV1", [0, 125e6, 125e6], [0, 0, 0]))
    out = tmp_path / "with-demand.yaml"
    runner = CliRunner()
    result = runner.invoke(app, ["import", "demand", str(log), "--scenario", str(scenario_file), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# my cluster\n" + SCENARIO) and "demand:" in text
    assert load_scenario(out).demand[0].nic == "HV1/nic1"
    again = runner.invoke(app, ["import", "demand", str(log), "--scenario", str(out), "-o", str(tmp_path / "x.yaml")])
    assert again.exit_code == 2
    assert "the scenario has measured demand already" in again.stderr
