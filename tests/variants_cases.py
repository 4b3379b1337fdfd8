"""What the variants tests share (test_variants.py, test_compare.py).

OUTAGE, the small design whose metrics are worked out by hand in test_compare.py's docstring (one copy,
one NIC outage; axes speed and repair), FRAME, the line time of a payload byte, and the lines of a refused
command.
"""

from __future__ import annotations

from typer.testing import Result

FRAME = 1538 / 1460

OUTAGE = """
name: One copy, one outage
hosts:
  - {name: hv1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw}]
cables: [{a: hv1/nic1, b: sw/1}, {a: hv2/nic1, b: sw/2}]
traffic: [{name: copy, from: hv1, to: hv2, size: 12.5GB}]
events:
  - {at: 2s, action: nic_down, target: hv1/nic1}
  - {at: 5s, action: nic_up, target: hv1/nic1}
variants:
  speed: {set: "hosts[*].nics[nic1].speed", values: [1Gbps, 10Gbps]}
  repair: {set: "events[1].target", values: [hv1/nic1, hv2/nic1]}
"""


def bad_input(result: Result) -> list[str]:
    """Exit code 2, no traceback; the lines on stderr."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.stderr.splitlines()
