"""Every parameter of hvnet's models that the physics does not fix, in one place.

Each is a field of one of the groups below, with its value, its unit, where
the value comes from and how far to trust it (`Parameter`, read with
`Calibration.parameters()`; docs/model.md explains each model, and
`hvnet validate` shows the figures the calibrated ones were fitted on). A
parameter is one of three kinds:

- **calibrated**: fitted once on a figure of `shared/data/calibration.md`
  (named in its source), the same value for every scenario;
- **documented**: taken from a public document (named in its source);
- **assumed**: no public figure fixes it; a named, documented choice that a
  measurement can replace.

Nothing here is tuned per scenario. The model code reads these objects; no
other module holds a calibrated number.

    Calibration
    ├── teaming: TeamingParameters        LACP timeout, dynamic rebalancing
    ├── fabric: FabricParameters          how switches see a failure and route around it
    ├── cpu: CpuParameters                cycles per byte and packet, RSC, RDMA, power plans, C-states
    ├── vmq: VmqParameters                dynamic VMQ's interval and threshold
    ├── migration: MigrationParameters    pre-copy's stop rule, switch-over, the source's preparation, set-up
    ├── smb: SmbParameters                SMB Multichannel's connections per interface
    └── compression: CompressionParameters  the Compression option's ratio and costs

By module: ``parameter`` (a parameter as a field, with its unit, kind, source and uncertainty; as a reader
sees it, ``Parameter``), ``sources`` (the figures and documents the parameters cite), the groups
(``network``: teaming, fabric, VMQ; ``cpu``; ``migration``: migration, SMB, compression), and
``calibration`` (``Calibration``, which holds the groups and refuses a value out of range, and the table of
docs/model.md).
"""

from hvnet.calibration.calibration import Calibration, calibration_markdown
from hvnet.calibration.cpu import LSO_SEGMENT_BYTES, CpuParameters
from hvnet.calibration.migration import CompressionParameters, MigrationParameters, SmbParameters
from hvnet.calibration.network import FabricParameters, TeamingParameters, VmqParameters
from hvnet.calibration.parameter import Parameter

__all__ = [
    "LSO_SEGMENT_BYTES",
    "Calibration",
    "CompressionParameters",
    "CpuParameters",
    "FabricParameters",
    "MigrationParameters",
    "Parameter",
    "SmbParameters",
    "TeamingParameters",
    "VmqParameters",
    "calibration_markdown",
]
