"""`hvnet serve` itself, and what its pages load: the command's options and what it prints, a CLI that
stays quick without the web stack, pages and /docs that load nothing from the network, and the
OpenAPI document that describes every command.
"""

from __future__ import annotations

import gzip
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet.web.pages import static_files
from hvnet.web.settings import Settings
from tests.web.conftest import Served

Invoke = Callable[..., Result]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[Settings]:
    """`hvnet serve` runs up to the server, which is not started: its settings are kept instead."""
    kept: list[Settings] = []
    monkeypatch.setattr("hvnet.web.server.serve", kept.append)
    return kept


def test_serve_prints_its_address_and_on_loopback_no_token(
    cli: Invoke, tmp_path: Path, started: list[Settings]
) -> None:
    result = cli("serve", "--dir", tmp_path, "--port", "8799")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"hvnet serves {tmp_path.resolve()} at http://127.0.0.1:8799/"]
    assert started[0].token is None and started[0].root == tmp_path.resolve()


def test_serve_off_loopback_generates_a_token_and_prints_it(
    cli: Invoke, tmp_path: Path, started: list[Settings]
) -> None:
    result = cli("serve", "--dir", tmp_path, "--host", "0.0.0.0")
    assert result.exit_code == 0, result.output
    token = started[0].token
    assert token is not None
    assert f"token: {token}" in result.stdout.splitlines()
    assert token not in result.stdout.splitlines()[0]  # the address holds no token


def test_serve_does_not_print_a_token_it_was_given(cli: Invoke, tmp_path: Path, started: list[Settings]) -> None:
    result = cli("serve", "--dir", tmp_path, "--host", "0.0.0.0", "--token", "given-secret-token")
    assert started[0].token == "given-secret-token"
    assert "given-secret-token" not in result.stdout


def test_serve_takes_its_limits(cli: Invoke, tmp_path: Path, started: list[Settings]) -> None:
    args = ("--max-body", "1MiB", "--workers", "3", "--queue", "2", "--time-limit", "90s")
    assert cli("serve", "--dir", tmp_path, *args).exit_code == 0
    settings = started[0]
    assert (settings.max_body_bytes, settings.workers, settings.queue, settings.time_limit_s) == (2**20, 3, 2, 90.0)


def test_serve_refuses_bad_options_in_one_line(cli: Invoke, tmp_path: Path, started: list[Settings]) -> None:
    missing = cli("serve", "--dir", tmp_path / "nope")
    assert missing.exit_code == 2 and missing.stderr.strip().endswith(
        "not a folder; --dir names the folder of scenarios"
    )
    size = cli("serve", "--dir", tmp_path, "--max-body", "10Gbs")
    assert size.exit_code == 2 and size.stderr.startswith("--max-body: '10Gbs' is not a size")
    short = cli("serve", "--dir", tmp_path, "--host", "0.0.0.0", "--token", "short")
    assert short.exit_code == 2 and short.stderr.strip() == "--token: a token must have at least 8 characters"
    assert not started


def test_a_port_in_use_is_said_in_one_line_before_anything_is_served(
    cli: Invoke, tmp_path: Path, started: list[Settings]
) -> None:
    """Not the server's own log after "hvnet serves ... at" (and its exit code 3)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("serve", "--dir", tmp_path, "--port", str(port))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().startswith(f"--port: 127.0.0.1:{port} cannot be listened on")
    assert not started


def test_the_cli_does_not_load_the_web_stack() -> None:
    """`hvnet --help` stays quick: FastAPI and uvicorn are imported only when `hvnet serve` runs."""
    code = "import sys, hvnet.cli; print(sorted(m for m in ('fastapi', 'uvicorn', 'hvnet.web') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


# --- offline pages ------------------------------------------------------------------------------


def _assets(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)


@pytest.mark.parametrize("page", ["/", "/docs"])
def test_a_page_loads_only_files_of_the_package(served: Served, page: str) -> None:
    """No CDN: every script, style sheet and icon of the app and of /docs is served by hvnet itself."""
    html = served.client.get(page).text
    assert "://" not in re.sub(r'href="https://[^"]*" target', "", html)
    for asset in _assets(html):
        assert asset.startswith("/"), asset
        answer = served.client.get(asset)
        assert answer.status_code == 200, asset
        assert len(answer.content) > 0


def test_vendored_files_are_sent_gzipped_or_unpacked(served: Served) -> None:
    packed = served.client.get("/static/vendor/editor.js", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    plain = served.client.get("/static/vendor/editor.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert b"HvnetEditor" in plain.content
    assert served.client.get("/static/../pages.py").status_code == 404
    assert served.client.get("/static/vendor/README.md").status_code == 404


def test_the_vendored_bundles_stay_small_and_carry_their_licences() -> None:
    files = static_files()
    assert len(files["vendor/editor.js"][0]) < 300_000  # gzipped: CodeMirror and the schema's completion
    assert len(gzip.decompress(files["vendor/editor.js"][0])) < 1_000_000
    assert len(files["vendor/swagger-ui/swagger-ui-bundle.js"][0]) < 600_000
    licences = files["vendor/LICENSES-editor.txt"][0].decode()
    for package in ("@codemirror/view", "codemirror-json-schema", "yaml", "json-schema-library"):
        assert f"\n{package} " in licences
    assert b"Apache License" in files["vendor/swagger-ui/LICENSE-swagger-ui.txt"][0]


def test_the_openapi_document_describes_every_command(served: Served) -> None:
    document = served.client.get("/openapi.json").json()
    for command in ("simulate", "check", "advise", "cost", "design", "compare"):
        operation = document["paths"][f"/api/{command}"]["post"]
        assert "application/yaml" in operation["requestBody"]["content"]
        assert {"422", "429", "504"} <= set(operation["responses"])
    for path in ("/api/explain", "/api/import/measurement", "/api/import/config", "/api/jobs/{job_id}"):
        assert path in document["paths"]
    assert "multipart/form-data" in document["paths"]["/api/explain"]["post"]["requestBody"]["content"]
