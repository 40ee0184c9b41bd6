"""A Spark DataFrame read in place (``panes.io.dataframe`` holds the source and its registry)."""

from __future__ import annotations

from itertools import islice

from panes.io.dataframe import ReadFromDataFrame
from panes.runners.fusion import CHUNK

__all__ = ["ReadFromDataFrame", "dataframe_chunks"]


def dataframe_chunks(plan, source, label: str):
    """The rows as dicts, in chunks ``((partition,), offset, rows)``, and that each
    partition's positions rise."""

    def chunks(partition, rows):
        rows = iter(rows)
        offset = 0
        while chunk := [row.asDict(recursive=True) for row in islice(rows, CHUNK)]:
            yield (partition,), offset, chunk
            offset += len(chunk)

    return source.dataframe.rdd.mapPartitionsWithIndex(chunks).setName(label), True
