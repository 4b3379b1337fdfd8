"""`hvnet import measurement`: tables, the JSON document, errors, and docs/import.md kept in step."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from hvnet.importers import FORMATS, InterfaceCounters, Interval, Measurement, Parameters, Series, Stream

Invoke = Callable[..., Result]
SAMPLES = Path(__file__).parent / "samples"
DOCS = Path(__file__).parents[2] / "docs" / "import.md"


def test_a_table_per_file(cli: Invoke) -> None:
    result = cli("import", "measurement", SAMPLES / "ntttcp_windows_5.39_sender.txt", SAMPLES / "proc_net_dev.txt")
    assert result.exit_code == 0, result.output
    assert "ntttcp_windows_5.39_sender.txt: ntttcp-windows-text 5.39" in result.stdout
    assert "957.48 Mbps" in result.stdout and "60,412" in result.stdout
    assert "proc_net_dev.txt: proc-net-dev" in result.stdout and "eth0" in result.stdout


def test_json_on_stdout_is_the_document_alone(cli: Invoke) -> None:
    result = cli("import", "measurement", SAMPLES / "ntttcp_linux_1.4.0_sender.xml", "--json", "-")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["version"] == 1
    [m] = document["measurements"]
    assert m["format"] == "ntttcp-linux-xml" and m["throughput_bps"] == 1476085185.665 * 8
    assert Measurement.model_validate(m).total_bytes == 89095376896


def test_json_file_is_never_overwritten_without_force(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    out.write_text("keep")
    result = cli("import", "measurement", SAMPLES / "proc_net_dev.txt", "--json", out)
    assert result.exit_code == 2 and out.read_text() == "keep"
    assert "exists; not overwritten (use --force to replace it)" in result.stderr
    assert cli("import", "measurement", SAMPLES / "proc_net_dev.txt", "--json", out, "--force").exit_code == 0
    assert json.loads(out.read_text())["measurements"][0]["format"] == "proc-net-dev"


def test_an_unknown_file_lists_the_formats_known(cli: Invoke, tmp_path: Path) -> None:
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n")
    result = cli("import", "measurement", odd)
    assert result.exit_code == 2 and "Traceback" not in result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"{odd}:1: not a measurement format hvnet knows (it starts with 'hello'); it reads: ")
    for f in FORMATS:
        assert f.name in line


def test_bad_input_is_one_line_never_a_traceback(cli: Invoke, tmp_path: Path) -> None:
    cut = tmp_path / "cut.xml"
    cut.write_text((SAMPLES / "ntttcp_linux_1.4.0_sender.xml").read_text()[:1500])
    binary = tmp_path / "log.blg"
    binary.write_bytes(b"\x00\x01\x02\xff\xfe" * 10)
    for path, start in (
        (cut, f"{cut}:"),
        (binary, f"{binary}: binary data, not a text measurement"),
        (tmp_path / "missing.txt", f"{tmp_path / 'missing.txt'}: No such file"),
    ):
        result = cli("import", "measurement", path)
        assert result.exit_code == 2 and "Traceback" not in result.output
        [line] = result.stderr.strip().splitlines()
        assert line.startswith(start), line


def test_utf16_counter_logs_are_read(cli: Invoke, tmp_path: Path) -> None:
    log = tmp_path / "typeperf.csv"
    log.write_bytes('"(PDH-CSV 4.0)","\\\\H\\Memory\\Pages/sec"\r\n"01/02/2026 00:00:00.000","3"\r\n'.encode("utf-16"))
    result = cli("import", "measurement", log, "--json", "-")
    assert json.loads(result.stdout)["measurements"][0]["series"][0]["values"] == [3.0]


def test_docs_name_every_format_and_field() -> None:
    text = DOCS.read_text()
    assert "## Measurements" in text and "## Configuration" in text and "## Explain" in text
    for f in FORMATS:
        assert f"`{f.name}`" in text, f.name
    for model in (Measurement, Parameters, Stream, Interval, Series, InterfaceCounters):
        for field in model.model_fields:
            assert f"`{field}`" in text, f"{model.__name__}.{field} is not in docs/import.md"
