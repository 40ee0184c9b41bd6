"""A Spark DataFrame as a pipeline's input (``ReadFromDataFrame``).

A DataFrame is a live object, not data the IR can hold: compiling a pipeline registers it here
under a key, which the IR's ``DataFrameSource`` holds, and the pipeline's run releases the key
when it ends. The Spark runner reads the frame in place, partition by partition; the direct
runner collects its rows. Rows become dicts, as in ``ReadFromParquet``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from panes.errors import PipelineConstructionError, RunnerError
from panes.io.base import Read, Source
from panes.ir import io as ir

_frames: dict = {}
_keys = itertools.count()


@dataclass(frozen=True, eq=False)
class DataFrameSource(Source):
    """The rows of ``dataframe`` as dicts, in partition order."""

    dataframe: Any  # a pyspark.sql.DataFrame

    def read_records(self):
        return (row.asDict(recursive=True) for row in self.dataframe.toLocalIterator())


def ReadFromDataFrame(dataframe, label=None) -> Read:  # noqa: N802 - Beam's naming
    """Reads the rows of a Spark DataFrame as dicts, in partition order."""
    if not _is_dataframe(dataframe):
        raise PipelineConstructionError(
            f"ReadFromDataFrame needs a pyspark.sql.DataFrame, got {type(dataframe).__name__}"
        )
    return Read(DataFrameSource(dataframe), label=label)


def _is_dataframe(value) -> bool:
    """Whether ``value`` is a Spark DataFrame (a streaming one has no ``.rdd`` to probe)."""
    try:
        from pyspark.sql import DataFrame
    except ImportError:  # without pyspark, nothing is a DataFrame
        return False
    return isinstance(value, DataFrame)


def register(source: DataFrameSource) -> ir.DataFrameSource:
    """The IR of ``source``: its DataFrame registered under a new key."""
    key = f"dataframe-{next(_keys)}"
    _frames[key] = source.dataframe
    return ir.DataFrameSource(key)


def registered(source: ir.DataFrameSource) -> DataFrameSource:
    """The source the IR's key names."""
    try:
        return DataFrameSource(_frames[source.key])
    except KeyError:
        raise RunnerError(
            f"DataFrame {source.key} is not registered in this process: a pipeline that reads a "
            f"DataFrame runs in the process that compiled it, and once per compilation "
            f"(Pipeline.run compiles it again)"
        ) from None


def release(pipeline) -> None:
    """Forgets the DataFrames the pipeline IR's sources name (its run has ended)."""
    for node in pipeline.nodes.values():
        source = node.payload.get("source") if node.kind == "read" else None
        if isinstance(source, ir.DataFrameSource):
            _frames.pop(source.key, None)
