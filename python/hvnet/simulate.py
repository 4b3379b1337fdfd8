"""Runs a scenario: the network model, one call into the core, the results.

Each traffic entry opens `connections` TCP connections that split its size
evenly. Which NIC or team member each connection uses, failover when a
member fails, and dynamic rebalancing are decided in the Rust core (see
`network.py` and `crates/network/src/run.rs`); this module shapes what the
core reports into `Results`, with a warning for each NIC pair whose
full-size frames a switch drops (`frames.py`).
"""

from __future__ import annotations

from hvnet.errors import Problem, ScenarioError
from hvnet.fabric import Port
from hvnet.frames import path_warnings
from hvnet.model import Scenario
from hvnet.migration import migration_requests, migration_results
from hvnet.calibration import Calibration
from hvnet.network import ConnectionRequest, NetworkModel
from hvnet.operations import operation_results
from hvnet.results import AdapterSeries, ConnectionResult, CoreSeries, NicChoice, Results, TrafficResult, VcpuSeries
from hvnet.units import bits_per_s

__all__ = ["simulate"]


def simulate(
    scenario: Scenario,
    step_s: float = 1.0,
    filename: str | None = None,
    calibration: Calibration | None = None,
) -> Results:
    """Simulates the scenario; `step_s` is the resolution of the time series.

    Problems found while planning (a VM that fits nowhere, a path that is
    not cabled) raise ScenarioError naming `filename` (default: the file the
    scenario was loaded from)."""
    calibration = calibration or Calibration()
    filename = scenario.source if filename is None else filename
    model = NetworkModel(scenario, calibration)
    requests: list[ConnectionRequest] = []
    owner: list[int] = []
    for index, traffic in enumerate(scenario.traffic):
        for _ in range(traffic.connections):
            requests.append(ConnectionRequest(traffic.src, traffic.dst, traffic.size / traffic.connections, traffic.start))
            owner.append(index)
    unreachable = {owner[k]: why for k, why in model.unreachable(requests)}
    plan, migrations, refused = migration_requests(scenario, filename, calibration, model.fabric)
    problems = [Problem(filename, None, f"traffic[{i}]", why) for i, why in sorted(unreachable.items())] + refused
    if problems:
        raise ScenarioError(problems)
    run = model.run(requests, step_s, migrations)
    per_traffic: list[list[ConnectionResult]] = [[] for _ in scenario.traffic]
    for index, outcome in zip(owner, run.outcomes):
        per_traffic[index].append(
            ConnectionResult(
                end_s=outcome.end_s,
                blackholed_s=outcome.blackholed_s,
                stalled_since_s=outcome.stalled_since_s,
                nics=[NicChoice(at_s=t, out_nic=a, in_nic=b) for t, a, b in outcome.nics],
            )
        )
    series = run.series or []
    adapters = []
    for host in scenario.hosts:
        for nic in host.nics:
            port = Port(host.name, nic.name)
            send, receive = run.fabric.out_of.get(port), run.fabric.into.get(port)
            adapters.append(
                AdapterSeries(
                    host=host.name,
                    nic=nic.name,
                    speed_bps=nic.speed,
                    send_bps=[bits_per_s(x) for x in series[send.resource]] if send else [],
                    receive_bps=[bits_per_s(x) for x in series[receive.resource]] if receive else [],
                )
            )
    migrated = migration_results(scenario, plan, migrations, run, calibration)
    return Results(
        scenario=scenario.name,
        step_s=step_s,
        end_s=run.end_s,
        events=run.events,
        wall_s=run.wall_s,
        traffic=[TrafficResult.of(t, conns) for t, conns in zip(scenario.traffic, per_traffic)],
        adapters=adapters,
        cores=_cores(model, series),
        vcpus=_vcpus(model, series),
        migrations=migrated,
        operations=operation_results(plan, migrated),
        warnings=path_warnings(scenario, model.fabric, model.endpoints),
    )


def _busy(model: NetworkModel, series: list[list[float]], resource: int) -> list[float]:
    """A core's or vCPU's use per step as a share of its capacity."""
    capacity = model.fabric.capacities[resource]
    return [u / capacity for u in series[resource]] if series and capacity > 0 else []


def _cores(model: NetworkModel, series: list[list[float]]) -> list[CoreSeries]:
    if model.cpu is None:
        return []
    return [
        CoreSeries(host=host, core=k, busy=_busy(model, series, resource))
        for host, cores in model.cpu.cores.items()
        for k, resource in enumerate(cores)
    ]


def _vcpus(model: NetworkModel, series: list[list[float]]) -> list[VcpuSeries]:
    if model.cpu is None:
        return []
    return [
        VcpuSeries(vm=vm, vcpu=k, busy=_busy(model, series, resource))
        for vm, vcpus in model.cpu.vcpus.items()
        for k, resource in enumerate(vcpus)
    ]
