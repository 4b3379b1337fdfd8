"""Type stubs of the Rust core (crates/python)."""

from typing import Any

__version__: str

#: One live migration: source and target endpoints, ports, [assigned, populated, dirty rate,
#: working set, device state], (max passes, stop bytes, switch-over s, prepare bytes/s), at s,
#: queue, simultaneous, SMB channels (NIC pair or None, ports, cycles or None), compression,
#: (migrations it waits for, delay s), a resource all its bytes pass (SMB limit) or None.
MigrationArgs = tuple[
    int,
    int,
    tuple[int, int],
    list[float],
    tuple[int, float, float, float | None],
    float,
    int,
    int,
    list[tuple[tuple[int, int] | None, tuple[int, int], tuple[float, float] | None]],
    list[float] | None,
    tuple[list[int], float],
    int | None,
]

def run_workload(
    capacities: list[float],
    fatpipe: list[bool],
    starts: list[float],
    amounts: list[float],
    routes: list[list[tuple[int, float]]],
    weights: list[float] | None = None,
    bounds: list[float | None] | None = None,
    changes: list[tuple[float, int, float]] = ...,
    record_step: float | None = None,
) -> dict[str, Any]: ...
def run_network(
    capacities: list[float],
    fatpipe: list[bool],
    nics: list[tuple[int, int]],
    teams: list[tuple[list[int], int | None, str, str, str]],
    endpoints: list[
        tuple[
            str,
            int,
            int,
            str,
            tuple[int, int, int, int, int, int],
            tuple[str, list[int]],
            tuple[str, list[int]],
            list[int],
            list[int],
            tuple[str, list[int]],
            tuple[str, list[int]],
        ]
    ],
    paths: dict[tuple[int, int], tuple[list[tuple[int, float]], float, float, float, float]],
    connections: list[tuple[int, int, tuple[int, int] | None, float, float, float | None]],
    changes: list[tuple[float, str, int, bool]],
    lacp_timeout: float,
    rebalance_interval: float | None = None,
    record_step: float | None = None,
    migrations: list[MigrationArgs] = ...,
    guests: list[tuple[int, float, list[int], list[int]]] = ...,
    dynamic_vmq: tuple[float, float] | None = None,
) -> dict[str, Any]: ...
def toeplitz(data: bytes, key: bytes | None = None) -> int: ...
def rss_hash(src_ip: str, dst_ip: str, src_port: int | None = None, dst_port: int | None = None) -> int: ...
