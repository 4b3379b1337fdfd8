"""The numbers hvnet gives, pinned: a refactor must not change one of them.

Recorded before the re-layering of issue 11 and kept since: the `--json` of
every built-in example (`hvnet simulate`), of the demo's comparison, of
`hvnet validate`, of a predicted ntttcp run and a traffic matrix, and of
generated scenarios that cover every team mode and algorithm with failures
(NIC, cable, switch, silent port) and every live-migration transport. A run
that gives the same document again passes; numbers may differ by 1e-12
relative (floating-point sums in another order), nothing else may; a
change-point series is compared as the step function it is (a point that
only moves the value in its last digits may come or go).

The engine's wall-clock time (`wall_s`) is the one field left out: it is a
measurement of this machine, not an answer. `pytest --update-golden`
rewrites the files (read the diff before committing it: it is a change in
what hvnet answers).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from hvnet import parse_scenario, simulate
from hvnet.compare import comparison_document
from hvnet.demo import run_demo
from hvnet.flows import read_flows, run_flows
from hvnet.ntttcp import run_ntttcp
from hvnet.validate import run_validation

OUTPUTS = Path(__file__).parent / "golden" / "outputs"
EXAMPLES = Path(str(resources.files("hvnet") / "examples"))
#: Relative difference allowed between a recorded number and today's.
RELATIVE = 1e-12
#: Fields that measure the machine, not the network.
UNSTABLE = {"wall_s"}


def _strip(document: Any) -> Any:
    if isinstance(document, dict):
        return {k: _strip(v) for k, v in document.items() if k not in UNSTABLE}
    if isinstance(document, list):
        return [_strip(v) for v in document]
    return document


def _differences(expected: Any, actual: Any, where: str = "$") -> list[str]:
    """Where `actual` differs from `expected`: numbers beyond RELATIVE, anything else at all."""
    if (
        isinstance(expected, bool)
        or isinstance(actual, bool)
        or not (isinstance(expected, (int, float)) and isinstance(actual, (int, float)))
    ) and type(expected) is not type(actual):
        return [f"{where}: {expected!r} became {actual!r}"]
    if isinstance(expected, dict) and {"t_s", "values"} <= expected.keys() and {"t_s", "values"} <= actual.keys():
        return _series_differences(expected, actual, where)
    if isinstance(expected, dict):
        found = [f"{where}: key {k!r} is gone" for k in expected if k not in actual]
        found += [f"{where}: key {k!r} is new" for k in actual if k not in expected]
        for k in expected:
            if k in actual:
                found += _differences(expected[k], actual[k], f"{where}.{k}")
        return found
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(expected)} items became {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in _differences(e, a, f"{where}[{i}]")]
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        # A few ulps of 1 absolute: a share computed as 1 - x may come out -2e-16 or 0.
        if not math.isclose(expected, actual, rel_tol=RELATIVE, abs_tol=1e-15):
            return [f"{where}: {expected!r} became {actual!r}"]
        return []
    return [] if expected == actual else [f"{where}: {expected!r} became {actual!r}"]


def _steps(series: dict[str, Any]) -> list[tuple[float, float]]:
    """A change-point series (docs/output.md) without the points that move its value by no more
    than RELATIVE of its largest value: rounding in the last digits, which adds or removes a
    point (1e10 then 9999999999.999998), is not a change in the answer."""
    scale = max((abs(v) for v in series["values"]), default=0.0)
    kept: list[tuple[float, float]] = []
    for t, v in zip(series["t_s"], series["values"]):
        if kept and abs(v - kept[-1][1]) <= RELATIVE * scale:
            continue
        kept.append((t, v))
    return kept


def _series_differences(expected: dict[str, Any], actual: dict[str, Any], where: str) -> list[str]:
    """Two change-point series as the step functions they are (and their other keys as usual)."""
    found = _differences(
        {k: v for k, v in expected.items() if k not in ("t_s", "values")},
        {k: v for k, v in actual.items() if k not in ("t_s", "values")},
        where,
    )
    old, new = _steps(expected), _steps(actual)
    if len(old) != len(new):
        return [*found, f"{where}: {len(old)} steps became {len(new)}"]
    scale = max((abs(v) for _, v in old + new), default=0.0)
    for i, ((t0, v0), (t1, v1)) in enumerate(zip(old, new)):
        if not math.isclose(t0, t1, rel_tol=RELATIVE, abs_tol=1e-12):
            found.append(f"{where}: step {i} at {t0!r} s moved to {t1!r} s")
        if abs(v0 - v1) > RELATIVE * max(scale, 1e-300):
            found.append(f"{where}: step {i} (at {t0!r} s) {v0!r} became {v1!r}")
    return found


def check(request: pytest.FixtureRequest, name: str, document: Any) -> None:
    """Compares `document` with golden/outputs/NAME.json, or rewrites it with --update-golden."""
    path = OUTPUTS / f"{name}.json"
    actual = json.loads(json.dumps(_strip(document)))
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
        return
    if not path.exists():
        pytest.fail(f"{path} does not exist; create it with: pytest --update-golden", pytrace=False)
    found = _differences(json.loads(path.read_text()), actual)
    if found:
        shown = "\n".join(found[:20]) + (f"\n... and {len(found) - 20} more" if len(found) > 20 else "")
        pytest.fail(f"{name}: hvnet's answer changed ({len(found)} differences):\n{shown}", pytrace=False)


# --- built-in examples and commands -------------------------------------------------------------

EXAMPLE_FILES = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=str)
def test_every_example_simulates_as_recorded(request: pytest.FixtureRequest, example: Path) -> None:
    path = EXAMPLES / example
    results = simulate(parse_scenario(path.read_text(), str(path)), filename=str(path))
    check(request, "simulate-" + str(example.with_suffix("")).replace("/", "-"), results.model_dump(mode="json"))


def test_the_demo_compares_as_recorded(request: pytest.FixtureRequest) -> None:
    check(request, "demo", comparison_document(run_demo()))


def test_validate_predicts_as_recorded(request: pytest.FixtureRequest) -> None:
    check(request, "validate", [c.to_json() for c in run_validation()])


def test_a_predicted_ntttcp_run_is_as_recorded(request: pytest.FixtureRequest) -> None:
    path = EXAMPLES / "validation" / "c9-set.yaml"
    scenario = parse_scenario(path.read_text(), str(path))
    vms = [vm.name for vm in scenario.vms]
    run = run_ntttcp(scenario, vms[0], vms[1], threads=8, seconds=15.0)
    check(request, "ntttcp-c9-set", dataclasses.asdict(run))


def test_a_traffic_matrix_runs_as_recorded(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    scenario = parse_scenario(_star(4), "star.yaml")
    matrix = tmp_path / "matrix.csv"
    rows = [
        f"hv{a},hv{b},{((a * 7 + b * 3) % 5 + 1) * 10**9},{(a + b) % 3}"
        for a in range(1, 5)
        for b in range(1, 5)
        if a != b
    ]
    matrix.write_text("src,dst,bytes,start_s\n" + "\n".join(rows) + "\n")
    check(request, "flows-star", run_flows(scenario, read_flows(matrix, scenario), matrix).to_json())


def _star(hosts: int) -> str:
    lines = ["name: star", "hosts:"]
    lines += [f"  - {{name: hv{i}, nics: [{{name: nic1, speed: 10Gbps}}]}}" for i in range(1, hosts + 1)]
    lines += ["switches: [{name: sw, ports: 48, port_speed: 10Gbps}]", "cables:"]
    lines += [f"  - {{a: hv{i}/nic1, b: sw/{i}}}" for i in range(1, hosts + 1)]
    return "\n".join(lines) + "\n"


# --- generated designs: every team mode and algorithm, with failures ------------------------------

TEAMS = [
    ("lbfo", mode, lb)
    for mode in ("switch_independent", "static", "lacp")
    for lb in ("transport_ports", "ip_addresses", "mac_addresses", "hyperv_port", "dynamic")
] + [("set", "switch_independent", lb) for lb in ("hyperv_port", "dynamic")]


def _team_yaml(kind: str, mode: str, balancing: str) -> str:
    if balancing in ("transport_ports", "ip_addresses", "mac_addresses"):
        lb = f"load_balancing: address_hash, address_hash: {balancing}"
    else:
        lb = f"load_balancing: {balancing}"
    host = """
  - name: {h}
    cpu: {{sockets: 1, cores_per_socket: 8, ghz: 2.6}}
    nics:
      - {{name: nic1, speed: 10Gbps, mtu: 9000}}
      - {{name: nic2, speed: 10Gbps, mtu: 9000}}
      - {{name: nic3, speed: 10Gbps, mtu: 9000}}
    teams:
      - {{name: team1, kind: {kind}, members: [nic1, nic2, nic3], mode: {mode}, {lb}}}
    vswitches:
      - {{name: vSwitch, uplink: team1}}"""
    hosts = "".join(host.format(h=h, kind=kind, mode=mode, lb=lb) for h in ("hv1", "hv2"))
    return f"""name: {kind} {mode} {balancing}
hosts:{hosts}
switches: [{{name: sw, ports: 48, port_speed: 10Gbps}}]
cables:
  - {{a: hv1/nic1, b: sw/1}}
  - {{a: hv1/nic2, b: sw/2}}
  - {{a: hv1/nic3, b: sw/3}}
  - {{a: hv2/nic1, b: sw/4}}
  - {{a: hv2/nic2, b: sw/5}}
  - {{a: hv2/nic3, b: sw/6}}
vms:
  - {{name: vm1, host: hv1, vcpus: 4, memory: 8GiB, vswitch: vSwitch, mtu: 9000}}
  - {{name: vm2, host: hv1, vcpus: 2, memory: 4GiB, vswitch: vSwitch, mtu: 9000}}
  - {{name: vm3, host: hv2, vcpus: 4, memory: 8GiB, vswitch: vSwitch, mtu: 9000}}
traffic:
  - {{name: out, from: hv1, to: hv2, size: 6GB, connections: 4}}
  - {{name: in, from: hv2, to: hv1, size: 3GB, connections: 2}}
  - {{name: vms, from: vm1, to: vm3, size: 4GB, connections: 3}}
  - {{name: back, from: vm3, to: vm2, size: 2GB, start: 1s}}
events:
  - {{at: 1s, action: nic_down, target: hv1/nic1}}
  - {{at: 2s, action: port_blackhole, target: sw/5}}
  - {{at: 3s, action: nic_up, target: hv1/nic1}}
  - {{at: 4s, action: cable_down, target: hv2/nic3}}
  - {{at: 6s, action: port_restore, target: sw/5}}
  - {{at: 7s, action: cable_up, target: sw/6}}
  - {{at: 8s, action: migrate, target: vm2, to: hv2}}
"""


@pytest.mark.parametrize(("kind", "mode", "balancing"), TEAMS, ids=str)
def test_every_team_design_runs_as_recorded(
    request: pytest.FixtureRequest, kind: str, mode: str, balancing: str
) -> None:
    scenario = parse_scenario(_team_yaml(kind, mode, balancing), "team.yaml")
    check(request, f"team-{kind}-{mode}-{balancing}", simulate(scenario).model_dump(mode="json"))


LEAF_SPINE = """name: leaf-spine with a switch failure
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}]}
  - {name: hv3, nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}]}
  - {name: hv4, nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}]}
switches:
  - {name: leaf1, ports: 48, port_speed: 25Gbps}
  - {name: leaf2, ports: 48, port_speed: 25Gbps}
  - {name: spine1, ports: 32, port_speed: 40Gbps}
  - {name: spine2, ports: 32, port_speed: 40Gbps}
cables:
  - {a: hv1/nic1, b: leaf1/1}
  - {a: hv2/nic1, b: leaf1/2}
  - {a: hv3/nic1, b: leaf2/1}
  - {a: hv4/nic1, b: leaf2/2}
  - {a: hv1/nic2, b: leaf2/3}
  - {a: hv2/nic2, b: leaf2/4}
  - {a: hv3/nic2, b: leaf1/3}
  - {a: hv4/nic2, b: leaf1/4}
  - {a: leaf1/47, b: spine1/1, speed: 40Gbps}
  - {a: leaf1/48, b: spine2/1, speed: 40Gbps}
  - {a: leaf2/47, b: spine1/2, speed: 40Gbps}
  - {a: leaf2/48, b: spine2/2, speed: 40Gbps}
traffic:
  - {from: hv1, to: hv3, size: 20GB, connections: 4}
  - {from: hv2, to: hv4, size: 20GB, connections: 4}
  - {from: hv3, to: hv1, size: 10GB, connections: 2}
  - {from: hv4, to: hv2, size: 10GB, start: 2s}
events:
  - {at: 2s, action: switch_down, target: spine1}
  - {at: 5s, action: switch_up, target: spine1}
  - {at: 6s, action: cable_down, target: hv1/nic1}
"""


def test_a_leaf_spine_fabric_with_a_switch_failure_runs_as_recorded(request: pytest.FixtureRequest) -> None:
    check(
        request, "leaf-spine-failures", simulate(parse_scenario(LEAF_SPINE, "leaf-spine.yaml")).model_dump(mode="json")
    )


TRANSPORTS = ("tcp_ip", "compression", "smb", "smb_direct")


def _migration_yaml(transport: str) -> str:
    host = """
  - name: {h}
    cpu: {{sockets: 2, cores_per_socket: 8, ghz: 2.9}}
    memory: 256GiB
    nics:
      - {{name: nic1, speed: 25Gbps, mtu: 9000, rdma: true}}
      - {{name: nic2, speed: 25Gbps, mtu: 9000, rdma: true}}
      - {{name: mgmt, speed: 1Gbps}}
    vswitches:
      - {{name: vSwitch, uplink: mgmt}}
    live_migration: {{option: {t}, simultaneous: 2}}"""
    hosts = "".join(host.format(h=h, t=transport) for h in ("hv1", "hv2", "hv3"))
    vms = "\n".join(
        f"  - {{name: vm{i}, host: hv1, vcpus: 2, memory: {4 + 4 * (i % 3)}GiB, vswitch: vSwitch, cpu_load: 0.{i % 5}}}"
        for i in range(1, 7)
    )
    return f"""name: {transport}
hosts:{hosts}
switches: [{{name: sw, ports: 48, port_speed: 25Gbps}}]
cables:
  - {{a: hv1/nic1, b: sw/1}}
  - {{a: hv1/nic2, b: sw/2}}
  - {{a: hv2/nic1, b: sw/3}}
  - {{a: hv2/nic2, b: sw/4}}
  - {{a: hv3/nic1, b: sw/5}}
  - {{a: hv3/nic2, b: sw/6}}
  - {{a: hv1/mgmt, b: sw/7}}
  - {{a: hv2/mgmt, b: sw/8}}
  - {{a: hv3/mgmt, b: sw/9}}
vms:
{vms}
events:
  - {{at: 0s, action: drain, target: hv1}}
  - {{at: 3s, action: nic_down, target: hv2/nic2}}
  - {{at: 20s, action: nic_up, target: hv2/nic2}}
"""


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_transport_drains_as_recorded(request: pytest.FixtureRequest, transport: str) -> None:
    scenario = parse_scenario(_migration_yaml(transport), "drain.yaml")
    check(request, f"drain-{transport}", simulate(scenario).model_dump(mode="json"))


CASES: dict[str, Callable[..., None]] = {}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_migration_s_wire_peak_is_its_memory_peak_compressed(transport: str) -> None:
    """Issue 26: a migration's "peak" is memory's rate; what its NICs carried (`peak_wire_bps`) is
    that rate after compression: lower with Compression (here hv1's two 10 GbE links carry about
    half the memory rate), the same without (nothing on the way shrinks it), never above."""
    results = simulate(parse_scenario(_migration_yaml(transport), "drain.yaml"))
    for m in results.migrations:
        assert m.peak_wire_bps <= m.peak_bps * (1 + 1e-9)
        if transport == "compression":
            assert m.peak_wire_bps < 0.75 * m.peak_bps
        else:
            assert m.peak_wire_bps == pytest.approx(m.peak_bps)
