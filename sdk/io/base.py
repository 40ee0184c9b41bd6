"""Read and Write: the primitives behind every source and sink.

A source or sink is a frozen dataclass (structured data in the IR). ``read_records`` and
``write_records`` are the in-process implementations the direct runner uses; the Spark runner
may plan well-known formats natively.
"""

from __future__ import annotations

from panes.errors import PipelineConstructionError
from panes.pvalue import PBegin, PDone
from panes.transforms.ptransform import PrimitiveTransform, SourceTransform, require_pcollection
from panes.windowing.strategy import WindowingStrategy


class Source:
    """Base of source dataclasses; ``read_records`` yields the source's elements in order."""

    def read_records(self):
        raise NotImplementedError


class SourceError(Exception):
    """A record a source cannot read; ``where`` says which (a file and line, say), and the
    runner reports it as the Read transform's error."""

    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where = where

    def __reduce__(self):  # it crosses from Spark's workers to the driver
        return type(self), (self.where, str(self))


class Sink:
    """Base of sink dataclasses; ``write_records`` writes all elements, publishing them only
    once all are written; ``label`` names the Write transform in errors."""

    def write_records(self, records, label: str = "") -> list[str]:
        raise NotImplementedError


class Read(SourceTransform):
    """Reads a bounded source."""

    ir_kind = "read"

    def __init__(self, source: Source, label=None):
        super().__init__(label)
        if not isinstance(source, Source):
            raise PipelineConstructionError(f"Read needs a Source, got {type(source).__name__}")
        self.source = source

    def default_label(self) -> str:
        return f"Read({type(self.source).__name__})"

    def expand(self, pbegin):
        if not isinstance(pbegin, PBegin):
            raise PipelineConstructionError(
                f"{self.default_label()} starts a pipeline: apply it as p | Read(...)")
        return pbegin.pipeline.new_output(windowing=WindowingStrategy())

    def ir_payload(self):
        return {"source": self.source, **self.source_timing()}


class Write(PrimitiveTransform):
    """Writes a collection to a sink; the output appears only when the write succeeded."""

    ir_kind = "write"

    def __init__(self, sink: Sink, label=None):
        super().__init__(label)
        if not isinstance(sink, Sink):
            raise PipelineConstructionError(f"Write needs a Sink, got {type(sink).__name__}")
        self.sink = sink

    def default_label(self) -> str:
        return f"Write({type(self.sink).__name__})"

    def expand(self, pcoll):
        require_pcollection(self, pcoll, self.label or self.default_label())
        return PDone(pcoll.pipeline)

    def ir_payload(self):
        return {"sink": self.sink}
