"""Sources and sinks: text and Parquet files, and the Read/Write primitives behind them."""

from panes.io.base import Read, Sink, Source, Write
from panes.io.parquet import ReadFromParquet, WriteToParquet
from panes.io.textio import ReadFromText, WriteToText

__all__ = [
    "Read",
    "Write",
    "Source",
    "Sink",
    "ReadFromText",
    "WriteToText",
    "ReadFromParquet",
    "WriteToParquet",
]
