"""`hvnet demo`: the calibration testbed drained over each transport and three team designs.

tests/golden/demo.txt is what the demo prints in a 100-column terminal, with
the report's folder replaced by `<cwd>`. The report is checked in a browser by
tests/report/test_browser.py; here, that it is written, where, and that the
demo never overwrites a file it did not write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet.compare import Run
from hvnet.demo import DESIGNS, is_hvnet_page, run_demo

Invoke = Callable[..., Result]
CheckGolden = Callable[[str, str], None]


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return run_demo()


def test_the_demo_prints_the_comparison_and_writes_its_report(
    cli: Invoke, golden: CheckGolden, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("demo")
    assert result.exit_code == 0, result.output
    report = tmp_path / "hvnet-demo.html"
    assert is_hvnet_page(report) and "Comparison of 11 variants" in report.read_text()
    assert f"report written to {report}" in result.stdout, "it says where"
    text = "".join(line.rstrip() + "\n" for line in result.stdout.replace(str(tmp_path), "<cwd>").splitlines())
    golden("demo.txt", text)


def test_the_demo_replaces_its_own_report_and_keeps_any_other_file(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "hvnet-demo.html"
    report.write_text("<html>my own page</html>")
    refused = cli("demo")
    assert refused.exit_code == 2 and "hvnet-demo.html: exists; not overwritten (use --force" in refused.stderr
    assert report.read_text() == "<html>my own page</html>"
    assert cli("demo", "--report", "elsewhere.html").exit_code == 0 and is_hvnet_page(tmp_path / "elsewhere.html")
    assert cli("demo", "--force").exit_code == 0 and is_hvnet_page(report)
    assert cli("demo").exit_code == 0, "a previous demo's report is the demo's to replace"


def test_every_design_drains_and_the_transports_are_those_each_design_supports(runs: list[Run]) -> None:
    """Five design files: TCP/IP, Compression and SMB on each design with RDMA off, SMB Direct with RDMA on."""
    options = {file: [run.values["option"] for run in runs if run.file == file] for file in DESIGNS}
    assert options == {
        "lbfo.yaml": ["tcp_ip", "compression", "smb"],
        "set.yaml": ["tcp_ip", "compression", "smb"],
        "set-rdma.yaml": ["smb"],
        "no-team.yaml": ["tcp_ip", "compression", "smb"],
        "no-team-rdma.yaml": ["smb"],
    }
    transports = {run.label: {m.option for m in run.results.migrations} for run in runs}
    assert transports["set-rdma.yaml: option=smb"] == transports["no-team-rdma.yaml: option=smb"] == {"smb_direct"}
    assert transports["lbfo.yaml: option=smb"] == {"smb"}
    for run in runs:
        assert len(run.results.migrations) == 7 and run.metrics.stalled == 0, run.label
        assert all(m.end_s is not None and m.blackout_s for m in run.results.migrations), run.label


def _peak_send_gbps(run: Run, host: str) -> dict[str, float]:
    return {a.nic: a.send_bps.peak() / 1e9 for a in run.results.adapters if a.host == host}


def test_what_the_published_graphs_show(runs: list[Run]) -> None:
    """calibration.md's Task Manager graphs: TCP/IP on one member, SMB Multichannel on both NICs."""
    by_label = {run.label: run for run in runs}
    tcp = _peak_send_gbps(by_label["set.yaml: option=tcp_ip"], "hv1")
    assert tcp["nic1"] > 9 and tcp["nic2"] == 0, "the host vNIC's port, and so every TCP/IP stream, on one member"
    smb = _peak_send_gbps(by_label["no-team.yaml: option=smb"], "hv1")
    assert smb["nic1"] > 9 and smb["nic2"] > 9, "SMB Multichannel sends on both NICs"
    # SMB drains sooner than one TCP stream per VM, and SMB Direct spends the least CPU.
    ends = {run.label: run.metrics.end_s or 0.0 for run in runs}
    assert ends["no-team.yaml: option=smb"] < 0.6 * ends["no-team.yaml: option=tcp_ip"]
    cheapest = min(run.metrics.cpu_core_s for run in runs)
    rdma = {run.label for run in runs if run.metrics.cpu_core_s == pytest.approx(cheapest, rel=1e-9)}
    assert rdma == {"set-rdma.yaml: option=smb", "no-team-rdma.yaml: option=smb"}


def test_smb_over_a_team_is_only_as_fast_as_the_member_it_arrives_on(runs: list[Run]) -> None:
    """One host vNIC: SET with Hyper-V port keeps SMB's four connections on its one member, and the
    switch-independent LBFO team receives everything on one member, so SMB drains no faster than
    TCP/IP there; SMB Direct over SET (one RDMA vNIC per member) uses both members like unteamed NICs."""
    ends = {run.label: run.metrics.end_s or 0.0 for run in runs}
    for design in ("set.yaml", "lbfo.yaml"):
        assert ends[f"{design}: option=smb"] == pytest.approx(ends[f"{design}: option=tcp_ip"], rel=0.02)
    assert ends["set-rdma.yaml: option=smb"] == pytest.approx(ends["no-team-rdma.yaml: option=smb"], rel=1e-6)
    lbfo = _peak_send_gbps(next(run for run in runs if run.label == "lbfo.yaml: option=smb"), "hv1")
    assert lbfo["nic1"] > 1 and lbfo["nic2"] > 1, "the dynamic team sends on both members"


def test_the_demos_report_opens_with_the_verdict(runs: list[Run]) -> None:
    from hvnet.report import render_comparison
    from hvnet.verdict import verdict

    html = render_comparison(runs)
    assert html.index('<section id="verdict">') < html.index('<section id="comparison">')
    judged = verdict(runs)
    assert judged.winner is not None and runs[judged.winner].label == "no-team.yaml: option=smb"
    assert "Bottlenecks: " in judged.text and "100 % for 89 % of the drain" in judged.text
