"""Live migrations of a scenario: the migrations its operations make
(`operations.py`) as requests for the core, and what the core reports as
one record per migration.

The pre-copy machine (`crates/migration/src/precopy.rs`) and the way it
drives connections (`crates/network/src/run/migrate.rs`) do the work; this
module names the parameters and shapes the results; `interfaces.py` picks
the network (TCP/IP, Compression) or SMB's channels.

- **TCP/IP**: each step of a migration (a pass, then the blackout copy) is one
  TCP connection from the source host to the destination host, on port 6600;
  the team member and the cores follow the rules of any connection.
- **SMB** (Multichannel; SMB Direct when both ends have RDMA interfaces):
  each step is spread over SMB's channels (`interfaces.smb_channels`). SMB
  Direct moves data with next to no CPU (`CpuParameters.rdma_cycles_per_byte`).
- **Compression**: each step is one TCP connection that carries the step's
  memory compressed (`CompressionParameters`: ratio by content, zero pages
  nearly free) and costs compression cycles spread over all the source host's
  cores and decompression cycles over the destination's; its weight is low,
  so it uses only CPU (and bandwidth) that nothing else wants — the guests'
  own work included (a VM's `cpu_load`, which stays on the source host until
  its migration ends: crates/network/src/run/guests.rs).
"""

from __future__ import annotations

from hvnet import frames
from hvnet.calibration import Calibration, CpuParameters
from hvnet.cpu import coalesces
from hvnet.errors import Problem
from hvnet.fabric import Fabric
from hvnet.interfaces import migration_network, smb_channels
from hvnet.model import Scenario
from hvnet.network import MigrationOutcome, MigrationRequest, NetworkRun
from hvnet.operations import Plan, plan_operations
from hvnet.results import MigrationPass, MigrationResult
from hvnet.units import bytes_per_s

__all__ = ["migration_requests", "migration_results"]


def migration_requests(
    scenario: Scenario,
    filename: str,
    calibration: Calibration,
    fabric: Fabric,
) -> tuple[Plan, list[MigrationRequest], list[Problem]]:
    """The migrations the scenario's operations make (`operations.py`), as
    requests for the core, each sent with its source host's option."""
    parameters, cpu = calibration.migration, calibration.cpu
    plan, problems = plan_operations(scenario, filename)
    requests = []
    for move in plan.moves:
        vm = scenario.vm(move.vm)
        source = scenario.host(move.source)
        option = str(source.live_migration.option.value)
        c = calibration.compression
        compression = (
            (c.ratio, c.zero_ratio, c.compress_cycles_per_byte, c.decompress_cycles_per_byte, c.zero_cycles_per_byte, c.weight)
            if option == "compression"
            else None
        )
        if option in ("smb", "smb_direct"):
            picked = smb_channels(scenario, source.name, move.target)
        else:
            network = migration_network(scenario, fabric, source.name, move.target)
            picked = network if isinstance(network, str) else ((), network)
        if isinstance(picked, str):
            problems.append(Problem(filename, None, f"events[{move.event}]", picked))
            continue
        channels, via = picked
        if option == "smb_direct" and not any(channel.rdma for channel in channels):
            why = (
                f"{source.name} asks for smb_direct, but {source.name} and {move.target} do not both have an RDMA "
                "interface for live migration (a NIC with rdma: true outside LBFO teams, or a SET team of RDMA "
                "NICs); SMB would run over TCP: use option smb to simulate that"
            )
            problems.append(Problem(filename, None, f"events[{move.event}]", why))
            continue
        requests.append(
            MigrationRequest(
                vm=vm.name,
                source=source.name,
                target=move.target,
                at_s=move.gate.at_s,
                assigned_bytes=float(vm.memory),
                populated_bytes=float(vm.populated),
                dirty_bytes_per_s=bytes_per_s(vm.dirty_rate),
                working_set_bytes=float(vm.working_set),
                device_state_bytes=float(vm.device_state),
                simultaneous=source.live_migration.simultaneous,
                max_passes=parameters.max_passes,
                stop_bytes=parameters.stop_bytes,
                switchover_s=parameters.switchover_s(source, scenario.host(move.target), cpu),
                prepare_bytes_per_s=parameters.prepare_bytes_per_s,
                channels=channels,
                compression=compression,
                after=move.gate.after,
                delay_s=move.gate.delay_s,
                via=via,
            )
        )
    return plan, requests, _unique(problems)


def _unique(problems: list[Problem]) -> list[Problem]:
    """Each problem once (a drain's VMs may all hit the same one)."""
    return list(dict.fromkeys(problems))


def _core_seconds(scenario: Scenario, host_name: str, cycles: float, cpu: CpuParameters) -> float:
    """Core-seconds that `cycles` take on a core of that host."""
    host = scenario.host(host_name)
    return cycles / cpu.cycles_per_s(host)


def migration_results(
    scenario: Scenario,
    plan: Plan,
    requests: list[MigrationRequest],
    run: NetworkRun,
    calibration: Calibration,
) -> list[MigrationResult]:
    """One record per migration, in the order they were asked for."""
    cpu = calibration.cpu
    mtu = {f"{h.name}/{n.name}": n.mtu for h in scenario.hosts for n in h.nics}
    rsc = {f"{h.name}/{n.name}": coalesces(h, n) for h in scenario.hosts for n in h.nics}
    out = []
    for move, request, outcome in zip(plan.moves, requests, run.migrations):
        send_cycles = receive_cycles = 0.0
        rdma = any(channel.rdma for channel in request.channels)
        wire = 1.0
        if request.compression is not None:
            ratio, zero_ratio, compress, decompress, zero_cycles, _ = request.compression
            zero = (request.assigned_bytes - request.populated_bytes) if outcome.passes else 0.0
            data = outcome.bytes_sent - zero
            send_cycles += data * compress + zero * zero_cycles
            receive_cycles += data * decompress + zero * zero_cycles
            wire = (data * ratio + zero * zero_ratio) / outcome.bytes_sent if outcome.bytes_sent else 1.0
        for k in outcome.connections:
            connection = run.outcomes[k]
            out_nic, in_nic = connection.nics[0][1], connection.nics[0][2]
            mss = frames.mss(min(mtu.get(out_nic or "", 1500), mtu.get(in_nic or "", 1500)))
            send_cycles += wire * connection.sent_bytes * (cpu.rdma_cost() if rdma else cpu.send_cost())
            receive_cycles += wire * connection.sent_bytes * (cpu.rdma_cost() if rdma else cpu.receive_cost(mss, rsc.get(in_nic or "", False)))
        out.append(_record(scenario, request, outcome, send_cycles, receive_cycles, cpu, move.operation))
    return out


def _option(request: MigrationRequest) -> str:
    if request.compression is not None:
        return "compression"
    if not request.channels:
        return "tcp_ip"
    return "smb_direct" if any(channel.rdma for channel in request.channels) else "smb"


def _record(
    scenario: Scenario,
    request: MigrationRequest,
    outcome: MigrationOutcome,
    send_cycles: float,
    receive_cycles: float,
    cpu: CpuParameters,
    operation: int,
) -> MigrationResult:
    duration = None if outcome.end_s is None or outcome.start_s is None else outcome.end_s - outcome.start_s
    return MigrationResult(
        vm=request.vm,
        source=request.source,
        destination=request.target,
        option=_option(request),
        queued_s=outcome.queued_s,
        start_s=outcome.start_s,
        end_s=outcome.end_s,
        duration_s=duration,
        bytes_sent=int(round(outcome.bytes_sent)),
        passes=len(outcome.passes),
        pass_details=[MigrationPass(bytes=int(round(b)), start_s=s, end_s=e) for b, s, e in outcome.passes],
        blackout_ms=None if outcome.blackout_s is None else 1000 * outcome.blackout_s,
        blackout_start_s=None if outcome.blackout_s is None or outcome.end_s is None else outcome.end_s - outcome.blackout_s,
        peak_gbps=outcome.peak_bps / 1e9,
        cpu_core_s_source=_core_seconds(scenario, request.source, send_cycles, cpu),
        cpu_core_s_destination=_core_seconds(scenario, request.target, receive_cycles, cpu),
        operation=operation,
    )
