"""NTttcp for Windows and ntttcp-for-linux outputs -> Measurement.

The samples in samples/ are real outputs (their source is at their top); the
assertions are the figures the files themselves print. Inputs for shapes
without a sample (Windows -xml, Linux -j JSON) are written from the two
programs' writers: microsoft/ntttcp src/ntttcp.c (PrintOutput) and
microsoft/ntttcp-for-linux src/util.c (write_result_into_xml_file,
write_result_into_json_file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.errors import InputError
from hvnet.importers import detect, read_measurement, read_measurement_text

SAMPLES = Path(__file__).parent / "samples"
MIB = 2**20


def error_line(text: str, file: str = "run.txt") -> str:
    with pytest.raises(InputError) as caught:
        read_measurement_text(text, file)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- NTttcp for Windows, text -------------------------------------------------------


def test_windows_text_sample_gives_the_figures_it_prints() -> None:
    [m] = read_measurement(SAMPLES / "ntttcp_windows_5.39_sender.txt")
    assert m.format == "ntttcp-windows-text"
    assert m.tool_version == "5.39"
    assert m.role == "sender"
    assert m.duration_s == 300.005
    # "Bytes(MEG)" and "Throughput(MB/s)" are 2^20 bytes
    assert m.total_bytes == 34243 * MIB
    assert m.throughput_bps == pytest.approx(114.141 * MIB * 8)
    assert m.throughput_bps == pytest.approx(957.48e6, rel=1e-5)
    assert m.cpu_percent == 15.075
    assert m.retransmits == 60412
    assert m.packets_sent == 25324915 and m.packets_received == 2161992
    assert [s.index for s in m.streams] == [0, 1, 2, 3]
    assert m.streams[0].throughput_bps == pytest.approx(29617.328 * 1024 * 8)
    assert m.streams[0].duration_s == 300.006
    # the threads add up to the total (KB/s are 2^10 bytes)
    assert sum(s.throughput_bps for s in m.streams) == pytest.approx(m.throughput_bps, rel=1e-4)
    assert m.extra["avg_frame_size_bytes"] == 1417.829
    assert m.extra["cycles_per_byte"] == 7.036
    assert m.extra["interrupts_per_s"] == 6055.769
    assert m.extra["packets_per_dpc"] == 1.708
    p = m.parameters
    assert p.command_line == "ntttcp -s -m 4,*,10.0.0.5 -t 300"
    assert (p.threads, p.remote_address, p.requested_duration_s, p.direction) == (4, "10.0.0.5", 300.0, "send")


def _sample(name: str) -> str:
    return (SAMPLES / name).read_text()


def test_windows_text_without_the_prompt_line_has_no_role_but_the_figures() -> None:
    text = "\n".join(line for line in _sample("ntttcp_windows_5.39_sender.txt").splitlines() if "tools>" not in line)
    [m] = read_measurement_text(text, "r.txt")
    assert m.role is None and m.parameters.command_line is None
    assert m.parameters.threads == 4  # from the thread table
    assert m.throughput_bps == pytest.approx(114.141 * MIB * 8)


def test_windows_receiver_command_line() -> None:
    text = _sample("ntttcp_windows_5.39_sender.txt").replace(
        "ntttcp -s -m 4,*,10.0.0.5 -t 300", "ntttcp -r -m 8,*,10.0.0.5 -l 128k -t 60"
    )
    [m] = read_measurement_text(text, "r.txt")
    assert m.role == "receiver"
    assert (m.parameters.threads, m.parameters.buffer_bytes, m.parameters.direction) == (8, 128 * 1024, "receive")


def test_windows_text_truncated_before_the_totals_is_one_line() -> None:
    text = _sample("ntttcp_windows_5.39_sender.txt")
    cut = text[: text.index("#####  Totals")]
    message = error_line(cut)
    assert message.startswith(f"run.txt:{len(cut.splitlines())}: Totals: no totals table")
    assert "truncated" in message


def test_windows_text_with_a_garbled_figure_names_it() -> None:
    text = _sample("ntttcp_windows_5.39_sender.txt").replace("15.075", "15,075x")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "15,075x" in row)
    assert error_line(text) == f"run.txt:{line}: Avg. CPU %: '15,075x' is not a number"


# --- NTttcp for Windows, -xml ----------------------------------------------------------

# Written from microsoft/ntttcp src/ntttcp.c PrintOutput (xml_flag): the file is opened
# with "a+", so two runs to the same -xml file are two roots, one after the other.
WINDOWS_XML_RUN = """<ntttcps computername="HV1" version="5.39">
\t<parameters>
\t\t<send_socket_buff>-1</send_socket_buff>
\t\t<recv_socket_buff>-1</recv_socket_buff>
\t\t<port>5001</port>
\t\t<sync_port>False</sync_port>
\t\t<udp>False</udp>
\t\t<run_time>{run_time}</run_time>
\t\t<warmup_time>0</warmup_time>
\t\t<cooldown_time>0</cooldown_time>
\t</parameters>
\t<thread index="0">
\t\t<realtime metric="s">{realtime}</realtime>
\t\t<throughput metric="KB/s">58597.398</throughput>
\t\t<throughput metric="MB/s">57.224</throughput>
\t\t<throughput metric="mbps">480.030</throughput>
\t\t<throughput metric="Bps">60003735.6</throughput>
\t\t<avg_bytes_per_compl metric="B">65536.000</avg_bytes_per_compl>
\t</thread>
\t<thread index="1">
\t\t<realtime metric="s">{realtime}</realtime>
\t\t<throughput metric="KB/s">58597.398</throughput>
\t\t<throughput metric="MB/s">57.224</throughput>
\t\t<throughput metric="mbps">480.030</throughput>
\t\t<throughput metric="Bps">60003735.6</throughput>
\t\t<avg_bytes_per_compl metric="B">65536.000</avg_bytes_per_compl>
\t</thread>
\t<total_bytes metric="MB">{total_mb}</total_bytes>
\t<realtime metric="s">{realtime}</realtime>
\t<avg_bytes_per_compl metric="B">65536.000</avg_bytes_per_compl>
\t<threads_avg_bytes_per_compl metric="B">65536.000</threads_avg_bytes_per_compl>
\t<avg_frame_size metric="B">1460.000</avg_frame_size>
\t<throughput metric="MB/s">114.449</throughput>
\t<throughput metric="mbps">960.060</throughput>
\t<throughput metric="Bps">120007471.2</throughput>
\t<total_buffers>18311.000</total_buffers>
\t<throughput metric="buffers/s">1831.169</throughput>
\t<avg_packets_per_interrupt metric="packets/interrupt">1.190</avg_packets_per_interrupt>
\t<interrupts metric="count/sec">6055.769</interrupts>
\t<dpcs metric="count/sec">4218.744</dpcs>
\t<avg_packets_per_dpc metric="packets/dpc">1.708</avg_packets_per_dpc>
\t<cycles metric="cycles/byte">7.036</cycles>
\t<packets_sent>821917</packets_sent>
\t<packets_received>70192</packets_received>
\t<packets_retransmitted>{retrans}</packets_retransmitted>
\t<errors>0</errors>
\t<cpu metric="%">{cpu}</cpu>
\t<num_processors>16</num_processors>
\t<bufferCount>9223372036854775807</bufferCount>
\t<bufferLen>65536</bufferLen>
\t<io>2</io>
</ntttcps>
"""


def test_windows_xml_appended_runs_give_one_record_each() -> None:
    text = WINDOWS_XML_RUN.format(run_time=10, realtime="10.000000", total_mb="1144.490000", retrans=12, cpu="14.250")
    text += WINDOWS_XML_RUN.format(run_time=20, realtime="20.000000", total_mb="2288.980000", retrans=40, cpu="15.000")
    assert detect(text) == "ntttcp-windows-xml"
    first, second = read_measurement_text(text, "runs.xml")
    assert first.format == "ntttcp-windows-xml" and first.tool_version == "5.39" and first.host == "HV1"
    assert first.role == "sender"
    assert first.total_bytes == round(1144.49 * MIB)  # "MB" is 2^20 bytes here
    assert first.throughput_bps == pytest.approx(120007471.2 * 8)
    assert first.duration_s == 10.0 and second.duration_s == 20.0
    assert (first.retransmits, second.retransmits) == (12, 40)
    assert (first.cpu_percent, second.cpu_percent) == (14.25, 15.0)
    assert [s.throughput_bps for s in first.streams] == [480.030e6, 480.030e6]
    assert first.parameters.requested_duration_s == 10 and first.parameters.remote_port == 5001
    assert first.parameters.send_socket_buffer_bytes is None  # -1: the system default
    assert first.extra["num_processors"] == 16


def test_windows_xml_truncated_is_one_line_with_its_line() -> None:
    text = WINDOWS_XML_RUN.format(run_time=10, realtime="10.0", total_mb="1.0", retrans=0, cpu="1.0")
    cut = text[: text.index("<packets_sent>")]
    message = error_line(cut, "runs.xml")
    assert message.startswith(f"runs.xml:{len(cut.splitlines())}: not valid NTttcp XML: the XML ends early")


def test_xml_entities_are_refused_not_expanded() -> None:
    bomb = (
        '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n'
        '<ntttcps computername="x" version="5.39"><realtime metric="s">&lol2;</realtime></ntttcps>\n'
    )
    assert detect(bomb) == "ntttcp-windows-xml"
    assert error_line(bomb, "bomb.xml") == (
        "bomb.xml:1: not valid NTttcp XML: a DOCTYPE or ENTITY declaration is not accepted"
        " (hvnet expands no XML entities)"
    )


def test_xml_with_a_declaration_and_a_run_without_totals() -> None:
    text = '<?xml version="1.0"?>\n<ntttcpr computername="b" version="5.39"><parameters/></ntttcpr>\n'
    assert error_line(text, "r.xml") == (
        "r.xml: ntttcpr: no <realtime> or <throughput> totals: not a finished NTttcp run (truncated?)"
    )


def test_xml_of_another_tool_lists_what_is_read() -> None:
    assert "not a measurement format hvnet knows" in error_line("<html><body/></html>", "page.html")


# --- ntttcp-for-linux ---------------------------------------------------------------------


def test_linux_text_sample_gives_the_figures_it_prints() -> None:
    [m] = read_measurement(SAMPLES / "ntttcp_linux_1.4.0_sender.txt")
    assert m.format == "ntttcp-linux-text" and m.tool_version == "1.4.0"
    assert m.role == "sender"
    assert m.duration_s == 300.0
    assert m.total_bytes == 35750674432
    assert m.throughput_bps == 953.35e6  # "953.35Mbps": 10^6 bits/s
    assert m.throughput_bps == pytest.approx(35750674432 * 8 / 300, rel=1e-5)
    assert m.retransmits == 13889
    assert m.cpu_percent == pytest.approx(1.93)  # 100 - idle, machine-wide like Windows' Avg. CPU %
    assert m.cpu_detail_percent == {
        "user": 0.16,
        "system": 1.6,
        "idle": 98.07,
        "iowait": 0.05,
        "softirq": 0.12,
        "process_busy_of_one_cpu": 3.96,
    }
    assert m.extra == {"cpu_cores": 2, "cpu_speed_mhz": 2793.437, "cycles_per_byte": 0.91}
    assert m.parameters.threads == 4 and m.parameters.remote_address == "10.0.0.5"


def test_linux_text_with_the_programs_tabs_and_verbose_threads() -> None:
    # What the program really writes (the doc page collapsed the tabs): src/util.c print_test_results.
    text = (
        "NTTTCP for Linux 1.4.0\n"
        "---------------------------------------------------------\n"
        "10:00:00 INFO: 2 threads created\n"
        "10:00:10 INFO: \tThread\tTime(s)\tThroughput\n"
        "10:00:10 INFO: \t======\t=======\t==========\n"
        "10:00:10 INFO: \t0\t 10.00\t 4.70Gbps\n"
        "10:00:10 INFO: \t1\t 10.00\t 4.71Gbps\n"
        "10:00:10 INFO: #####  Totals:  #####\n"
        "10:00:10 INFO: test duration\t:10.00 seconds\n"
        "10:00:10 INFO: total bytes\t:11762500000\n"
        "10:00:10 INFO: \t throughput\t:9.41Gbps\n"
        "10:00:10 INFO: cpu cores\t:8\n"
        "10:00:10 INFO: \t idle\t\t:90.00%\n"
    )
    [m] = read_measurement_text(text, "recv.log")
    assert m.role is None  # a receiver's console does not say "connections tested"
    assert m.throughput_bps == 9.41e9 and m.retransmits is None
    assert [(s.index, s.throughput_bps) for s in m.streams] == [(0, 4.70e9), (1, 4.71e9)]
    assert m.parameters.threads == 2
    assert m.cpu_percent == 10.0


def test_linux_text_cut_before_totals() -> None:
    text = _sample("ntttcp_linux_1.4.0_sender.txt")
    cut = text[: text.index("#####  Totals")]
    message = error_line(cut, "s.log")
    assert message.startswith(f"s.log:{len(cut.splitlines())}: Totals: no '#####  Totals:  #####' block")


def test_linux_text_with_an_unknown_unit() -> None:
    text = _sample("ntttcp_linux_1.4.0_sender.txt").replace("953.35Mbps", "953.35Mbit")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "953.35Mbit" in row)
    assert error_line(text, "s.log").startswith(f"s.log:{line}: throughput: '953.35Mbit'")


def test_linux_xml_sample_gives_the_figures_it_prints() -> None:
    [m] = read_measurement(SAMPLES / "ntttcp_linux_1.4.0_sender.xml")
    assert m.format == "ntttcp-linux-xml" and m.tool_version == "5.33-linux"
    assert m.host == "Ubuntu20-16c-01" and m.role == "sender"
    assert m.total_bytes == 89095376896  # "MB" is 10^6 bytes in ntttcp-for-linux
    assert m.duration_s == 60.359238
    assert m.throughput_bps == pytest.approx(1476085185.665 * 8)
    assert m.throughput_bps == pytest.approx(11808.681e6, rel=1e-6)  # its own mbps figure
    assert m.total_bytes / m.duration_s == pytest.approx(1476.085e6, rel=1e-6)  # its own MB/s figure
    assert m.retransmits == 5194
    assert m.cpu_percent == pytest.approx(4.71)
    assert m.cpu_detail_percent["process_busy_of_one_cpu"] == 35.69
    assert m.extra["cpu_cores"] == 16 and m.extra["cycles_per_byte"] == 1.32
    p = m.parameters
    assert (p.send_socket_buffer_bytes, p.remote_port, p.requested_duration_s, p.warmup_s) == (126976, 5500, 60, 10)
    assert p.protocol == "tcp" and p.other["sender_name"] == "NA"


# No JSON sample exists: this is what write_result_into_json_file (microsoft/ntttcp-for-linux
# src/util.c) prints for a verbose sender, with the sample XML's figures. Every value is a
# string; a thread's "MB/s" value carries a stray " bps" suffix, as that writer prints it.
LINUX_JSON = """{
    "ntttcps" : {
        "computername" : "Ubuntu20-16c-01",
        "version" : "5.33-linux",
        "parameters" : {
            "sendSocketBuff" : "126976",
            "recvSocketBuff" : "126976",
            "port" : "5500",
            "syncPort" : "5499",
            "udp" : "False",
            "runTime" : "60",
            "warmupTime" : "10",
            "cooldownTime" : "10"
        },
        "threads" : [
            {
                "index" : "0",
                "realTime" : {
                    "metric" : "s",
                    "value" : "60.359"
                },
                "throughputs" : [
                    {
                        "metric" : "KB/s",
                        "value" : "1476085.186"
                    },
                    {
                        "metric" : "MB/s",
                        "value" : "1476.085 bps"
                    },
                    {
                        "metric" : "mbps",
                        "value" : "11808.681"
                    }
                ],
                "avgBytesPerCompl" : {
                    "metric" : "B",
                    "value" : "0.000"
                }
            }
        ],
        "totalBytes" : {
            "metric" : "MB",
            "value" : "89095.376896"
        },
        "realTime" : {
            "metric" : "s",
            "value" : "60.359238"
        },
        "throughputs" : [
            {
                "metric" : "MB/s",
                "value" : "1476.085"
            },
            {
                "metric" : "mbps",
                "value" : "11808.681"
            },
            {
                "metric" : "Bps",
                "value" : "1476085185.665"
            },
            {
                "metric" : "buffer/s",
                "value" : "0.000"
            }
        ],
        "cycles" : {
            "metric" : "cycles/byte",
            "value" : "1.320"
        },
        "packetsSent" : "0",
        "packetsReceived" : "0",
        "packets_retransmitted" : "5194",
        "errors" : "0",
        "cpu" : {
            "metric" : "%",
            "value" : "35.690"
        },
        "os" : "Linux Ubuntu20-16c-01 5.15.0-1014-azure x86_64 GNU/Linux"
    }
}
"""


def test_linux_json_gives_the_same_figures_as_the_xml() -> None:
    assert detect(LINUX_JSON) == "ntttcp-linux-json"
    [m] = read_measurement_text(LINUX_JSON, "s.json")
    [xml] = read_measurement(SAMPLES / "ntttcp_linux_1.4.0_sender.xml")
    assert m.role == "sender" and m.host == xml.host
    assert (m.total_bytes, m.duration_s, m.retransmits) == (xml.total_bytes, xml.duration_s, xml.retransmits)
    assert m.throughput_bps == xml.throughput_bps
    assert m.streams[0].throughput_bps == pytest.approx(11808.681e6)
    assert m.cpu_detail_percent == {"process_busy_of_one_cpu": 35.69}
    assert m.parameters.send_socket_buffer_bytes == 126976 and m.parameters.warmup_s == 10


def test_linux_json_truncated_and_garbled() -> None:
    cut = LINUX_JSON[: LINUX_JSON.index('"cycles"')]
    message = error_line(cut, "s.json")
    assert message.startswith(f"s.json:{len(cut.splitlines())}: not valid ntttcp-for-linux JSON")
    assert message.endswith("(the file ends early: truncated?)")
    garbled = LINUX_JSON.replace('"1476085185.665"', '"fast"')
    assert error_line(garbled, "s.json") == "s.json: ntttcps.throughputs.Bps: 'fast' is not a number"
