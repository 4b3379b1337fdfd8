"""/proc/net/dev and ``ip -s -j link`` snapshots over time as counter logs (issue 29, docs/import.md).

The logs are what the documented recipe writes on a host::

    (hostname; while sleep 1; do date +%s.%N; cat /proc/net/dev; done) > hv1-netdev.log
    (hostname; while sleep 1; do date +%s.%N; ip -s -j link; done) > hv1-iplink.log

Each snapshot is the real sample (samples/proc_net_dev.txt, samples/ip_s_j_link.json, captured on
a Linux 6.18 machine) with eth0's counters set to known values, so every rate is known exactly.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from hvnet.errors import InputError
from hvnet.importers import detect, read_measurement, read_measurement_text
from hvnet.importers.demand import import_demand
from hvnet.importers.measurement import Measurement
from hvnet.importers.pdh_csv import parse_time
from hvnet.model import parse_scenario

Invoke = Callable[..., Result]
SAMPLES = Path(__file__).parent / "samples"
#: The sample as `cat /proc/net/dev` prints it (the file's first line says where it comes from).
PROC = (SAMPLES / "proc_net_dev.txt").read_text().split("\n", 1)[1]
IP_LINKS: list[dict[str, Any]] = json.loads((SAMPLES / "ip_s_j_link.json").read_text())
T0 = 1764237600  # 2025-11-27 10:00:00 UTC

#: eth0's (rx bytes, tx bytes, rx packets, tx packets) at 0, 0.5, 1.5 and 2.5 s.
ETH0 = [
    (72493940, 115388, 1725, 1162),
    (72494940, 115888, 1735, 1167),  # +1000, +500, +10, +5 over 0.5 s
    (72497940, 116888, 1765, 1177),  # +3000, +1000, +30, +10 over 1 s
    (72497940, 118388, 1765, 1192),  # +0, +1500, +0, +15 over 1 s
]
TIMES = [f"{T0}.000000000", f"{T0}.500000000", f"{T0 + 1}.500000000", f"{T0 + 2}.500000000"]
RATES = {
    "rx_bytes_per_s": [None, 2000.0, 3000.0, 0.0],
    "tx_bytes_per_s": [None, 1000.0, 1000.0, 1500.0],
    "rx_packets_per_s": [None, 20.0, 30.0, 0.0],
    "tx_packets_per_s": [None, 10.0, 10.0, 15.0],
}


def proc(counters: dict[str, tuple[int, int, int, int]]) -> str:
    """The sample /proc/net/dev with these interfaces' counters (the others as captured)."""
    lines = PROC.splitlines()
    for k, line in enumerate(lines[2:], start=2):
        name, _, rest = line.partition(":")
        if name.strip() in counters:
            cells = rest.split()
            cells[0], cells[8], cells[1], cells[9] = (str(v) for v in counters[name.strip()])
            lines[k] = f"{name}: " + " ".join(cells)
    return "\n".join(lines) + "\n"


def ip_link(counters: dict[str, tuple[int, int, int, int]]) -> str:
    """The sample ip -s -j link with these interfaces' counters, on one line as ip writes it."""
    links = json.loads(json.dumps(IP_LINKS))
    for link in links:
        if link["ifname"] in counters:
            stats = link["stats64"]
            (stats["rx"]["bytes"], stats["tx"]["bytes"], stats["rx"]["packets"], stats["tx"]["packets"]) = counters[
                link["ifname"]
            ]
    return json.dumps(links, separators=(",", ":")) + "\n"


def log(
    snapshot: Callable[[dict[str, tuple[int, int, int, int]]], str],
    eth0: list[tuple[int, int, int, int]] = ETH0,
    times: list[str] = TIMES,
    host: str | None = "hv1",
) -> str:
    head = "" if host is None else f"{host}\n"
    return head + "".join(f"{t}\n{snapshot({'eth0': c})}" for t, c in zip(times, eth0))


def read(text: str, file: str = "hv1.log") -> Measurement:
    [m] = read_measurement_text(text, file)
    return m


def of(m: Measurement, instance: str, counter: str) -> list[float | None]:
    [series] = [s for s in m.series if s.instance == instance and s.counter == counter]
    return series.values


def error(text: str, file: str = "hv1.log") -> str:
    with pytest.raises(InputError) as caught:
        read_measurement_text(text, file)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize(("snapshot", "fmt"), [(proc, "proc-net-dev-log"), (ip_link, "ip-link-json-log")])
def test_known_counters_give_exact_rates(snapshot: Callable[..., str], fmt: str) -> None:
    m = read(log(snapshot))
    assert (m.format, m.host, m.duration_s, m.parameters.time_zone, m.notes) == (fmt, "hv1", 2.5, "UTC", [])
    assert m.start_time == "2025-11-27 10:00:00.000000"
    assert parse_time(m.start_time) == dt.datetime(2025, 11, 27, 10, 0, 0)
    assert sorted({s.instance or "" for s in m.series}) == ["eth0", "ifb0", "ifb1", "lo"]
    for counter, values in RATES.items():
        [series] = [s for s in m.series if s.instance == "eth0" and s.counter == counter]
        assert (series.t_s, series.values, series.host) == ([0.0, 0.5, 1.5, 2.5], values, "hv1")
        assert series.unit == ("bytes/s" if "bytes" in counter else "packets/s")
    assert of(m, "lo", "rx_bytes_per_s") == [None, 0.0, 0.0, 0.0]  # the other interfaces as captured: no traffic


def test_the_sources_say_what_was_read() -> None:
    assert {s.source for s in read(log(proc)).series if s.instance == "eth0"} == {
        "eth0 Receive bytes",
        "eth0 Transmit bytes",
        "eth0 Receive packets",
        "eth0 Transmit packets",
    }
    assert {s.source for s in read(log(ip_link)).series if s.instance == "eth0"} == {
        "eth0 rx.bytes",
        "eth0 tx.bytes",
        "eth0 rx.packets",
        "eth0 tx.packets",
    }


def test_detection_picks_the_format() -> None:
    assert detect(log(proc)) == "proc-net-dev-log"
    assert detect(log(ip_link)) == "ip-link-json-log"
    assert detect(log(proc, host=None)) == "proc-net-dev-log"
    assert detect(log(ip_link, times=[f"2025-11-27T10:00:0{k}.5Z" for k in range(4)])) == "ip-link-json-log"
    # one snapshot alone is still the snapshot format, and a few lines of something else none
    assert detect(PROC) == "proc-net-dev"
    assert detect(ip_link({})) == "ip-link-json"
    assert detect("hv1\nThu Nov 27 10:00:00 UTC 2025\n" + PROC) == "proc-net-dev-log"  # for its reader to refuse
    assert detect("hv1\n" + PROC) == "proc-net-dev"
    assert detect("hello\n") is None
    assert detect("hv1\n1764237600\nsomething else\n") is None


def test_pretty_json_and_windows_line_ends_are_read() -> None:
    pretty = log(lambda c: json.dumps(json.loads(ip_link(c)), indent=4) + "\n").replace("\n", "\r\n")
    assert of(read(pretty), "eth0", "tx_bytes_per_s") == RATES["tx_bytes_per_s"]


def test_a_counter_that_goes_down_gives_null_and_a_note() -> None:
    """eth0 re-created at 1.5 s: its counters start again; the interval before knows no rate."""
    reset = [*ETH0[:2], (500, 100, 5, 1), (3500, 1600, 35, 16)]
    m = read(log(proc, eth0=reset))
    assert of(m, "eth0", "rx_bytes_per_s") == [None, 2000.0, None, 3000.0]
    assert of(m, "eth0", "tx_packets_per_s") == [None, 10.0, None, 15.0]  # one counter down: the interface's interval
    assert m.notes == [
        "eth0: counters went down 1 time(s) (first between the snapshots at lines 9 and 16): a reset or a "
        "32-bit wrap; those intervals' rates are null"
    ]


def test_interfaces_that_appear_and_disappear() -> None:
    """vnet7 (a VM's tap) comes at the second snapshot and goes at the last; eth1 is gone in the third only."""
    row = "  vnet7: {} {} 0 0 0 0 0 0 {} {} 0 0 0 0 0 0\n"
    eth1 = "  eth1: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    bodies = [PROC + eth1, PROC + eth1 + row.format(100, 1, 50, 1), PROC + row.format(1100, 11, 50, 1), PROC + eth1]
    m = read("hv1\n" + "".join(f"{t}\n{b}" for t, b in zip(TIMES, bodies)))
    assert of(m, "vnet7", "rx_bytes_per_s") == [None, None, 1000.0, None]
    assert of(m, "eth1", "rx_bytes_per_s") == [None, 0.0, None, None]
    assert of(m, "eth0", "rx_bytes_per_s") == [None, 0.0, 0.0, 0.0]
    assert m.notes == [
        "eth1: in 3 of 4 snapshots (lines 2 to 27); no rate where it or the snapshot before lacks it (null)",
        "vnet7: in 2 of 4 snapshots (lines 10 to 19); no rate where it or the snapshot before lacks it (null)",
    ]


@pytest.mark.parametrize(
    ("snapshot", "cut", "why"),
    [
        (proc, lambda text: text[: text.rindex("0 ")], "expected 'iface:' and 16 counters"),
        (proc, lambda text: text[: text.rindex("Inter-|") + 20], "expected the second header line"),
        (proc, lambda text: text[: text.rindex("lo:") - 4], "no interfaces after /proc/net/dev's header"),
        (proc, lambda text: text[: text.rindex("eth0")], "the file ends inside it (no line end after its last line)"),
        (ip_link, lambda text: text[:-1], "the file ends inside it (no line end after its last line)"),
        (ip_link, lambda text: text[: text.rindex('"eth0"')], "not valid ip -s -j link JSON"),
        (ip_link, lambda text: text[: text.rindex('[{"ifindex"')], "no ip -s -j link output after the time"),
        (proc, lambda text: text[: text.rindex(f"{T0 + 3}.") + 11], "no /proc/net/dev after the time"),
    ],
)
def test_a_last_snapshot_cut_short_is_left_out_with_a_note(
    snapshot: Callable[..., str], cut: Callable[[str], str], why: str
) -> None:
    text = cut(log(snapshot, eth0=[*ETH0, ETH0[-1]], times=[*TIMES, f"{T0 + 3}.000000000"]))
    m = read(text)
    assert of(m, "eth0", "rx_bytes_per_s") == RATES["rx_bytes_per_s"]
    [note] = m.notes
    assert note.startswith("the last snapshot (its time on line ") and why in note
    assert note.endswith("; left out (the recording was stopped while writing it?)")


def test_iso_times_with_and_without_their_zone() -> None:
    """date -u +%Y-%m-%dT%H:%M:%S.%NZ, and date --iso-8601=ns (a comma, and the zone): the same rates."""
    iso = [f"2025-11-27T10:00:0{s}.{f}Z" for s, f in ((0, "0"), (0, "5"), (1, "5"), (2, "500000000"))]
    m = read(log(proc, times=iso))
    assert of(m, "eth0", "rx_bytes_per_s") == RATES["rx_bytes_per_s"]
    assert (m.start_time, m.parameters.time_zone, m.notes) == ("2025-11-27 10:00:00.000000", "UTC", [])
    berlin = [f"2025-11-27T11:00:0{s},{f}+01:00" for s, f in ((0, "000000000"), (0, "5"), (1, "5"), (2, "5"))]
    assert read(log(proc, times=berlin)).start_time == "2025-11-27 10:00:00.000000"
    local = read(log(proc, times=[t.removesuffix("Z").replace("T", " ") for t in iso]))
    assert local.parameters.time_zone is None and local.start_time == "2025-11-27 10:00:00.000000"
    assert local.notes == [
        "the times do not say their zone (no Z or +hh:mm): start_time is as written, in the writer's zone"
    ]


def test_whole_second_times_and_a_log_without_its_host_are_noted() -> None:
    m = read(log(proc, times=[str(T0 + k) for k in range(4)], host=None))
    assert m.host is None and of(m, "eth0", "rx_bytes_per_s") == [None, 1000.0, 3000.0, 0.0]
    assert m.notes == [
        "line 1 is not the host's name (hostname): the log names no host",
        "the times are whole seconds (date +%s.%N gives nanoseconds): each rate's interval is ±1 s",
    ]


def test_bad_logs_are_one_line_errors() -> None:
    good = log(proc)
    lines = good.splitlines(keepends=True)
    assert error(good.replace(TIMES[2], TIMES[1])) == (
        f"hv1.log:16: time: '{TIMES[1]}' is not after the snapshot before ('{TIMES[1]}', line 9): "
        "each snapshot's time must be later than the last (date +%s.%N before each)"
    )
    assert error(good.replace(TIMES[3], TIMES[0])).startswith(f"hv1.log:23: time: '{TIMES[0]}' is not after")
    assert error(good.replace("72494940", "72494x40")) == "hv1.log:15: eth0.rx_bytes: '72494x40' is not a whole number"
    cut_middle = "".join(lines[:14]) + lines[14][:30] + "\n" + "".join(lines[15:])
    assert error(cut_middle).startswith("hv1.log:15: eth0: expected 'iface:' and 16 counters, or the next snapshot's")
    assert error("".join(lines[:8] + lines[9:])) == (  # the second time line lost: two headers in one snapshot
        "hv1.log:9: expected 'iface:' and 16 counters, or the next snapshot's time (date +%s.%N), "
        "found 'Inter-|   Receive                                           '"
    )
    assert error("hv 1\n" + good[4:]) == "hv1.log:1: host: expected the host's name (hostname) or a time, found 'hv 1'"
    assert error("hv1\nThu Nov 27 10:00:00 UTC 2025\n" + PROC).startswith(
        "hv1.log:2: time: expected the time of the first snapshot (date +%s.%N), found 'Thu Nov 27"
    )
    assert error("".join(lines[:9])) == "hv1.log:2: one snapshot only: a rate needs two (let the recording run longer)"
    with pytest.raises(InputError) as caught:  # not recognised as a log: read as one, it says why not
        read_measurement_text("hv1\n", "hv1.log", "proc-net-dev-log")
    assert str(caught.value) == ("hv1.log: no snapshot: expected a time (date +%s.%N) and then /proc/net/dev, repeated")
    assert error(good.replace(TIMES[1], "2025-13-01T00:00:00Z")) == (
        "hv1.log:9: time: '2025-13-01T00:00:00Z' is not a date and time that exists"
    )


def test_bad_ip_link_logs_are_one_line_errors() -> None:
    lines = log(ip_link).splitlines(keepends=True)  # the second snapshot's JSON is line 5

    def second(json_line: str) -> str:
        return error("".join(lines[:4]) + json_line + "".join(lines[5:]))

    assert second(lines[4].replace(",", "", 1)) == (
        "hv1.log:5: not valid ip -s -j link JSON: Expecting ',' delimiter at column 14"
    )
    assert second(json.dumps([{"ifname": "eth0", "mtu": 1500}]) + "\n") == (
        "hv1.log:5: [0].stats: eth0: no rx/tx statistics (run ip with -s)"
    )
    assert second(lines[4].replace('"bytes":72494940', '"bytes":-1', 1)) == (
        "hv1.log:5: [3].stats64.rx.bytes: expected a whole number, found -1"
    )
    assert second('{"ifname": "eth0"}\n') == "hv1.log:5: expected a JSON list of links (ip -s -j link)"
    assert second('[{"mtu": 1500}]\n') == "hv1.log:5: [0]: expected a link object with 'ifname'"


def test_the_command_reads_the_log_and_refuses_a_bad_one(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "hv1-netdev.log"
    path.write_text(log(proc))
    result = cli("import", "measurement", path, "--json", "-")
    assert result.exit_code == 0, result.output
    [m] = json.loads(result.stdout)["measurements"]
    assert m["format"] == "proc-net-dev-log" and m["host"] == "hv1"
    path.write_text(log(proc).replace(TIMES[2], TIMES[0]))
    bad = cli("import", "measurement", path)
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    [line] = bad.stderr.strip().splitlines()
    assert line.startswith(f"{path}:16: time: ")


# --- into measured demand ------------------------------------------------------------------------

SCENARIO = """\
name: two linux hosts
hosts:
  - {name: hv1, nics: [{name: eth0, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: eth0, speed: 10Gbps}]}
switches: [{name: tor}]
cables: [{a: hv1/eth0, b: tor/1}, {a: hv2/eth0, b: tor/2}]
"""


def sending(tx_bytes_per_s: list[float]) -> list[tuple[int, int, int, int]]:
    """eth0's counters, a snapshot a second, after these seconds of sending."""
    counters, tx = [(1000, 5000, 10, 50)], 5000
    for rate in tx_bytes_per_s:
        tx += int(rate)
        counters.append((1000, tx, 10, 50))
    return counters


def test_a_log_becomes_the_nics_measured_demand(tmp_path: Path) -> None:
    """hv1 sent 125 MB/s (1 Gbps) for 2 s, then 250 MB/s for 2 s: with 1-s bins, steps of 1 and 2
    Gbps from 0 s and 2 s, and 0 at the log's end (4 s); nothing received. The first snapshot gives no
    rate; the loopback and ifb interfaces are no NIC of the scenario: notes say so."""
    times = [f"{T0 + k}.000000000" for k in range(5)]
    path = tmp_path / "hv1-netdev.log"
    path.write_text(log(proc, eth0=sending([125e6, 125e6, 250e6, 250e6]), times=times))
    imported = import_demand(parse_scenario(SCENARIO), read_measurement(path), resolution_s=1.0)
    send, receive = sorted(imported.series, key=lambda s: s.direction, reverse=True)
    assert (send.nic, send.direction, receive.direction) == ("hv1/eth0", "send", "receive")
    assert send.steps == [(0.0, 1e9), (2.0, 2e9), (4.0, 0.0)]
    assert receive.steps == [(0.0, 0.0), (4.0, 0.0)]
    assert (send.peak_bps, send.samples, send.source) == (2e9, 5, f"{path}: eth0 Transmit bytes")
    assert imported.duration_s == 4.0
    assert sum("not replayed" in note for note in imported.notes) == 6  # lo, ifb0, ifb1: each direction


def test_logs_are_aligned_by_their_first_times(tmp_path: Path) -> None:
    """hv2's ip-link log began 2.5 s after hv1's /proc/net/dev log: its steps start at 2.5 s."""
    hv1, hv2 = tmp_path / "hv1-netdev.log", tmp_path / "hv2-iplink.log"
    hv1.write_text(log(proc, eth0=sending([125e6, 125e6]), times=[f"{T0 + k}.0" for k in range(3)]))
    hv2.write_text(log(ip_link, eth0=sending([125e6, 125e6]), times=[f"{T0 + 2 + k}.5" for k in range(3)], host="HV2"))
    records = [*read_measurement(hv1), *read_measurement(hv2)]
    imported = import_demand(parse_scenario(SCENARIO), records, resolution_s=0.5)
    two = next(s for s in imported.series if s.nic == "hv2/eth0" and s.direction == "send")
    assert two.steps == [(2.5, 1e9), (4.5, 0.0)]
    assert not any("side by side" in note for note in imported.notes)


def test_the_demand_command_takes_both_logs(cli: Invoke, tmp_path: Path) -> None:
    scenario = tmp_path / "cluster.yaml"
    scenario.write_text(SCENARIO)
    hv1, hv2 = tmp_path / "hv1-netdev.log", tmp_path / "hv2-iplink.log"
    hv1.write_text(log(proc, eth0=sending([125e6, 250e6]), times=[f"{T0 + k}.0" for k in range(3)]))
    hv2.write_text(log(ip_link, eth0=sending([125e6, 125e6]), times=[f"{T0 + k}.0" for k in range(3)], host="hv2"))
    out = tmp_path / "measured.yaml"
    result = cli("import", "demand", hv1, hv2, "--scenario", scenario, "-o", out, "--resolution", "1s")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "  - nic: hv1/eth0" in text and "  - nic: hv2/eth0" in text
    assert "send: [[0s, 1 Gbps], [1s, 2 Gbps], [2s, 0 bps]]" in text


def test_the_measurement_table_shows_each_series_instance_as_written() -> None:
    """An instance in brackets is text, not rich markup: `[eth0]` is printed, not swallowed."""
    from rich.console import Console

    from hvnet.importers.measurement import Measurement, Series
    from hvnet.importers.show import measurement_table

    series = Series(counter="rx_bytes_per_s", instance="eth0", unit="bytes/s", source="rxkB/s", t_s=[0.0], values=[1.0])
    console = Console(width=120, record=True)
    console.print(measurement_table(Measurement(file="x.log", format="sar-dev-text", series=[series])))
    assert "rx_bytes_per_s [eth0]" in console.export_text()
