"""The core's report as `Results`: the one place a run is read back.

    simulate(scenario) = readback(run(lower(scenario, calibration)))

A run (`hvnet.run`) reports by index and in engine units; this module
names everything as the scenario does and gives each figure its unit
(`units`, the one place a rate crosses):
each traffic entry's connections, each NIC's send and receive over time
(bits/s), each core's and vCPU's share of its cycles (as `Series`: the
core's change points, exactly, never binned here), each migration's
record and each operation's window (a drain's, a rolling update's and each
of its nodes' part), from the migrations' end times.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hvnet.failures import failure_results, never_warnings
from hvnet.lower.fabric import Port
from hvnet.lower.migrations import MigrationRequest, MigrationRoute
from hvnet.lower.network import NetworkModel
from hvnet.lower.operations import Plan
from hvnet.model import Scenario
from hvnet.outcomes import ConnectionOutcome, MigrationOutcome, Outcomes, outcomes
from hvnet.results import (
    AdapterSeries,
    ConnectionResult,
    CoreSeries,
    CoreUtilisation,
    MigrationPass,
    MigrationResult,
    NicChoice,
    NicUtilisation,
    NodeResult,
    OperationResult,
    Results,
    TrafficResult,
    VcpuSeries,
)
from hvnet.run import NetworkRun
from hvnet.series import ROUNDING, Series
from hvnet.trusted import trusted
from hvnet.units import bits_per_s
from hvnet.utilisation import BUSY_SHARE, PERCENTILES, core_rows, figures, nic_rows, nic_scale, team_utilisation

__all__ = [
    "adapter_series",
    "core_series",
    "figured_adapters",
    "figured_cores",
    "migration_results",
    "operation_results",
    "readback",
    "traffic_results",
    "vcpu_series",
]


def readback(run: NetworkRun) -> Results:
    """The whole report as `Results` (`simulate`'s): traffic entries, adapters, cores, vCPUs,
    migrations, operations, failures and warnings."""
    lowered = run.lowered
    scenario, model = lowered.scenario, lowered.model
    named = outcomes(run)
    migrated = migration_results(lowered.plan, list(lowered.migrations), named)
    (adapters, nics), (cores, busy) = figured_adapters(scenario, run), figured_cores(model, run)
    return Results(
        scenario=scenario.name,
        end_s=run.end_s,
        events=run.events,
        wall_s=run.wall_s,
        traffic=traffic_results(scenario, list(lowered.owner), named.connections),
        adapters=adapters,
        cores=cores,
        vcpus=vcpu_series(model, run),
        utilisation=nics,
        teams_utilisation=team_utilisation(nics),
        cores_utilisation=busy,
        migrations=migrated,
        operations=operation_results(lowered.plan, migrated),
        warnings=[*lowered.warnings, *never_warnings(scenario, model, named, lowered.owner, migrated)],
        failures=failure_results(scenario, model, named, lowered.owner, migrated),
    )


def traffic_results(scenario: Scenario, owner: list[int], outcomes: Sequence[ConnectionOutcome]) -> list[TrafficResult]:
    """Each traffic entry with its connections (`owner[k]`: the entry of connection `k`)."""
    per_traffic: list[list[ConnectionResult]] = [[] for _ in scenario.traffic]
    sent = [0.0] * len(scenario.traffic)
    for index, outcome in zip(owner, outcomes):
        sent[index] += outcome.sent_bytes
        per_traffic[index].append(
            ConnectionResult(
                end_s=outcome.end_s,
                blackholed_s=outcome.blackholed_s,
                stalled_since_s=outcome.stalled_since_s,
                nics=[NicChoice(at_s=t, out_nic=a, in_nic=b) for t, a, b in outcome.nics],
                rerouted_s=outcome.rerouted_s,
            )
        )
    return [TrafficResult.of(t, conns, bytes_) for t, conns, bytes_ in zip(scenario.traffic, per_traffic, sent)]


def _scaled(run: NetworkRun, wanted: Sequence[tuple[int, float]]) -> list[Series]:
    """Each (resource, scale)'s change points, each value times the scale (`Series.of`), in one
    call into the core; no points when the run did not record."""
    if not run.recorded:
        return [Series() for _ in wanted]
    points = run.scaled_series([r for r, _ in wanted], [scale for _, scale in wanted], ROUNDING)
    return [trusted(Series, {"t_s": t_s, "values": values}) for t_s, values in points]


def _figured(
    run: NetworkRun, wanted: Sequence[tuple[int, float, float] | None]
) -> list[tuple[Series, float, dict[str, float]]]:
    """Each (resource, scale, share)'s change points as `_scaled` gives them, their integral over the
    run, and the utilisation figures of them times the share (`utilisation.figures`), all from the
    one call into the core that scales them (`RunReport.figured_series`: no points sent back for
    their figures). For None, each resource never used and each resource of a run that did not
    record: no points, 0, idle, one shared (frozen) tuple."""
    read = [w for w in wanted if w is not None] if run.recorded else []
    computed = iter(run.figured_series(read, ROUNDING, PERCENTILES, BUSY_SHARE) if read else [])
    #: What every resource never used reads back as: one (frozen) series and figures, shared.
    idle = (Series(), 0.0, figures([0.0] * len(PERCENTILES), 0.0, 0.0))
    out: list[tuple[Series, float, dict[str, float]]] = []
    for w in wanted:
        got = next(computed) if w is not None and read else None
        if got is None:
            out.append(idle)
            continue
        t_s, values, shares, busy_s, peak, integral = got
        out.append((trusted(Series, {"t_s": t_s, "values": values}), integral, figures(shares, busy_s, peak)))
    return out


#: bits/s per byte/s (`units.bits_per_s`, the one place a rate crosses, applied to each value).
_BITS = bits_per_s(1.0)


def adapter_series(scenario: Scenario, run: NetworkRun) -> list[AdapterSeries]:
    """Each NIC's send and receive over time, in bits/s, as the change points of its use."""
    return figured_adapters(scenario, run)[0]


def figured_adapters(scenario: Scenario, run: NetworkRun) -> tuple[list[AdapterSeries], list[NicUtilisation]]:
    """`adapter_series`, and `utilisation.nic_utilisation` of them, its bits and figures from the call
    that scales the series (`_figured`)."""
    fabric = run.lowered.model.fabric
    nics: list[dict[str, Any]] = []
    wanted: list[tuple[int, float, float] | None] = []  # send, then receive; None: not cabled
    for host in scenario.hosts:
        team_of = {member: team.name for team in host.teams for member in team.members}
        for nic in host.nics:
            port = Port(host.name, nic.name)
            nics.append({"host": host.name, "nic": nic.name, "team": team_of.get(nic.name), "speed_bps": nic.speed})
            for d in (fabric.out_of.get(port), fabric.into.get(port)):
                wanted.append(None if d is None else (d.resource, _BITS, nic_scale(nic.speed)))
    read = _figured(run, wanted)
    adapters = [
        trusted(  # the core's series, already checked: no second pass over each point
            AdapterSeries, {**fields, "send_bps": read[2 * k][0], "receive_bps": read[2 * k + 1][0]}
        )
        for k, fields in enumerate(nics)
    ]
    return adapters, nic_rows(adapters, [bits for _, bits, _ in read], [own for _, _, own in read])


def _busy(model: NetworkModel, run: NetworkRun, resources: Sequence[int]) -> list[Series]:
    """Each vCPU's use as a share of its capacity."""
    capacities = model.fabric.capacities
    shares = iter(_scaled(run, [(r, 1 / capacities[r]) for r in resources if capacities[r] > 0]))
    return [next(shares) if capacities[r] > 0 else Series() for r in resources]


def core_series(model: NetworkModel, run: NetworkRun) -> list[CoreSeries]:
    """How busy each physical core of each host was over time."""
    return figured_cores(model, run)[0]


def figured_cores(model: NetworkModel, run: NetworkRun) -> tuple[list[CoreSeries], list[CoreUtilisation]]:
    """`core_series`, and `utilisation.core_utilisation` of them, its figures from the call that
    scales the series (`_figured`)."""
    if model.cpu is None:
        return [], []
    cores = [(host, k, resource) for host, resources in model.cpu.cores.items() for k, resource in enumerate(resources)]
    capacities = model.fabric.capacities
    read = _figured(run, [(r, 1 / capacities[r], 1.0) if capacities[r] > 0 else None for _, _, r in cores])
    series = [
        trusted(CoreSeries, {"host": host, "core": k, "busy": busy})  # as AdapterSeries
        for (host, k, _), (busy, _, _) in zip(cores, read)
    ]
    return series, core_rows(series, [own for _, _, own in read])


def vcpu_series(model: NetworkModel, run: NetworkRun) -> list[VcpuSeries]:
    """How busy each vCPU of each VM that sends or receives was over time."""
    if model.cpu is None:
        return []
    vcpus = [(vm, k, resource) for vm, resources in model.cpu.vcpus.items() for k, resource in enumerate(resources)]
    busy = _busy(model, run, [resource for _, _, resource in vcpus])
    return [
        trusted(VcpuSeries, {"vm": vm, "vcpu": k, "busy": share})  # as AdapterSeries
        for (vm, k, _), share in zip(vcpus, busy)
    ]


def migration_results(plan: Plan, requests: list[MigrationRequest], named: Outcomes) -> list[MigrationResult]:
    """One record per migration, in the order they were asked for; its CPU cost is the
    core's count (each byte's cycles on the cores it used, compression included)."""
    options: dict[MigrationRoute, str] = {}  # the same for every migration of a route
    records = []
    for move, request, outcome in zip(plan.moves, requests, named.migrations):
        option = options.get(request.route)
        if option is None:
            option = options[request.route] = _option(request)
        records.append(_record(request, outcome, move.operation, option))
    return records


def _option(request: MigrationRequest) -> str:
    if request.compression is not None:
        return "compression"
    if not request.channels:
        return "tcp_ip"
    return "smb_direct" if any(channel.rdma for channel in request.channels) else "smb"


def _record(request: MigrationRequest, outcome: MigrationOutcome, operation: int, option: str) -> MigrationResult:
    """Its record, made as validation would make it (`hvnet.trusted`): the core's figures, each
    of the type of its field."""
    report = outcome._report  # the figures read once each, not through the view
    start_s, end_s, blackout_s = report.start_s, report.end_s, report.blackout_s
    passes = report.passes
    return trusted(
        MigrationResult,
        {
            "vm": request.vm,
            "source": request.source,
            "destination": request.target,
            "option": option,
            "queued_s": report.queued_s,
            "start_s": start_s,
            "end_s": end_s,
            "duration_s": None if end_s is None or start_s is None else end_s - start_s,
            "bytes_sent": round(report.bytes_sent),
            "passes": len(passes),
            "pass_details": [
                trusted(MigrationPass, {"bytes": round(b), "start_s": s, "end_s": e}) for b, s, e in passes
            ],
            "blackout_s": blackout_s,
            "blackout_start_s": None if blackout_s is None or end_s is None else end_s - blackout_s,
            "peak_bps": bits_per_s(report.peak_bytes_per_s),
            "peak_wire_bps": bits_per_s(report.peak_wire_bytes_per_s),
            "cpu_core_s_source": report.cpu_core_s_source,
            "cpu_core_s_destination": report.cpu_core_s_destination,
            "operation": operation,
        },
    )


def operation_results(plan: Plan, migrations: list[MigrationResult]) -> list[OperationResult]:
    """Each operation's window (and each node's part of a rolling update) from its migrations."""
    ends = [m.end_s for m in migrations]
    out = []
    for operation in plan.operations:
        nodes = []
        for part in operation.nodes:
            drain_start = part.start.time(ends)
            down = part.start.then(part.drain).time(ends)
            back = part.start.then(part.drain, operation.patch_time_s).time(ends)
            end = part.start.then(part.drain, operation.patch_time_s).then(part.fail_back).time(ends)
            nodes.append(
                NodeResult(
                    node=part.node,
                    drain_start_s=drain_start,
                    down_s=down,
                    back_s=back,
                    end_s=end,
                    vms=len(part.drain),
                )
            )
        moves = operation.moves
        waited = [ends[i] for i in moves]
        if operation.nodes:
            end_s = nodes[-1].end_s
        elif any(end is None for end in waited):
            end_s = None
        else:
            end_s = max((end for end in waited if end is not None), default=operation.at_s)
        blackouts = [b for b in (migrations[i].blackout_s for i in moves) if b is not None]
        out.append(
            OperationResult(
                kind=operation.kind,
                event=operation.event,
                host=operation.host,
                start_s=operation.at_s,
                end_s=end_s,
                duration_s=None if end_s is None else end_s - operation.at_s,
                migrations=list(moves),
                bytes_sent=sum(migrations[i].bytes_sent for i in moves),
                longest_blackout_s=max(blackouts, default=None),
                nodes=nodes,
            )
        )
    return out
