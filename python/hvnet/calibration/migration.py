"""The parameters of live migration: pre-copy's stop rule and the switch-over, SMB Multichannel's
connections, and the Compression option's costs (docs/model.md, "Live migration")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hvnet.calibration.cpu import CpuParameters
from hvnet.calibration.parameter import parameter
from hvnet.calibration.sources import BEHAVIOUR, C3, FINN, FINN_10GBE, SMB_TUNING

if TYPE_CHECKING:
    from hvnet.model import Host

__all__ = ["CompressionParameters", "MigrationParameters", "SmbParameters"]


@dataclass(frozen=True)
class MigrationParameters:
    """Pre-copy's stop rule and the switch-over (docs/model.md, "Live migration")."""

    max_passes: int = parameter(
        5,
        "passes",
        "assumed",
        f"{BEHAVIOUR}: 5 passes from 2012 R2 on, pass 1 included (unconfirmed)",
        "3-10",
        spread=(3, 10),
    )
    stop_bytes: int = parameter(
        64 * 2**20,
        "bytes",
        "assumed",
        "Microsoft's text says 'small enough'; no figure given",
        "16-256 MiB",
        spread=(16 * 2**20, 256 * 2**20),
    )
    switchover_exchanges: int = parameter(
        268,
        "exchanges",
        "calibrated",
        f"{C3}: the synchronous exchanges of pause, device save and restore, storage and network hand-over",
        "±30 % (rests on the assumed round trip and device state)",
        fitted_on=("C3/blackout",),
        spread=30.0,
    )
    exchange_round_trip_s: float = parameter(
        50e-6,
        "s",
        "assumed",
        "one round trip on a 10 GbE LAN whose cores are awake",
        "20-100 µs",
        spread=(20e-6, 100e-6),
    )
    setup_s: float = parameter(
        2.07,
        "s",
        "calibrated",
        f"{FINN}: the rest is work that does not scale with memory (negotiation, the destination's VM and its checks); "
        "one value for every transport, as no public figure separates them",
        "±1 s (the source times in whole seconds)",
        fitted_on=("F1/1gbe-one",),
        spread=(1.07, 3.07),
    )
    setup_serial_s: float = parameter(
        1.0,
        "s",
        "calibrated",
        f"{FINN_10GBE}: the part of the set-up that a host does for one migration at a time (assumed: as source or "
        "destination alike), so concurrent migrations take turns for it while the rest of their set-up overlaps",
        "0.3-1.5 s (the source times in whole seconds)",
        fitted_on=("F1/10gbe-twenty",),
        spread=(0.3, 1.5),
    )
    prepare_bytes_per_s: float = parameter(
        1.4e10,
        "bytes/s",
        "calibrated",
        f"{C3}: the source reads, maps and hands over guest memory in series with the transfer",
        "±10 %",
        fitted_on=("C3/duration",),
        spread=10.0,
    )

    def switchover_s(self, source: Host, destination: Host, cpu: CpuParameters) -> float:
        """Exchanges × (round trip + a core's wake on each host): a host whose firmware allows
        deep C-states pays their exit latency twice per exchange, once per end."""
        return self.switchover_of(cpu.wake_s(source), cpu.wake_s(destination))

    def switchover_of(self, source_wake_s: float, destination_wake_s: float) -> float:
        """`switchover_s` of the two hosts' wakes (`CpuParameters.wake_s`), for a caller that has them."""
        return self.switchover_exchanges * (self.exchange_round_trip_s + (source_wake_s + destination_wake_s))


@dataclass(frozen=True)
class SmbParameters:
    """SMB Multichannel: how many TCP connections (RDMA: SMB Direct connections) it opens per interface."""

    connections_per_rss_interface: int = parameter(
        4,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerRssNetworkInterface, default 4 (1-16)",
        "exact default; an administrator may set 1-16",
    )
    connections_per_rdma_interface: int = parameter(
        2,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerRdmaNetworkInterface, default 2 (1-16)",
        "exact default; an administrator may set 1-16",
    )
    connections_per_interface: int = parameter(
        1,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerNetworkInterface, default 1 (1-16), for an interface without RSS",
        "exact default; an administrator may set 1-16",
    )
    max_connections_per_server: int = parameter(
        32,
        "connections",
        "documented",
        f"{SMB_TUNING}: MaximumConnectionCountPerServer, default 32 (1-64)",
        "exact default; an administrator may set 1-64",
    )


@dataclass(frozen=True)
class CompressionParameters:
    """The Compression option's costs: no public figure here measures them."""

    ratio: float = parameter(
        0.5, "bytes/byte", "assumed", "an LZ-class compressor on ordinary guest memory", "0.3-0.8", spread=(0.3, 0.8)
    )
    zero_ratio: float = parameter(
        0.01, "bytes/byte", "assumed", "zero pages compress to almost nothing", "0-0.05", spread=(0.0, 0.05)
    )
    compress_cycles_per_byte: float = parameter(
        6.0,
        "cycles/byte",
        "assumed",
        "an LZ-class compressor: about 480 MB/s per 2.9 GHz core",
        "3-12",
        spread=(3.0, 12.0),
    )
    decompress_cycles_per_byte: float = parameter(
        2.0,
        "cycles/byte",
        "assumed",
        "an LZ-class decompressor: about 1.45 GB/s per 2.9 GHz core",
        "1-4",
        spread=(1.0, 4.0),
    )
    zero_cycles_per_byte: float = parameter(
        0.3, "cycles/byte", "assumed", "a zero page is found and skipped", "0.1-1", spread=(0.1, 1.0)
    )
    weight: float = parameter(
        0.1,
        "share weight",
        "assumed",
        f"{BEHAVIOUR}: Compression uses only otherwise idle CPU, so it yields to everything else",
        "0.01-0.5",
        spread=(0.01, 0.5),
    )
