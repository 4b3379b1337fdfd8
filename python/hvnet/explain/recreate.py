"""Re-creating a measured test on the twin: which endpoints, how many threads, how long.

A test measurement (NTttcp, iperf3) records what it was asked to do in its
``parameters``: threads (``-m N`` / ``-P N``), duration (``-t``), buffer
(``-l``) and the addresses it used. hvnet scenarios give hosts and VMs names,
not IP addresses, so a recorded address picks an endpoint only when it *is*
the name of a host or VM of the scenario (``ntttcp -r -m 8,*,vm2``). Otherwise
``--from`` (the sender) and ``--to`` (the receiver) say which endpoints ran
the test; without them the error lists the names the scenario has.
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.errors import InputError
from hvnet.importers.measurement import Measurement
from hvnet.model import Scenario

__all__ = ["COUNTER_FORMATS", "SNAPSHOT_FORMATS", "TEST_FORMATS", "Test", "endpoint_names", "recreate_test"]

#: Formats whose file is one test with a total throughput.
TEST_FORMATS = (
    "ntttcp-windows-text",
    "ntttcp-windows-xml",
    "ntttcp-linux-text",
    "ntttcp-linux-xml",
    "ntttcp-linux-json",
    "iperf3-json",
)
#: Counter logs: time series per NIC (and per processor), compared by percentiles.
COUNTER_FORMATS = ("pdh-csv", "sar-dev-text", "sadf-dev-csv", "sadf-json", "proc-net-dev-log", "ip-link-json-log")
#: Snapshots of cumulative counters: one moment, no window to compare.
SNAPSHOT_FORMATS = ("proc-net-dev", "ip-link-json")

#: ntttcp's buffer when -l is not given (128 KiB on Windows, 64 KiB on Linux; only reported, never a rate).
DEFAULT_BUFFER_BYTES = 128 * 1024


@dataclass(frozen=True)
class Test:
    """A measured test as hvnet runs it again."""

    tool: str  # "ntttcp" or "iperf3"
    sender: str
    receiver: str
    threads: int
    seconds: float
    buffer_bytes: int
    #: Where each value came from, one short phrase per value ("threads 8 from -m 8,*,10.0.0.2").
    origin: tuple[str, ...]


def endpoint_names(scenario: Scenario) -> list[str]:
    """Every name a test can run between: the hosts, then the VMs."""
    return [h.name for h in scenario.hosts] + [vm.name for vm in scenario.vms]


def _named(scenario: Scenario, address: str | None) -> str | None:
    """The endpoint a recorded address names, if it is a host or VM name of the scenario."""
    if not address:
        return None
    wanted = address.strip().casefold()
    return next((n for n in endpoint_names(scenario) if n.casefold() == wanted), None)


def _check(scenario: Scenario, file: str, option: str, name: str) -> str:
    names = endpoint_names(scenario)
    if name in names:
        return name
    folded = [n for n in names if n.casefold() == name.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise InputError(
        file, None, option, f"{name!r} is not a host or VM of {scenario.source}; valid names: {', '.join(names)}"
    )


def recreate_test(
    scenario: Scenario, measurement: Measurement, sender: str | None = None, receiver: str | None = None
) -> Test:
    """The test ``measurement`` records, between the scenario's endpoints; InputError if it cannot be told."""
    file, p = measurement.file, measurement.parameters
    tool = "iperf3" if measurement.format.startswith("iperf3") else "ntttcp"
    if p.protocol == "udp":
        raise InputError(
            file,
            None,
            "protocol",
            f"a UDP {tool} run; explain re-creates TCP tests only (hvnet models TCP's fair sharing, not a UDP "
            "sender's fixed rate)",
        )
    if p.direction == "bidirectional":
        raise InputError(
            file, None, "direction", "a bidirectional iperf3 run (--bidir); explain re-creates one direction at a time"
        )
    origin: list[str] = []
    # Who sent and who received, as far as the addresses say. NTttcp's -m address is the
    # receiver's in both roles; iperf3's client sends unless -R (direction 'reverse').
    found_sender: str | None = None
    found_receiver: str | None = None
    if tool == "ntttcp":
        found_receiver = _named(scenario, p.remote_address) or _named(
            scenario, p.local_address if measurement.role == "receiver" else None
        )
    else:
        local, remote = _named(scenario, p.local_address), _named(scenario, p.remote_address)
        client_sends = p.direction != "reverse"
        if measurement.role == "receiver":  # the server's file: local is the server
            client_sends = not client_sends
        found_sender, found_receiver = (local, remote) if client_sends else (remote, local)
    if sender is not None:
        sender = _check(scenario, file, "--from", sender)
        origin.append(f"sender {sender} from --from")
    elif found_sender is not None:
        sender = found_sender
        origin.append(f"sender {sender}: the address the file records")
    if receiver is not None:
        receiver = _check(scenario, file, "--to", receiver)
        origin.append(f"receiver {receiver} from --to")
    elif found_receiver is not None:
        receiver = found_receiver
        origin.append(f"receiver {receiver}: the address the file records")
    if sender is None or receiver is None:
        missing = " and ".join(o for o, v in (("--from SENDER", sender), ("--to RECEIVER", receiver)) if v is None)
        recorded = [a for a in (p.local_address, p.remote_address) if a]
        why = (
            f"the file records {', '.join(recorded)}, which the scenario does not name"
            if recorded
            else "the file records no address"
        )
        raise InputError(
            file,
            None,
            "endpoints",
            f"{why}; give {missing} (valid names: {', '.join(endpoint_names(scenario))})",
        )
    if sender == receiver:
        raise InputError(
            file, None, "--to", f"{sender} sends and receives; explain re-creates a test between two hosts or VMs"
        )
    threads = p.threads or (len(measurement.streams) if measurement.streams else None)
    if threads is None:
        threads = 1
        origin.append("threads 1 (the file records none)")
    else:
        origin.append(f"threads {threads}" + (" from the command line" if p.threads else " from the per-thread table"))
    seconds = measurement.duration_s or p.requested_duration_s
    if not seconds or seconds <= 0:
        raise InputError(file, None, "duration_s", "the file records no duration; explain needs the test's length")
    origin.append(f"{seconds:g} s measured" if measurement.duration_s else f"{seconds:g} s asked for (-t)")
    buffer = p.buffer_bytes or DEFAULT_BUFFER_BYTES
    return Test(tool, sender, receiver, threads, float(seconds), buffer, tuple(origin))
