"""`hvnet demo`: the calibration testbed drained, over each transport option and three team designs.

The built-in designs (hvnet/examples/demo/) are the two-node testbed of
shared/data/calibration.md — a 55 GB VM and six 9 GB VMs on hv1, 2 × 10 GbE
per host — with every VM live-migrated to hv2 at 0 s:

- ``lbfo.yaml``: an LBFO team (switch independent, dynamic),
- ``set.yaml``: a Switch Embedded Team (Hyper-V port),
- ``no-team.yaml`` and ``no-team-rdma.yaml``: the two NICs unteamed, RDMA off and on.

Each file's ``option`` axis is the transport: TCP/IP and Compression on every
design, SMB (Multichannel, and Direct with RDMA) on the unteamed NICs only,
because SMB over a team's host vNIC is not simulated yet (`LEFT_OUT`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from hvnet.compare import Run, run_comparison

__all__ = ["DESIGNS", "LEFT_OUT", "REPORT", "is_hvnet_page", "run_demo"]

#: The demo's design files, in the order of the comparison.
DESIGNS = ("lbfo.yaml", "set.yaml", "no-team.yaml", "no-team-rdma.yaml")

#: Where the demo writes its report unless told otherwise.
REPORT = Path("hvnet-demo.html")

#: What the demo leaves out, and why: printed under the comparison.
LEFT_OUT = (
    "SMB over a team's host vNIC is not simulated yet, so the teamed designs are compared over TCP/IP "
    "and Compression only; SMB runs on the unteamed NICs (SMB Direct with RDMA on)."
)


def run_demo(step_s: float = 1.0) -> list[Run]:
    """Every variant of every demo design, simulated (labels name the files, not their folder)."""
    with resources.as_file(resources.files("hvnet.examples").joinpath("demo")) as folder:
        return run_comparison([folder / name for name in DESIGNS], step_s, names=DESIGNS)


def is_hvnet_page(path: Path) -> bool:
    """Whether `path` is a report hvnet wrote (its head names hvnet as the generator)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            head = file.read(4096)
    except OSError:
        return False
    return '<meta name="generator" content="hvnet ' in head
