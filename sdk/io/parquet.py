"""Parquet files through pyarrow: each record is a dict of column values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from panes.errors import PipelineConstructionError
from panes.io.base import Read, Sink, Source, Write
from panes.io.files import match_files, shard_names, split_evenly, write_shards


def read_parquet_file(path: str, columns=None) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=list(columns) if columns else None).to_pylist()


@dataclass(frozen=True)
class ParquetSource(Source):
    file_pattern: str
    columns: Optional[tuple] = None

    def files(self) -> list[str]:
        return match_files(self.file_pattern)

    def read_records(self):
        for path in self.files():
            yield from read_parquet_file(path, self.columns)


@dataclass(frozen=True)
class ParquetSink(Sink):
    file_path_prefix: str
    schema: object = None  # a pyarrow.Schema, or None to infer it from the records
    file_name_suffix: str = ".parquet"
    num_shards: int = 1
    shard_name_template: str = "-SSSSS-of-NNNNN"

    def write_records(self, records) -> list[str]:
        names = shard_names(self.file_path_prefix, self.file_name_suffix, self.num_shards,
                            self.shard_name_template)
        return write_shards(names, split_evenly(list(records), self.num_shards), self.write_shard)

    def write_shard(self, path: str, records) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.schema is None and not records:
            raise ValueError("cannot infer a Parquet schema from no records: give schema=")
        table = pa.Table.from_pylist(list(records), schema=self.schema)
        pq.write_table(table, path)


def ReadFromParquet(file_pattern: str, columns=None, label=None) -> Read:  # noqa: N802
    """Reads the rows of the Parquet files ``file_pattern`` matches, as dicts."""
    if not isinstance(file_pattern, str) or not file_pattern:
        raise PipelineConstructionError(
            f"ReadFromParquet needs a file path or glob pattern, got {file_pattern!r}")
    return Read(ParquetSource(file_pattern, tuple(columns) if columns else None), label=label)


def WriteToParquet(file_path_prefix: str, schema=None, file_name_suffix: str = ".parquet",  # noqa: N802
                   num_shards: int = 1, shard_name_template: str = "-SSSSS-of-NNNNN",
                   label=None) -> Write:
    """Writes dict records as Parquet rows (``schema``: a pyarrow.Schema, or inferred)."""
    if not isinstance(num_shards, int) or num_shards < 1:
        raise PipelineConstructionError(
            f"WriteToParquet needs num_shards >= 1, got {num_shards!r}")
    return Write(ParquetSink(file_path_prefix, schema, file_name_suffix, num_shards,
                             shard_name_template), label=label)
