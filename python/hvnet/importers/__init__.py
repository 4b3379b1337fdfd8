"""Importers: measurement files from real tools, normalised into one record each (docs/import.md).

``read_measurement(path)`` detects the format from the content and returns
the file's `Measurement` records (one, or one per run for NTttcp XML files
that hold several). Bad input raises `hvnet.errors.InputError`, one line
``file:line: field: message``.
"""

from hvnet.importers.detect import FORMATS, detect, read_measurement, read_measurement_text
from hvnet.importers.measurement import (
    InterfaceCounters,
    Interval,
    Measurement,
    Parameters,
    Series,
    Stream,
    measurement_document,
)

__all__ = [
    "FORMATS",
    "InterfaceCounters",
    "Interval",
    "Measurement",
    "Parameters",
    "Series",
    "Stream",
    "detect",
    "measurement_document",
    "read_measurement",
    "read_measurement_text",
]
