"""Sources and sinks in the IR: what a Read reads and a Write writes (text and Parquet files, a
Spark DataFrame named by its registry key, a test capture, or a user's own pickled source or
sink), the watermark strategy a source is read under (Flink's ``WatermarkStrategy``) and a
TestStream's events (Beam's ``TestStreamPayload``), in int64 µs. ``panes.io.kinds`` lowers the
API's sources and sinks to these and back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from panes.ir.data import (
    AtLeast,
    Count,
    Duration,
    Family,
    Micros,
    NonEmpty,
    Pickled,
    PositiveDuration,
)

Path = Annotated[str, NonEmpty()]
Compression = Literal["auto", "bzip2", "gzip", "zstd", "uncompressed"]
ParquetCodec = Literal["none", "snappy", "gzip", "brotli", "lz4", "zstd"]
Shards = Annotated[int, AtLeast(0)]  # 0: the runner chooses


class Source(Family):
    """Base of the sources a ``read`` node reads."""

    FAMILY = "source"


@dataclass(frozen=True)
class TextSource(Source):
    """The lines of the files ``file_pattern`` matches, after each file's header lines."""

    KIND = "text"

    file_pattern: Path
    skip_header_lines: Annotated[int, AtLeast(0)] = 0
    compression_type: Compression = "auto"


@dataclass(frozen=True)
class ParquetSource(Source):
    """The rows (dicts) of the Parquet files ``file_pattern`` matches; ``columns``: all if None."""

    KIND = "parquet"

    file_pattern: Path
    columns: Annotated[tuple[str, ...], NonEmpty()] | None = None


@dataclass(frozen=True)
class DataFrameSource(Source):
    """The rows of a Spark DataFrame, a live object the IR names by its key in
    ``panes.io.dataframe``'s registry (valid in the process that built the pipeline, until
    its run ends)."""

    KIND = "dataframe"

    key: Path


@dataclass(frozen=True)
class CustomSource(Source):
    """A user's own ``Source`` subclass, pickled; runners call its ``read_records``."""

    KIND = "custom"

    source: Pickled


class Sink(Family):
    """Base of the sinks a ``write`` node writes."""

    FAMILY = "sink"


@dataclass(frozen=True)
class TextSink(Sink):
    """A line per element in shards named ``prefix + template + suffix``."""

    KIND = "text"

    file_path_prefix: Path
    file_name_suffix: str = ""
    num_shards: Shards = 0
    shard_name_template: str = "-SSSSS-of-NNNNN"
    header: str | None = None
    compression_type: Compression = "auto"


@dataclass(frozen=True)
class ParquetSink(Sink):
    """Dict records as Parquet rows; ``schema``: a pickled pyarrow schema, or None to infer it
    from the records."""

    KIND = "parquet"

    file_path_prefix: Path
    schema: Pickled | None = None
    file_name_suffix: str = ".parquet"
    num_shards: Shards = 0
    shard_name_template: str = "-SSSSS-of-NNNNN"
    codec: ParquetCodec = "none"


@dataclass(frozen=True)
class CaptureSink(Sink):
    """A test capture: the runner hands the windowed values back in the pipeline result."""

    KIND = "capture"

    capture_id: Path


@dataclass(frozen=True)
class CustomSink(Sink):
    """A user's own ``Sink`` subclass, pickled; runners call its ``write_records``."""

    KIND = "custom"

    sink: Pickled


@dataclass(frozen=True)
class WatermarkStrategy:
    """The watermark trails the largest timestamp seen by ``max_out_of_orderness``, updated
    after every ``emit_every``-th record; a source without records for ``idle_timeout`` of
    processing time is idle (None: never)."""

    max_out_of_orderness: Duration = 0
    idle_timeout: Duration | None = None
    emit_every: Count = 1


class TestStreamEvent(Family):
    """Base of a TestStream's events; each is one step of the event log."""

    __test__ = False  # not a pytest test class
    FAMILY = "test stream event"


@dataclass(frozen=True)
class AddElements(TestStreamEvent):
    """One bundle: the values (pickled, in order) at their ``timestamps``."""

    KIND = "elements"

    values: Pickled
    timestamps: tuple[Micros, ...]


@dataclass(frozen=True)
class AdvanceWatermark(TestStreamEvent):
    KIND = "watermark"

    watermark: Micros


@dataclass(frozen=True)
class AdvanceProcessingTime(TestStreamEvent):
    KIND = "processing_time"

    advance: PositiveDuration
