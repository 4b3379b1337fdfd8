"""The HTTP API (`hvnet serve`, docs/web.md): each command answers the very document the CLI's `--json`
writes, a scenario's problems answer 422 with the CLI's lines, and files are read and written only
inside the served folder, never over what a user wrote unasked.

Each test talks to a real server (uvicorn on 127.0.0.1, tests/web/conftest.py) through httpx.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from tests.web.conftest import EXAMPLES, Served, drained_star

Invoke = Callable[..., Result]
YAML = {"Content-Type": "application/yaml"}
SAMPLES = Path(__file__).parents[1] / "explain" / "samples"
SCENARIOS = Path(__file__).parents[1] / "explain" / "scenarios"
DUMPS = Path(__file__).parents[1] / "importers" / "config" / "fixtures"

#: A design with requirements, so that check and design have something to evaluate.
REQUIRING = drained_star() + "requirements: {max_drain: 10min, survive: [nic]}\n"
#: A design with variants, so that compare and cost put several side by side.
VARIANTS = drained_star() + 'variants:\n  speed: {set: "hosts[*].nics[*].speed", values: [10Gbps, 25Gbps]}\n'


def _stable(document: Any) -> Any:
    """`document` without what differs between two runs of the same command: wall-clock times."""
    if isinstance(document, dict):
        return {k: _stable(v) for k, v in document.items() if k not in ("wall_s",)}
    if isinstance(document, list):
        return [_stable(v) for v in document]
    return document


@pytest.mark.parametrize(
    ("command", "text", "args"),
    [
        ("simulate", drained_star(), ()),
        ("simulate", (EXAMPLES / "failover.yaml").read_text(), ()),  # failures: costed as the CLI costs them
        ("compare", VARIANTS, ()),
        ("check", REQUIRING, ()),
        ("advise", drained_star(), ()),
        ("cost", drained_star(), ()),
        ("cost", VARIANTS, ()),
        ("design", REQUIRING, ()),
    ],
    ids=["simulate", "simulate-failures", "compare", "check", "advise", "cost", "cost-variants", "design"],
)
def test_each_command_answers_the_document_of_its_cli_json(
    served: Served,
    cli: Invoke,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    text: str,
    args: tuple[str, ...],
) -> None:
    """POST /api/COMMAND with the YAML answers what `hvnet COMMAND FILE --json` writes: the same
    functions build both, so the two documents are equal (but for wall-clock times)."""
    monkeypatch.chdir(tmp_path)  # the CLI names the file as given: cluster.yaml, as the API was told
    (tmp_path / "cluster.yaml").write_text(text)
    answer = served.client.post(f"/api/{command}?name=cluster.yaml", content=text, headers=YAML)
    assert answer.status_code == 200, answer.text
    ran = cli(command, "cluster.yaml", "--json", "cli.json", *args)
    assert ran.exit_code in (0, 1), ran.output  # 1: a finding, a failing requirement
    assert _stable(answer.json()) == _stable(json.loads((tmp_path / "cli.json").read_text()))


def test_a_scenario_with_problems_answers_422_with_the_cli_lines(served: Served, cli: Invoke, tmp_path: Path) -> None:
    """The problems are the lines the CLI prints on standard error, file:line: field: message, each
    one item of `problems`; `detail` is the first."""
    text = drained_star().replace("speed: 10Gbps", "speed: 10Gbs", 1)
    (tmp_path / "cluster.yaml").write_text(text)
    answer = served.client.post("/api/simulate?name=cluster.yaml", content=text, headers=YAML)
    assert answer.status_code == 422
    printed = cli("simulate", tmp_path / "cluster.yaml").stderr.splitlines()
    assert answer.json()["problems"] == [
        line.replace(str(tmp_path / "cluster.yaml"), "cluster.yaml") for line in printed
    ]
    assert answer.json()["problems"][0].startswith("cluster.yaml:6: hosts[0].nics[0].speed: '10Gbs' is not a bit rate")
    assert answer.json()["kind"] == "scenario"


def test_a_scenario_that_is_not_utf8_answers_422(served: Served) -> None:
    answer = served.client.post("/api/simulate?name=a.yaml", content=b"name: \xff\n", headers=YAML)
    assert answer.status_code == 422
    assert answer.json()["problems"] == ["a.yaml:1: the file is not UTF-8 text (byte 0xff); save it as UTF-8"]


def test_nothing_to_check_is_bad_input_as_in_the_cli(served: Served) -> None:
    """hvnet check of a scenario without requirements exits 2 with one line; the API answers 422 with it."""
    answer = served.client.post("/api/check", content=drained_star(), headers=YAML)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("nothing to check: the scenario states no requirements")


def test_measurement_upload_answers_the_records_of_import_measurement(
    served: Served, cli: Invoke, tmp_path: Path
) -> None:
    """Uploaded files are parsed as `hvnet import measurement --json` parses them, named as uploaded."""
    sample = SAMPLES / "ntttcp_windows_c9_set_receiver.txt"
    files = [("files", (sample.name, sample.read_bytes(), "text/plain"))]
    answer = served.client.post("/api/import/measurement", files=files)
    assert answer.status_code == 200, answer.text
    local = tmp_path / sample.name
    local.write_bytes(sample.read_bytes())
    expected = json.loads(cli("import", "measurement", local, "--json", "-").stdout)
    assert answer.json() == json.loads(json.dumps(expected).replace(str(local), sample.name))


def test_an_upload_that_is_no_measurement_answers_422_naming_the_file(served: Served) -> None:
    files = [("files", ("notes.txt", b"hello\n", "text/plain"))]
    answer = served.client.post("/api/import/measurement", files=files)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("notes.txt:1: not a measurement format hvnet knows")


def test_an_upload_name_cannot_leave_the_scratch_folder(served: Served) -> None:
    """A file uploaded as ../../x is read as x: its name's last part only."""
    sample = SAMPLES / "ntttcp_windows_c9_set_receiver.txt"
    files = [("files", ("../../../tmp/evil.txt", sample.read_bytes(), "text/plain"))]
    answer = served.client.post("/api/import/measurement", files=files)
    assert answer.status_code == 200
    assert answer.json()["measurements"][0]["file"] == "evil.txt"


def test_uploads_are_kept_only_under_the_served_folder_and_only_for_the_run(
    serve: Callable[..., Served], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's rule: uploads are never stored outside DIR. The system's temporary folder is made
    unwritable-by-mistake here (pointed at a path that does not exist): the run still works, its
    files having lived in a hidden folder of DIR that is gone when the run ends."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "no-such-folder"))
    served = serve()
    sample = SAMPLES / "ntttcp_windows_c9_set_receiver.txt"
    files = [("files", (sample.name, sample.read_bytes(), "text/plain"))]
    answer = served.client.post("/api/import/measurement", files=files)
    assert answer.status_code == 200, answer.text
    deadline = time.monotonic() + 10  # the job's thread removes it just after the answer
    while list(tmp_path.glob(".hvnet-run-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(tmp_path.glob(".hvnet-run-*")), "a run's scratch folder outlived it"


def test_explain_answers_its_cli_document(served: Served, cli: Invoke) -> None:
    scenario, sample = SCENARIOS / "two-vms-2x10g.yaml", SAMPLES / "ntttcp_windows_receive_cores_receiver.txt"
    files = [
        ("scenario", (scenario.name, scenario.read_bytes(), "application/yaml")),
        ("measurements", (sample.name, sample.read_bytes(), "text/plain")),
    ]
    answer = served.client.post("/api/explain", files=files, data={"from": "vm1", "to": "vm2"})
    assert answer.status_code == 200, answer.text
    expected = json.loads(cli("explain", scenario, sample, "--from", "vm1", "--to", "vm2", "--json", "-").stdout)
    named = json.dumps(expected).replace(str(sample), sample.name).replace(str(scenario), scenario.name)
    assert answer.json() == json.loads(named)


def test_host_dumps_become_a_scenario(served: Served, cli: Invoke) -> None:
    """The dumps of collect.ps1 answer the YAML `hvnet import config` writes, and what it assumed."""
    dumps = [DUMPS / "lbfo_dynamic_hv1.json", DUMPS / "lbfo_dynamic_hv2.json"]
    files = [("files", (d.name, d.read_bytes(), "application/json")) for d in dumps]
    answer = served.client.post("/api/import/config", files=files)
    assert answer.status_code == 200, answer.text
    assert answer.json()["yaml"] == cli("import", "config", *dumps).stdout
    assert answer.json()["assumptions"]


def test_validate_gives_every_problem_with_its_line(served: Served) -> None:
    text = drained_star().replace("  nics:", "  nicss:", 1)
    answer = served.client.post("/api/validate?name=lab/star.yaml", content=text, headers=YAML)
    assert answer.status_code == 200
    problems = answer.json()["problems"]
    assert {"line": 5, "field": "hosts[0].nicss"}.items() <= problems[1].items()
    assert problems[1]["text"].startswith("lab/star.yaml:5: hosts[0].nicss: unknown field; allowed: name, cpu")
    assert served.client.post("/api/validate", content=drained_star(), headers=YAML).json() == {"problems": []}


def test_validate_checks_variants_too(served: Served) -> None:
    """A file with variants: is checked as compare loads it: a value that fails, on its axis's line."""
    text = drained_star() + 'variants:\n  speed: {set: "hosts[*].nics[*].speed", values: [10Gbps, fast]}\n'
    problems = served.client.post("/api/validate?name=v.yaml", content=text, headers=YAML).json()["problems"]
    assert len(problems) == 1
    assert problems[0]["text"].startswith("v.yaml:")
    assert "fast" in problems[0]["text"]


def test_topology_answers_what_hvnet_topology_prints(served: Served, cli: Invoke) -> None:
    ask = {"kind": "leaf-spine", "hosts": 4, "nic": "25Gbps", "team": "set", "vms": 2, "drain": "hv1"}
    answer = served.client.post("/api/topology", json=ask)
    printed = cli(
        "topology", "leaf-spine", "--hosts", "4", "--nic", "25Gbps", "--team", "set", "--vms", "2", "--drain", "hv1"
    )
    assert answer.status_code == 200
    assert answer.json()["yaml"] == printed.stdout


def test_topology_names_a_bad_option(served: Served) -> None:
    answer = served.client.post("/api/topology", json={"team": "nope"})
    assert answer.status_code == 422
    assert answer.json()["detail"] == "team: 'nope' is not one of lbfo, set"


def test_the_schema_is_hvnet_schema(served: Served, cli: Invoke) -> None:
    assert served.client.get("/api/schema").json() == json.loads(cli("schema").stdout)


# --- the served folder --------------------------------------------------------------------------


def test_the_folder_lists_its_scenarios(served: Served) -> None:
    listed = served.client.get("/api/files").json()
    assert {"failover.yaml", "star.yaml"} <= set(listed["files"])
    opened = served.client.get("/api/files/star.yaml").json()
    assert opened["text"] == drained_star()
    assert len(opened["version"]) == 16


@pytest.mark.parametrize(
    "path",
    [
        "%2E%2E/outside.yaml",
        "lab/%2E%2E/%2E%2E/outside.yaml",
        "%2Fetc%2Fpasswd.yaml",
        ".hidden.yaml",
        "notes.txt",
        "link/inside.yaml",
        "linked.yaml",
    ],
)
def test_a_path_leaving_the_folder_is_refused(serve: Callable[..., Served], tmp_path: Path, path: str) -> None:
    """'..', an absolute path, a hidden file, a file that is no scenario and any symbolic link are refused
    (403), for reading and for writing, and nothing is written outside the folder."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "inside.yaml").write_text("name: secret\n")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    (tmp_path / "linked.yaml").symlink_to(outside / "inside.yaml")
    server = serve()
    assert server.client.get(f"/api/files/{path}").status_code in (403, 404)
    written = server.client.put(f"/api/files/{path}?force=true", content="name: x\n", headers=YAML)
    assert written.status_code in (403, 404), written.text
    assert (outside / "inside.yaml").read_text() == "name: secret\n"
    assert not (tmp_path.parent / "outside.yaml").exists()


def test_saving_never_overwrites_unasked(serve: Callable[..., Served], tmp_path: Path) -> None:
    """A new file is written; the same name again is refused (409) unless forced; an opened file is
    saved over at the version it was opened at, and refused once someone else changed it."""
    server = serve()
    first = server.client.put("/api/files/lab/new.yaml", content="name: one\n", headers=YAML)
    assert first.status_code == 200
    assert (tmp_path / "lab" / "new.yaml").read_text() == "name: one\n"
    again = server.client.put("/api/files/lab/new.yaml", content="name: two\n", headers=YAML)
    assert again.status_code == 409
    assert again.json()["detail"] == "lab/new.yaml: exists; not overwritten (confirm to replace it)"
    version = first.json()["version"]
    saved = server.client.put(f"/api/files/lab/new.yaml?version={version}", content="name: two\n", headers=YAML)
    assert saved.status_code == 200
    (tmp_path / "lab" / "new.yaml").write_text("name: edited elsewhere\n")
    stale = server.client.put(f"/api/files/lab/new.yaml?version={saved.json()['version']}", content="x\n", headers=YAML)
    assert stale.status_code == 409
    assert (tmp_path / "lab" / "new.yaml").read_text() == "name: edited elsewhere\n"
    forced = server.client.put("/api/files/lab/new.yaml?force=true", content="name: three\n", headers=YAML)
    assert forced.status_code == 200
    assert (tmp_path / "lab" / "new.yaml").read_text() == "name: three\n"
