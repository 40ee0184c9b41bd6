"""Every kind of source and sink, one entry each: its IR class (``panes.ir.io``), its API class
and how one lowers to the other and back. A user's own ``Source`` or ``Sink`` subclass is the
``custom`` kind: pickled, and run through its own ``read_records`` or ``write_records``.

``from_ir`` gives what runs: the API object.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from panes.ir import io as ir
from panes.ir.data import Pickled


@dataclass(frozen=True)
class IoKind:
    """What panes knows of one kind of source or sink; ``to_ir`` and ``from_ir`` default to
    copying the fields, which the two classes share."""

    ir: type
    api: type
    to_ir: Callable | None = None
    from_ir: Callable | None = None


def _copy(obj, cls, **changed):
    return cls(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(cls)} | changed)


@cache
def kinds() -> tuple:
    from panes.io import capture, dataframe, parquet, text

    def schema_to_ir(sink):
        schema = None if sink.schema is None else Pickled.of(sink.schema)
        return _copy(sink, ir.ParquetSink, schema=schema)

    def schema_from_ir(sink):
        schema = None if sink.schema is None else sink.schema.load()
        return _copy(sink, parquet.ParquetSink, schema=schema)

    return (
        IoKind(ir.TextSource, text.TextSource),
        IoKind(ir.ParquetSource, parquet.ParquetSource),
        IoKind(
            ir.DataFrameSource, dataframe.DataFrameSource, dataframe.register, dataframe.registered
        ),
        IoKind(ir.TextSink, text.TextSink),
        IoKind(ir.ParquetSink, parquet.ParquetSink, schema_to_ir, schema_from_ir),
        IoKind(ir.CaptureSink, capture.CaptureSink),
    )


def to_ir(obj):
    """The IR of an API source or sink."""
    from panes.io.base import Source

    kind = next((kind for kind in kinds() if type(obj) is kind.api), None)
    if kind is None:
        return (
            ir.CustomSource(Pickled.of(obj))
            if isinstance(obj, Source)
            else ir.CustomSink(Pickled.of(obj))
        )
    return kind.to_ir(obj) if kind.to_ir else _copy(obj, kind.ir)


def from_ir(obj):
    """The API source or sink that an IR one describes, for a runner to run."""
    if isinstance(obj, ir.CustomSource):
        return obj.source.load()
    if isinstance(obj, ir.CustomSink):
        return obj.sink.load()
    kind = next(kind for kind in kinds() if type(obj) is kind.ir)
    return kind.from_ir(obj) if kind.from_ir else _copy(obj, kind.api)
