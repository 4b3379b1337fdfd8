"""Live migrations of a scenario: the `migrate` events as requests for the
core, and what the core reports as one record per migration.

The pre-copy machine (`crates/migration/src/precopy.rs`) and the way it
drives connections (`crates/network/src/run/migrate.rs`) do the work; this
module names the parameters and shapes the results. With the TCP/IP option
each step of a migration (a pass, then the blackout copy) is one TCP
connection from the source host to the destination host, on port 6600; the
team member and the cores follow the rules of any connection. Compression and
SMB are not simulated by this version: a scenario that asks for them is
refused, with the reason, rather than simulated as something else.
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet import frames
from hvnet.cpu import CpuParameters
from hvnet.errors import Problem
from hvnet.model import Scenario
from hvnet.network import MigrationOutcome, MigrationRequest, NetworkRun
from hvnet.results import MigrationPass, MigrationResult

__all__ = ["MigrationParameters", "migration_requests", "migration_results"]


@dataclass(frozen=True)
class MigrationParameters:
    """Pre-copy's stop rule, unconfirmed by Microsoft's text: named, documented choices."""

    #: Passes before the blackout, pass 1 included (5 from Windows Server 2012 R2 on).
    max_passes: int = 5
    #: Stop iterating when no more than this is left to copy.
    stop_bytes: float = 64 * 2**20
    #: From the last byte to the VM running on the destination.
    switchover_s: float = 0.1


def migration_requests(
    scenario: Scenario, filename: str, parameters: MigrationParameters | None = None
) -> tuple[list[MigrationRequest], list[Problem]]:
    """The scenario's `migrate` events in time order, each from where its VM runs then."""
    parameters = parameters or MigrationParameters()
    where = {vm.name: vm.host for vm in scenario.vms}
    requests, problems = [], []
    ordered = sorted(enumerate(scenario.events), key=lambda pair: pair[1].at)
    for index, event in ordered:
        if str(event.action.value) != "migrate" or event.to is None:
            continue
        vm = scenario.vm(event.target)
        source = scenario.host(where[vm.name])
        option = str(source.live_migration.option.value)
        if option != "tcp_ip":
            problems.append(
                Problem(
                    filename,
                    None,
                    f"events[{index}]",
                    f"{source.name} migrates with the {option} option, which this version of hvnet does not "
                    f"simulate yet (only tcp_ip); set hosts[].live_migration.option: tcp_ip on {source.name} "
                    "to see a TCP/IP migration",
                )
            )
            continue
        requests.append(
            MigrationRequest(
                vm=vm.name,
                source=source.name,
                target=event.to,
                at_s=event.at,
                assigned_bytes=float(vm.memory),
                populated_bytes=float(vm.populated),
                dirty_bytes_per_s=vm.dirty_rate / 8,
                working_set_bytes=float(vm.working_set),
                device_state_bytes=float(vm.device_state),
                simultaneous=source.live_migration.simultaneous,
                max_passes=parameters.max_passes,
                stop_bytes=parameters.stop_bytes,
                switchover_s=parameters.switchover_s,
            )
        )
        where[vm.name] = event.to
    return requests, problems


def _core_seconds(scenario: Scenario, host_name: str, cycles: float, cpu: CpuParameters) -> float:
    """Core-seconds that `cycles` take on a core of that host."""
    host = scenario.host(host_name)
    return cycles / (host.cpu.ghz * 1e9 * cpu.power_plan_factor[str(host.power_plan.value)])


def migration_results(
    scenario: Scenario, requests: list[MigrationRequest], run: NetworkRun, cpu: CpuParameters | None = None
) -> list[MigrationResult]:
    """One record per migration, in time order of the events."""
    cpu = cpu or CpuParameters()
    mtu = {f"{h.name}/{n.name}": n.mtu for h in scenario.hosts for n in h.nics}
    out = []
    for request, outcome in zip(requests, run.migrations):
        send_cycles = receive_cycles = 0.0
        for k in outcome.connections:
            connection = run.outcomes[k]
            out_nic, in_nic = connection.nics[0][1], connection.nics[0][2]
            mss = frames.mss(min(mtu.get(out_nic or "", 1500), mtu.get(in_nic or "", 1500)))
            send_cycles += connection.sent_bytes * cpu.send_cost()
            receive_cycles += connection.sent_bytes * cpu.receive_cost(mss)
        out.append(_record(scenario, request, outcome, send_cycles, receive_cycles, cpu))
    return out


def _record(
    scenario: Scenario,
    request: MigrationRequest,
    outcome: MigrationOutcome,
    send_cycles: float,
    receive_cycles: float,
    cpu: CpuParameters,
) -> MigrationResult:
    duration = None if outcome.end_s is None or outcome.start_s is None else outcome.end_s - outcome.start_s
    return MigrationResult(
        vm=request.vm,
        source=request.source,
        destination=request.target,
        option="tcp_ip",
        queued_s=outcome.queued_s,
        start_s=outcome.start_s,
        end_s=outcome.end_s,
        duration_s=duration,
        bytes_sent=int(round(outcome.bytes_sent)),
        passes=len(outcome.passes),
        pass_details=[MigrationPass(bytes=int(round(b)), start_s=s, end_s=e) for b, s, e in outcome.passes],
        blackout_ms=None if outcome.blackout_s is None else 1000 * outcome.blackout_s,
        peak_gbps=outcome.peak_bps / 1e9,
        cpu_core_s_source=_core_seconds(scenario, request.source, send_cycles, cpu),
        cpu_core_s_destination=_core_seconds(scenario, request.target, receive_cycles, cpu),
    )
