"""A Spark DataFrame as a pipeline's input.

A DataFrame is a live object, not data the IR can hold, so the source names it by a handle in
a process-wide registry. The Spark runner reads it in place, partition by partition; the direct
runner collects its rows. Rows become dicts, as in ``ReadFromParquet``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from itertools import islice

from panes.errors import PipelineConstructionError, RunnerError
from panes.io.base import Read, Source
from panes.runners.fusion import CHUNK

_frames: dict = {}
_handles = itertools.count()


@dataclass(frozen=True)
class DataFrameSource(Source):
    handle: str

    def dataframe(self):
        try:
            return _frames[self.handle]
        except KeyError:
            raise RunnerError(
                f"DataFrame {self.handle} is not registered in this process: a pipeline that "
                f"reads a DataFrame runs in the process that built it") from None

    def read_records(self):
        return (row.asDict(recursive=True) for row in self.dataframe().toLocalIterator())


def ReadFromDataFrame(dataframe, label=None) -> Read:
    """Reads the rows of a Spark DataFrame as dicts, in partition order."""
    from pyspark.sql import DataFrame

    if not isinstance(dataframe, DataFrame):  # (a streaming DataFrame has no .rdd to probe)
        raise PipelineConstructionError(
            f"ReadFromDataFrame needs a pyspark.sql.DataFrame, got {type(dataframe).__name__}")
    handle = f"dataframe-{next(_handles)}"
    _frames[handle] = dataframe
    return Read(DataFrameSource(handle), label=label)


def dataframe_chunks(plan, source: DataFrameSource, label: str):
    """The rows as dicts, in chunks ``((partition,), offset, rows)``, and that each
    partition's positions rise."""
    def chunks(partition, rows):
        rows = iter(rows)
        offset = 0
        while chunk := [row.asDict(recursive=True) for row in islice(rows, CHUNK)]:
            yield (partition,), offset, chunk
            offset += len(chunk)

    return source.dataframe().rdd.mapPartitionsWithIndex(chunks).setName(label), True
