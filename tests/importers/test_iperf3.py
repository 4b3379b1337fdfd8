"""iperf3 -J -> Measurement.

There is no iperf3 sample in the shared formats: these inputs follow the JSON
that esnet/iperf writes (src/iperf_api.c: "start" with "connected",
"connecting_to" / "accepted_connection", "test_start"; "intervals" with
"streams" and "sum"; "end" with per-stream "sender"/"receiver" or "udp",
"sum_sent", "sum_received", UDP's "sum", "cpu_utilization_percent"), and the
public iperf 3.9 client output of kfirtoledo/CloudPilot_Project (results/*.res)
for the field order and the start section.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from hvnet.errors import InputError
from hvnet.importers import detect, read_measurement_text


def client_tcp() -> dict[str, Any]:
    def interval(start: float, end: float, nbytes: int, retr: int) -> dict[str, Any]:
        return {
            "streams": [
                {
                    "socket": 5,
                    "start": start,
                    "end": end,
                    "seconds": end - start,
                    "bytes": nbytes,
                    "bits_per_second": nbytes * 8 / (end - start),
                    "retransmits": retr,
                    "snd_cwnd": 829312,
                    "rtt": 3122,
                    "rttvar": 147,
                    "pmtu": 1460,
                    "omitted": False,
                    "sender": True,
                }
            ],
            "sum": {
                "start": start,
                "end": end,
                "seconds": end - start,
                "bytes": nbytes,
                "bits_per_second": nbytes * 8 / (end - start),
                "retransmits": retr,
                "omitted": False,
                "sender": True,
            },
        }

    return {
        "start": {
            "connected": [
                {
                    "socket": 5,
                    "local_host": "10.0.0.4",
                    "local_port": 52700,
                    "remote_host": "10.0.0.5",
                    "remote_port": 5201,
                }
            ],
            "version": "iperf 3.9",
            "system_info": "Linux vm-3 5.4.104+ #1 SMP Mon Jun 7 21:53:49 PDT 2021 x86_64",
            "timestamp": {"time": "Mon, 02 Aug 2021 13:25:05 UTC", "timesecs": 1627910705},
            "connecting_to": {"host": "10.0.0.5", "port": 5201},
            "cookie": "oj55srbtpjkbhxh627ntslloj7mwusve5abl",
            "tcp_mss_default": 1408,
            "sock_bufsize": 0,
            "sndbuf_actual": 16384,
            "rcvbuf_actual": 87380,
            "test_start": {
                "protocol": "TCP",
                "num_streams": 1,
                "blksize": 131072,
                "omit": 0,
                "duration": 2,
                "bytes": 0,
                "blocks": 0,
                "reverse": 0,
                "tos": 0,
            },
        },
        "intervals": [interval(0, 1.000076, 189312640, 193), interval(1.000076, 2.000093, 246895616, 68)],
        "end": {
            "streams": [
                {
                    "sender": {
                        "socket": 5,
                        "start": 0,
                        "end": 2.000093,
                        "seconds": 2.000093,
                        "bytes": 436208256,
                        "bits_per_second": 1744752867.7,
                        "retransmits": 261,
                        "max_snd_cwnd": 1016576,
                        "max_rtt": 3745,
                        "min_rtt": 3122,
                        "mean_rtt": 3433,
                        "sender": True,
                    },
                    "receiver": {
                        "socket": 5,
                        "start": 0,
                        "end": 2.04,
                        "seconds": 2.000093,
                        "bytes": 433456000,
                        "bits_per_second": 1733743456.3,
                        "sender": True,
                    },
                }
            ],
            "sum_sent": {
                "start": 0,
                "end": 2.000093,
                "seconds": 2.000093,
                "bytes": 436208256,
                "bits_per_second": 1744752867.7,
                "retransmits": 261,
                "sender": True,
            },
            "sum_received": {
                "start": 0,
                "end": 2.04,
                "seconds": 2.04,
                "bytes": 433456000,
                "bits_per_second": 1699827450.98,
                "sender": True,
            },
            "cpu_utilization_percent": {
                "host_total": 12.5,
                "host_user": 0.9,
                "host_system": 11.6,
                "remote_total": 20.1,
                "remote_user": 1.2,
                "remote_system": 18.9,
            },
            "sender_tcp_congestion": "cubic",
            "receiver_tcp_congestion": "cubic",
        },
    }


def read(document: dict[str, Any], file: str = "c.json") -> Any:
    text = json.dumps(document, indent="\t")
    assert detect(text) == "iperf3-json"
    [m] = read_measurement_text(text, file)
    return m


def test_client_tcp_totals_streams_and_intervals() -> None:
    m = read(client_tcp())
    assert (m.format, m.tool_version, m.role, m.host) == ("iperf3-json", "3.9", "sender", "vm-3")
    assert m.throughput_bps == 1699827450.98  # sum_received: what arrived
    assert m.received_throughput_bps == m.throughput_bps
    assert m.sent_throughput_bps == 1744752867.7
    assert (m.duration_s, m.total_bytes, m.retransmits) == (2.04, 433456000, 261)
    assert m.cpu_percent == 12.5 and m.cpu_detail_percent["remote_total"] == 20.1
    assert [(s.index, s.bytes, s.retransmits) for s in m.streams] == [(0, 433456000, 261)]
    assert [i.bytes for i in m.intervals] == [189312640, 246895616]
    assert m.intervals[1].retransmits == 68
    p = m.parameters
    assert (p.protocol, p.threads, p.buffer_bytes, p.direction, p.requested_duration_s) == ("tcp", 1, 131072, "send", 2)
    assert (p.local_address, p.local_port, p.remote_address, p.remote_port) == ("10.0.0.4", 52700, "10.0.0.5", 5201)
    assert p.send_socket_buffer_bytes == 16384


def test_reverse_client_and_plain_server_are_receivers() -> None:
    reverse = client_tcp()
    reverse["start"]["test_start"]["reverse"] = 1
    assert read(reverse).role == "receiver"
    assert read(reverse).parameters.direction == "reverse"
    server = client_tcp()
    del server["start"]["connecting_to"]
    server["start"]["accepted_connection"] = {"host": "10.0.0.4", "port": 52698}
    assert read(server).role == "receiver"
    bidir = client_tcp()
    bidir["start"]["test_start"]["bidir"] = 1
    assert read(bidir).role is None and read(bidir).parameters.direction == "bidirectional"


def test_udp_loss_and_jitter() -> None:
    doc = client_tcp()
    doc["start"]["test_start"]["protocol"] = "UDP"
    doc["intervals"] = []
    doc["end"] = {
        "streams": [
            {
                "udp": {
                    "socket": 5,
                    "start": 0,
                    "end": 10,
                    "seconds": 10,
                    "bytes": 1310720,
                    "bits_per_second": 1048576,
                    "jitter_ms": 0.012,
                    "lost_packets": 3,
                    "packets": 905,
                    "lost_percent": 0.33,
                    "out_of_order": 0,
                    "sender": True,
                }
            }
        ],
        "sum": {
            "start": 0,
            "end": 10.0,
            "seconds": 10.0,
            "bytes": 1310720,
            "bits_per_second": 1048576,
            "jitter_ms": 0.012,
            "lost_packets": 3,
            "packets": 905,
            "lost_percent": 0.33,
            "sender": True,
        },
        "sum_sent": {
            "start": 0,
            "end": 10.0,
            "seconds": 10.0,
            "bytes": 1310720,
            "bits_per_second": 1048576,
            "jitter_ms": 0,
            "lost_packets": 0,
            "packets": 905,
            "lost_percent": 0,
            "sender": True,
        },
        "sum_received": {
            "start": 0,
            "end": 10.04,
            "seconds": 10.04,
            "bytes": 1306376,
            "bits_per_second": 1040937.3,
            "jitter_ms": 0.012,
            "lost_packets": 3,
            "packets": 902,
            "lost_percent": 0.33,
            "sender": False,
        },
        "cpu_utilization_percent": {
            "host_total": 1.0,
            "host_user": 0.5,
            "host_system": 0.5,
            "remote_total": 0.4,
            "remote_user": 0.2,
            "remote_system": 0.2,
        },
    }
    m = read(doc)
    assert m.parameters.protocol == "udp"
    assert m.throughput_bps == 1040937.3 and m.sent_throughput_bps == 1048576
    assert (m.lost_packets, m.jitter_s, m.retransmits) == (3, pytest.approx(12e-6), None)
    assert m.streams[0].bytes == 1310720
    # an older iperf3 writes only "sum" for UDP
    for key in ("sum_sent", "sum_received"):
        del doc["end"][key]
    old = read(doc)
    assert old.throughput_bps == 1048576 and old.sent_throughput_bps is None and old.lost_packets == 3


def errors(document: Any) -> str:
    text = document if isinstance(document, str) else json.dumps(document, indent="\t")
    with pytest.raises(InputError) as caught:
        read_measurement_text(text, "c.json")
    return str(caught.value)


def test_bad_iperf3_files_are_one_line() -> None:
    failed = {
        "start": {"connected": [], "version": "iperf 3.9", "test_start": {"protocol": "TCP"}},
        "intervals": [],
        "end": {},
        "error": "unable to connect to server: Connection refused",
    }
    assert errors(failed) == (
        "c.json: error: iperf3 reported an error, no results: unable to connect to server: Connection refused"
    )
    interrupted = copy.deepcopy(client_tcp())
    interrupted["end"] = {}
    assert (
        errors(interrupted) == "c.json: end: no sum_received or sum: the run did not finish (truncated or interrupted?)"
    )
    text = json.dumps(client_tcp(), indent="\t")
    cut = text[: len(text) // 2]
    message = errors(cut)
    assert message.startswith(f"c.json:{len(cut.splitlines())}: not valid iperf3 JSON")
    assert message.endswith("(the file ends early: truncated?)")
    wrong = client_tcp()
    wrong["end"]["sum_received"]["bits_per_second"] = "fast"
    assert errors(wrong) == "c.json: end.sum_received.bits_per_second: expected a number, found 'fast'"
