"""Counter logs and counter snapshots -> Measurement: PDH-CSV, /proc/net/dev, ip -s -j link, sar, sadf.

Real samples are in samples/ (their source at their top). The PDH-CSV sample
holds snippets, not whole files: the files here are built from them, each
snippet used as written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.errors import InputError
from hvnet.importers import detect, read_measurement, read_measurement_text
from hvnet.importers.pdh_csv import adapter_name, split_counter_path

SAMPLES = Path(__file__).parent / "samples"


def lines_of(name: str) -> list[str]:
    return (SAMPLES / name).read_text().splitlines()


def error(text: str, file: str) -> str:
    with pytest.raises(InputError) as caught:
        read_measurement_text(text, file)
    assert "\n" not in str(caught.value)
    return str(caught.value)


# --- PDH-CSV ----------------------------------------------------------------------------------

SNIPPET_A = [
    line
    for line in lines_of("pdh_csv_examples.txt")
    if line.startswith('"(PDH-CSV 4.0) (Eastern') or line.startswith('"09/08/2002')
]


def test_the_sample_counter_log_as_written_names_its_garbled_value() -> None:
    # Snippet A's second value, "7.0625001143654654e", lost its exponent where it was quoted.
    text = "\n".join(SNIPPET_A) + "\n"
    assert detect(text) == "pdh-csv"
    assert error(text, "perf.csv") == (
        "perf.csv:2: \\\\SQL01\\PhysicalDisk(0 D:)\\% Disk Time: '7.0625001143654654e' is not a number"
    )


def test_the_sample_counter_log_with_that_value_whole() -> None:
    text = "\n".join(SNIPPET_A).replace('"7.0625001143654654e"', '"7.0625001143654654"') + "\n"
    [m] = read_measurement_text(text, "perf.csv")
    assert m.format == "pdh-csv" and m.start_time == "09/08/2002 12:35:45.166"
    assert m.parameters.time_zone == "Eastern Daylight Time"
    assert m.parameters.other == {"utc_bias_minutes": "240"}
    pages, disk = m.series
    assert (pages.host, pages.counter, pages.instance, pages.unit) == ("SQL01", "Memory\\Pages/sec", None, "1/s")
    assert pages.values == [11.296813511113458, 0.26679653905997197, 0.13331924737007395]
    assert pages.t_s == [0.0, pytest.approx(15.001), pytest.approx(30.003)]
    assert (disk.counter, disk.instance, disk.unit) == ("PhysicalDisk\\% Disk Time", "0 D:", "percent")
    assert disk.values == [7.0625001143654654, 2.8829087316668804, 2.0239260004978679]
    assert m.duration_s == pytest.approx(30.003)
    assert m.notes == []


def test_instance_names_paths_and_headers_from_the_sample() -> None:
    assert split_counter_path(
        "\\\\MYPC\\Network Interface(Intel[R] Ethernet Connection [7] I219-LM)\\Bytes Received/sec"
    ) == ("MYPC", "Network Interface", "Intel[R] Ethernet Connection [7] I219-LM", "Bytes Received/sec")
    assert split_counter_path("\\Network Interface(intel[r] ethernet 10g 4p x550 rndc _4)\\Bytes Sent/sec")[0] is None
    assert adapter_name("intel[r] ethernet 10g 4p x550 rndc _4") == "intel(r) ethernet 10g 4p x550 rndc #4"
    assert (
        adapter_name("Intel[R] 82574L Gigabit Network Connection _2") == "Intel(R) 82574L Gigabit Network Connection #2"
    )
    assert adapter_name("_Total") == "_Total"
    assert split_counter_path("\\\\ATS_CEN1\\Processor Information(0,_Total)\\% Processor Performance") == (
        "ATS_CEN1",
        "Processor Information",
        "0,_Total",
        "% Processor Performance",
    )


def test_typeperf_console_capture_with_missing_values_commas_and_trailer() -> None:
    # Headers and paths from the sample's snippets B and C, the trailer from D.
    text = (
        "\n"
        '"(PDH-CSV 4.0)",'
        '"\\\\DC1PD\\Network Interface(Intel[R] 82574L Gigabit Network Connection _2)\\Bytes Total/sec",'
        '"\\\\ATS_CEN1\\Processor Information(0,_Total)\\% Processor Performance"\n'
        '"11/22/2026 10:00:00.000","125000000.5","97.5"\n'
        '"11/22/2026 10:00:01.000"," ",""\n'
        '"11/22/2026 10:00:02.000","250000000","98"\n'
        "Exiting, please wait...\n"
        "The command completed successfully.\n"
    )
    [m] = read_measurement_text(text, "typeperf.txt")
    nic, cpu = m.series
    assert nic.instance == "Intel(R) 82574L Gigabit Network Connection #2" and nic.unit == "bytes/s"
    assert nic.values == [125000000.5, None, 250000000.0] and nic.t_s == [0.0, 1.0, 2.0]
    assert cpu.instance == "0,_Total" and cpu.values == [97.5, None, 98.0]
    assert m.parameters.time_zone is None


@pytest.mark.parametrize(
    ("header", "zone", "bias"),
    [
        ("(PDH-CSV 4.0) (GMT Standard Time)(0)", "GMT Standard Time", "0"),
        ("(PDH-CSV 4.0) (India Standard Time)(-330)", "India Standard Time", "-330"),
        ("(PDH-CSV 4.0) (Romance Standard Time)(-60)", "Romance Standard Time", "-60"),
    ],
)
def test_time_zone_headers_from_the_sample(header: str, zone: str, bias: str) -> None:
    [m] = read_measurement_text(
        f'"{header}","\\\\H\\Memory\\Available Bytes"\n"01/02/2026 00:00:00.000","1"\n', "p.csv"
    )
    assert m.parameters.time_zone == zone and m.parameters.other["utc_bias_minutes"] == bias
    assert m.series[0].unit == "bytes"


def test_a_localised_counter_is_kept_and_named_in_a_note() -> None:
    text = (
        '"(PDH-CSV 4.0) (Mitteleuropäische Zeit)(-60)",'
        '"\\\\HV1\\Netzwerkschnittstelle(Intel[R] X710 _2)\\Empfangene Bytes/s"\n'
        '"11/22/2026 10:00:00.000","42"\n'
    )
    [m] = read_measurement_text(text, "de.csv")
    assert m.series[0].unit is None and m.series[0].values == [42.0]
    assert m.notes == [
        "\\\\HV1\\Netzwerkschnittstelle(Intel[R] X710 _2)\\Empfangene Bytes/s: counter object 'Netzwerkschnittstelle'"
        " is not one hvnet knows (a localised name?); kept as written, unit unknown"
    ]


def test_bad_counter_logs() -> None:
    head = '"(PDH-CSV 4.0)","\\\\H\\Memory\\Pages/sec","\\\\H\\Memory\\Available Bytes"\n'
    assert error(head + '"11/22/2026 10:00:00.000","1"\n', "p.csv") == (
        "p.csv:2: expected 3 fields (a time and 2 values), found 2 (truncated?)"
    )
    assert error(head, "p.csv") == "p.csv:1: no samples after the header (truncated?)"
    assert error(head + '"yesterday","1","2"\n', "p.csv") == (
        "p.csv:2: time: 'yesterday' is not a PDH timestamp (expected MM/DD/YYYY HH:MM:SS.mmm)"
    )
    assert error('"(PDH-CSV 4.0)","Pages"\n"11/22/2026 10:00:00.000","1"\n', "p.csv") == (
        "p.csv:1: column 2: 'Pages' is not a counter path \\\\HOST\\Object(Instance)\\Counter"
    )


# --- /proc/net/dev and ip -s -j link ---------------------------------------------------------


def test_proc_net_dev_sample() -> None:
    [m] = read_measurement(SAMPLES / "proc_net_dev.txt")
    assert m.format == "proc-net-dev"
    assert [c.interface for c in m.interfaces] == ["lo", "ifb0", "ifb1", "eth0"]
    eth0 = m.interfaces[3]
    assert (eth0.rx_bytes, eth0.rx_packets, eth0.tx_bytes, eth0.tx_packets) == (72493940, 1725, 115388, 1162)
    assert eth0.other["rx_multicast"] == 0 and eth0.other["tx_colls"] == 0
    assert m.interfaces[0].rx_bytes == 3245


def test_ip_link_samples_agree_with_proc_net_dev() -> None:
    [links] = read_measurement(SAMPLES / "ip_s_j_link.json")
    [proc] = read_measurement(SAMPLES / "proc_net_dev.txt")
    assert links.format == "ip-link-json"
    for a, b in zip(links.interfaces, proc.interfaces):
        assert (a.interface, a.rx_bytes, a.rx_packets, a.tx_bytes, a.tx_packets) == (
            b.interface,
            b.rx_bytes,
            b.rx_packets,
            b.tx_bytes,
            b.tx_packets,
        )
    [lo] = read_measurement(SAMPLES / "ip_s_s_j_link_lo.json")
    assert lo.interfaces[0].other["rx_crc_errors"] == 0 and "tx_carrier_changes" in lo.interfaces[0].other


def test_bad_snapshots() -> None:
    text = (SAMPLES / "proc_net_dev.txt").read_text()
    cut = text[: text.rindex("0 ")]
    assert (
        error(cut, "dev")
        == f"dev:{len(cut.splitlines())}: eth0: expected 'iface: ' and 16 counters, found 14 values (truncated?)"
    )
    assert error('[{"ifname": "eth0", "mtu": 1500}]', "l.json") == (
        "l.json: [0].stats64: eth0: no rx/tx statistics (run ip with -s)"
    )


# --- sysstat -------------------------------------------------------------------------------------


def test_sar_text_sample() -> None:
    rows = lines_of("sar_n_dev_and_sadf_d.txt")
    text = "\n".join(rows[: rows.index("")]) + "\n"  # the sar block, with the SOURCE line
    assert detect(text) == "sar-dev-text"
    [m] = read_measurement_text(text, "sar.txt")
    assert m.start_time == "05:39:34"
    assert sorted({s.instance or "" for s in m.series}) == ["enp6s0", "lo", "virbr0", "virbr0-nic", "wlp5s0"]
    rx = next(s for s in m.series if s.instance == "lo" and s.counter == "rx_bytes_per_s")
    assert (rx.unit, rx.source, rx.values, rx.t_s) == ("bytes/s", "rxkB/s", [0.0], [0.0])


def test_sar_text_twelve_hour_clock_over_midnight_and_kb() -> None:
    text = (
        "11:59:59 PM     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   rxcmp/s   txcmp/s  rxmcst/s   %ifutil\n"
        "11:59:59 PM      eth0    100.00     50.00      2.00      1.00      0.00      0.00      0.00      0.02\n"
        "12:00:09 AM      eth0    200.00     60.00      4.00      1.50      0.00      0.00      0.00      0.03\n"
        "Average:         eth0    150.00     55.00      3.00      1.25      0.00      0.00      0.00      0.03\n"
    )
    [m] = read_measurement_text(text, "sar.txt")
    rx = next(s for s in m.series if s.counter == "rx_bytes_per_s")
    assert rx.t_s == [0.0, 10.0] and rx.values == [2048.0, 4096.0]  # sysstat's kB is 1024 bytes


def test_sadf_d_sample() -> None:
    rows = lines_of("sar_n_dev_and_sadf_d.txt")
    text = "\n".join(rows[rows.index("") + 1 :]) + "\n"
    assert detect(text) == "sadf-dev-csv"
    [m] = read_measurement_text(text, "sadf.csv")
    assert (m.host, m.start_time, m.parameters.other) == (
        "SYSSTAT.TEST",
        "2019-04-18 13:20:19 UTC",
        {"interval_s": "31"},
    )
    assert sorted({s.instance or "" for s in m.series}) == ["enp6s0", "lo", "virbr0-nic"]
    assert len(m.series) == 3 * 8
    cut = text.rstrip("\n")[:-5]
    assert error(cut, "sadf.csv") == "sadf.csv:4: expected 12 fields separated by ';', found 11 (truncated?)"


def sadf_j_from_sample() -> str:
    """The sample is a grep excerpt (lines 104-108 of sysstat's tests/expected.sadf-j): its net-dev
    lines, without grep's prefixes, put back into that file's structure (host SYSSTAT.TEST,
    timestamp 2019-04-18 13:20:19 UTC, interval 31, as at the top of the same file)."""
    body = [
        line.split(":", 1)[1] if line[:3] == "104" else line.split("-", 1)[1]
        for line in lines_of("sadf_j_net_dev.txt")[1:]
    ]
    body[-1] = body[-1].rstrip().rstrip(",")
    return (
        '{"sysstat": {"hosts": [{"nodename": "SYSSTAT.TEST", "statistics": [{\n'
        '"timestamp": {"date": "2019-04-18", "time": "13:20:19", "tz": "UTC", "interval": 31},\n'
        '"network": {\n' + "\n".join(body) + "\n]}}]}]}}\n"
    )


def test_sadf_j_sample() -> None:
    text = sadf_j_from_sample()
    assert detect(text) == "sadf-json"
    [m] = read_measurement_text(text, "sadf.json")
    assert m.host == "SYSSTAT.TEST" and m.start_time == "2019-04-18 13:20:19"
    virbr0 = {s.counter: s.values for s in m.series if s.instance == "virbr0"}
    assert virbr0["rx_packets_per_s"] == [3.21]
    assert virbr0["rx_bytes_per_s"] == [pytest.approx(0.03 * 1024)]
    assert virbr0["rx_multicast_per_s"] == [19.25]
    assert error('{"sysstat": {"hosts": [{"nodename": "h", "statistics": [{"cpu-load": []}]}]}}', "s.json") == (
        's.json: sysstat.hosts[0].statistics[0].timestamp: expected {"date": ..., "time": ...}'
    )
