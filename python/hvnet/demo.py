"""`hvnet demo`: the calibration testbed drained, over each transport option and three team designs.

The built-in designs (hvnet/examples/demo/) are the two-node testbed of
shared/data/calibration.md — a 55 GB VM and six 9 GB VMs on hv1, 2 × 10 GbE
per host — with hv1 drained to hv2 at 0 s:

- ``lbfo.yaml``: an LBFO team (switch independent, dynamic),
- ``set.yaml`` and ``set-rdma.yaml``: a Switch Embedded Team (Hyper-V port), RDMA off and on,
- ``no-team.yaml`` and ``no-team-rdma.yaml``: the two NICs unteamed, RDMA off and on.

Each file's ``option`` axis is the transport: TCP/IP, Compression and SMB
Multichannel on each design with RDMA off, SMB Direct on each design with
RDMA on. That is 11 of the 12 combinations: SMB Direct over an LBFO team is
refused, as an LBFO team gives no RDMA (`LEFT_OUT`).

Its terminal and its report open with the comparison's verdict (`hvnet.verdict`),
each variant priced from the default example prices (docs/cost.md) unless
`run_demo` is given another list.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from hvnet.compare import Run, run_comparison
from hvnet.cost import PriceList

__all__ = ["DESIGNS", "LEFT_OUT", "REPORT", "is_hvnet_page", "run_demo"]

#: The demo's design files, in the order of the comparison.
DESIGNS = ("lbfo.yaml", "set.yaml", "set-rdma.yaml", "no-team.yaml", "no-team-rdma.yaml")

#: Where the demo writes its report unless told otherwise.
REPORT = Path("hvnet-demo.html")

#: What the demo leaves out, and why: printed under the comparison.
LEFT_OUT = (
    "SMB Direct over the LBFO team is not in the comparison: Windows gives an LBFO team no RDMA, "
    "so hvnet refuses it (use SET or unteamed NICs for RDMA)."
)


def run_demo(prices: PriceList | str | os.PathLike[str] | None = None) -> list[Run]:
    """Every variant of every demo design, simulated and priced from `prices` (None: the default
    example prices; labels name the files, not their folder)."""
    with resources.as_file(resources.files("hvnet.examples").joinpath("demo")) as folder:
        return run_comparison([folder / name for name in DESIGNS], names=DESIGNS, prices=prices)


def is_hvnet_page(path: Path) -> bool:
    """Whether `path` is a report hvnet wrote (its head names hvnet as the generator)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            head = file.read(4096)
    except OSError:
        return False
    return '<meta name="generator" content="hvnet ' in head
