"""Measured beside predicted: every figure the file gives, and each difference named with its size (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hvnet.explain.evidence import Figure, differences, main_difference, spread_pct
from tests.explain.cases import LACP_JUMBO, explained, ntttcp_receiver, worked_example
from tests.explain.test_explain import pdh_log


def test_the_worked_example_compares_cycles_per_byte_cpu_threads_and_retransmits() -> None:
    """The receiver's file gives 4.810 cycles/byte, 75.16 % CPU, 8 threads of 652.5-829.4 Mbps and 1,203
    retransmits; the twin predicts 3.150 cycles/byte, 64.47 %, 982.5 Mbps for every thread and no
    retransmit. Each is a figure with its band, and all but the frame are outside it."""
    figures = {f.name: f for f in worked_example().figures}
    cycles = figures["cycles/byte"]
    assert (cycles.measured, round(cycles.predicted, 3)) == (4.81, 3.15)
    assert cycles.gap_pct == pytest.approx(52.7, abs=0.05) and not cycles.within
    assert figures["CPU"].gap_pct == pytest.approx(16.6, abs=0.05) and not figures["CPU"].within
    retransmits = figures["retransmits"]
    assert (retransmits.measured, retransmits.predicted, retransmits.within) == (1203, 0, False)
    assert retransmits.gap_pct is None  # no per cent of nothing
    spread = figures["thread spread"]
    assert spread.measured == pytest.approx(23.58, abs=0.01) and spread.predicted == 0.0 and not spread.within
    assert figures["average frame"].within


def test_the_main_difference_is_the_cycles_per_byte() -> None:
    """Of the differences that are not the throughput restated, the cycles per byte (+52.7 %) is the
    largest (CPU: +16.6 %); the threads, their spread and the throughput are differences, not a cause."""
    result = worked_example()
    assert result.main_difference == "cycles/byte"
    assert "The main difference is the cycles per byte: 4.810 measured against 3.150 predicted (+52.7 %)." in (
        result.verdict
    )


def test_each_difference_is_named_with_its_size_largest_first() -> None:
    """The lines an engineer reads: cycles/byte, then CPU, then the threads and their spread, then the
    retransmits with their rate (1,203 over 15.002 s: 80 a second) and share of the 7,706,507 packets."""
    assert worked_example().evidence == [
        "cycles/byte: 4.810 measured against 3.150 predicted (+52.7 %)",
        "CPU: 75.16 % measured against 64.47 % predicted (+16.6 %)",
        "threads: 652.5 Mbps to 829.4 Mbps, a spread of 23.6 % of their mean, against 982.5 Mbps each predicted",
        "retransmits: 1,203 (80 a second; 1 in 6,406 of the packets received); the twin predicts none: it "
        "models no loss",
    ]


def test_a_file_without_retransmits_or_cpu_compares_what_it_has(tmp_path: Path) -> None:
    """A file that prints no retransmit, CPU or cycles/byte line gets no such figure (nothing is assumed)."""
    run = ntttcp_receiver(tmp_path / "run.txt", 8, 1120.0)
    (result,) = explained(LACP_JUMBO, run).tests
    names = [f.name for f in result.figures]
    assert names == ["throughput", "slowest thread", "fastest thread", "thread spread", "average frame"]


def test_a_counter_log_series_far_from_the_simulation_is_a_difference(tmp_path: Path) -> None:
    """A typeperf log on hv1 says nic1 sent 4.8 Gbps during the 1-thread test; in the simulation the one
    connection fills that member's 10 Gbps line (jumbo frames): -52 % at p90, listed with the test's
    differences, named by host, NIC, direction and file."""
    run = ntttcp_receiver(tmp_path / "run.txt", 1, 572.0)
    (result,) = explained(LACP_JUMBO, run, pdh_log(tmp_path / "hv1.csv", 16, 600e6)).tests
    (line,) = [e for e in result.evidence if e.startswith("hv1 nic1 send")]
    assert (
        line == f"hv1 nic1 send ({tmp_path / 'hv1.csv'}): p90 4.80 Gbps measured against 10.00 Gbps simulated (-52.0 %)"
    )


def test_spread_and_order_rules() -> None:
    """Spread is (fastest - slowest) over the mean; differences go largest per cent first, those
    without a per cent (a prediction of 0) after them; the main difference skips the restated ones."""
    assert spread_pct([1.0, 1.0]) == 0.0 and spread_pct([0.5, 1.5]) == 100.0 and spread_pct([3.0]) == 0.0
    found = [
        Figure("throughput", "bits/s", 5.0, 10.0, 9.0, 11.0),
        Figure("retransmits", "count", 3.0, 0.0, 0.0, 0.0),
        Figure("CPU", "percent", 12.0, 10.0, 8.5, 11.5),
        Figure("average frame", "bytes", 1460.0, 1460.0, 1241.0, 1679.0),
    ]
    assert [f.name for f in differences(found)] == ["throughput", "CPU", "retransmits"]
    main = main_difference(found)
    assert main is not None and main.name == "CPU"
