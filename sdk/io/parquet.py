"""Parquet files through pyarrow: each record is a dict of column values, read and written a
columnar batch at a time."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from panes.errors import PipelineConstructionError, UserCodeError
from panes.io.base import Read, Sink, Source, Write
from panes.io.commit import write_and_publish
from panes.io.files import (
    DEFAULT_SHARD_TEMPLATE,
    match_files,
    shard_names,
    shard_pattern,
    split_evenly,
)
from panes.io.filesystem import CompressionTypes
from panes.io.filesystems import FileSystems
from panes.io.text import shard_count

CODECS = ("none", "snappy", "gzip", "brotli", "lz4", "zstd")


@dataclass(frozen=True)
class ParquetSource(Source):
    file_pattern: str
    columns: tuple | None = None

    def files(self) -> list[str]:
        return [file.path for file in match_files(FileSystems, self.file_pattern)]

    def read_records(self):
        import pyarrow.parquet as pq

        columns = list(self.columns) if self.columns else None
        for path in self.files():
            with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as file:
                for batch in pq.ParquetFile(file).iter_batches(columns=columns):
                    yield from batch.to_pylist()


@dataclass(frozen=True)
class ParquetSink(Sink):
    file_path_prefix: str
    schema: object = None  # a pyarrow.Schema, or None to infer it from the records
    file_name_suffix: str = ".parquet"
    num_shards: int = 0
    shard_name_template: str = DEFAULT_SHARD_TEMPLATE
    codec: str = "none"

    def shard_regex(self):
        return shard_pattern(self.file_path_prefix, self.file_name_suffix, self.shard_name_template)

    def schema_for(self, label: str, sample: list):
        """The files' schema: the given one, or what pyarrow infers from ``sample``."""
        import pyarrow as pa

        if self.schema is not None:
            return self.schema
        if not sample:
            raise UserCodeError(
                label,
                None,
                ValueError(
                    "cannot infer a Parquet schema from no records: give WriteToParquet(schema=...)"
                ),
            )
        try:
            return pa.Table.from_pylist(sample).schema
        except (pa.ArrowException, TypeError, ValueError) as error:
            raise UserCodeError(
                label,
                None,
                ValueError(
                    f"cannot infer a Parquet schema from the records ({error}): give "
                    f"WriteToParquet(schema=...)"
                ),
            ) from error

    def write_records(self, records, label: str = "") -> list[str]:
        """Writes ``num_shards`` shards (one when the runner may choose) through
        ``FileSystems``, each a consecutive run of ``records``, and publishes them."""
        records = list(records)
        schema = self.schema_for(label, records)
        prefix = FileSystems.absolute(self.file_path_prefix)
        count = self.num_shards or 1
        names = shard_names(prefix, self.file_name_suffix, count, self.shard_name_template)

        def write(temporary):
            renames = []
            for final, shard in zip(names, split_evenly(records, count)):
                path = posixpath.join(temporary, posixpath.basename(final))
                self.write_shard(path, shard, label, schema)
                renames.append((path, final))
            return renames

        return write_and_publish(FileSystems, prefix, self.shard_regex(), write)

    def write_shard(self, path: str, records: list, label: str = "", schema=None) -> None:
        """One shard at ``path`` through ``FileSystems``, of ``schema`` (None: ``schema_for``
        these records; a streaming run writes one per micro-batch and partition)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = schema if schema is not None else self.schema_for(label, records)
        table = pa.Table.from_batches([record_batch(label, records, schema)], schema)
        with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as out:
            pq.write_table(table, out, compression=self.codec)


def record_batch(label: str, records: list, schema):
    """``records`` as an Arrow batch of ``schema``; a record that does not fit fails naming
    it."""
    import pyarrow as pa

    try:
        return pa.RecordBatch.from_pylist(records, schema=schema)
    except (pa.ArrowException, TypeError, ValueError) as error:
        for record in records:
            try:
                pa.RecordBatch.from_pylist([record], schema=schema)
            except (pa.ArrowException, TypeError, ValueError) as failure:
                raise UserCodeError(label, record, failure) from None
        raise UserCodeError(label, None, error) from error


def ReadFromParquet(file_pattern: str, columns=None, label=None) -> Read:  # noqa: N802
    """Reads the rows of the Parquet files ``file_pattern`` matches, as dicts."""
    if not isinstance(file_pattern, str) or not file_pattern:
        raise PipelineConstructionError(
            f"ReadFromParquet needs a file path or glob pattern, got {file_pattern!r}"
        )
    return Read(ParquetSource(file_pattern, tuple(columns) if columns else None), label=label)


def WriteToParquet(
    file_path_prefix: str,
    schema=None,
    *,
    codec: str = "none",  # noqa: N802
    file_name_suffix: str = ".parquet",
    num_shards: int = 0,
    shard_name_template: str | None = None,
    label=None,
) -> Write:
    """Writes dict records as Parquet rows (``schema``: a pyarrow.Schema, or inferred from the
    records) into shards named as ``WriteToText`` names them."""
    if codec not in CODECS:
        raise PipelineConstructionError(
            f"WriteToParquet: unknown codec {codec!r}; use one of {', '.join(CODECS)}"
        )
    template = DEFAULT_SHARD_TEMPLATE if shard_name_template is None else shard_name_template
    num_shards = shard_count("WriteToParquet", num_shards, template)
    return Write(
        ParquetSink(file_path_prefix, schema, file_name_suffix, num_shards, template, codec),
        label=label,
    )
