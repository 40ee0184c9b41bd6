"""Text and Parquet shards written by the executors with Spark's own writers, then published
from the driver through Hadoop (``panes.io.commit``): no record passes through the driver.

Each partition of the written collection becomes a shard (``num_shards=0``); with
``num_shards=N`` the records are first range-partitioned by position into N consecutive,
sorted runs, so the shards hold what the direct runner's shards hold. The executors turn
records into rows a chunk at a time — text as the chunk's lines joined, Parquet as an Arrow
batch — and Spark writes them into a temporary directory under its commit protocol: each task
attempt writes apart, only one attempt per partition is committed, so retries and speculative
attempts never duplicate a shard.
"""

from __future__ import annotations

import functools
import posixpath
import random
from bisect import bisect_right
from itertools import islice

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.io.commit import write_and_publish
from panes.io.files import shard_names
from panes.io.filesystem import CompressionTypes
from panes.io.parquet import ParquetSink, record_batch
from panes.io.text import TextSink, encoded_lines
from panes.ir import io as ir
from panes.runners.fusion import CHUNK
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.hadoop import HadoopFileSystems
from panes.runners.spark.serializer import worker_output

SAMPLES_PER_SHARD = 20  # positions sampled per shard to cut the range partitions
_SPARK_TEXT_CODECS = {
    CompressionTypes.UNCOMPRESSED: "none",
    CompressionTypes.GZIP: "gzip",
    CompressionTypes.BZIP2: "bzip2",
    CompressionTypes.ZSTD: "zstd",
}


def row_frame(session, rows):
    """``rows`` of one binary column as a DataFrame of ``session``, the process's active
    session left as it was: PySpark's ``createDataFrame`` makes its session the active one
    for the whole Python process, and a micro-batch's session would outlive its query there
    (later pipelines and the user's code would run on it)."""
    from pyspark.sql import SparkSession

    active = SparkSession._activeSession
    try:
        return session.createDataFrame(rows, "row binary")
    finally:
        SparkSession._activeSession = active


def plan_file_write(node, collection, plan) -> None:
    fs = HadoopFileSystems(plan.sc)
    form_of, sink = _FORMS[type(node.payload["sink"])], lift(node.payload["sink"])
    label = node.id
    try:
        prefix = fs.qualified(sink.file_path_prefix)
    except OSError as error:  # no file system for its scheme
        raise UserCodeError(label, None, error) from None
    form = form_of(sink, label, plan, collection)

    def write(temporary):
        rows, shards = _shard_rows(plan, collection, sink, form, label)
        form.save(row_frame(plan.session, rows), temporary)
        return _renames(fs, sink, form, prefix, temporary, shards)

    plan.action(label, lambda: write_and_publish(fs, prefix, sink.shard_regex(), write))


class _TextForm:
    """Text rows: a chunk's lines joined by newlines (Spark's writer ends each row with one);
    each shard starts with the header."""

    def __init__(self, sink: TextSink, label, plan, collection):
        self.sink, self.label = sink, label
        self.compression = sink.compression()

    def first_rows(self) -> list:
        return [] if self.sink.header is None else [(self.sink.header.encode("utf-8"),)]

    def row(self, values) -> tuple:
        return (encoded_lines(self.label, values),)

    def save(self, frame, path: str) -> None:
        (
            frame.selectExpr("cast(row as string) as value")
            .write.option("compression", _SPARK_TEXT_CODECS[self.compression])
            .text(path)
        )

    def empty_shard(self) -> bytes:
        return _compressed(self.sink.header_bytes(), self.compression)


class _ParquetForm:
    """Parquet rows: a chunk's records as one Arrow batch, decoded again in Spark's Arrow
    path and written by Spark's Parquet writer."""

    def __init__(self, sink: ParquetSink, label, plan, collection):
        from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

        self.sink, self.label = sink, label
        self.schema = sink.schema_for(
            label, [] if sink.schema is not None else _sample(collection, plan, label)
        )
        try:
            self.spark_schema = from_arrow_schema(self.schema)
        except TypeError as error:
            raise UserCodeError(
                label,
                None,
                TypeError(
                    f"Spark cannot write the Parquet schema {self.schema} ({error}); give "
                    f"WriteToParquet a schema of types Spark supports"
                ),
            ) from error
        self.arrow_schema = to_arrow_schema(
            self.spark_schema, timezone="UTC", prefers_large_types=False
        )

    def first_rows(self) -> list:
        return []

    def row(self, values) -> tuple:
        import pyarrow as pa

        batch = record_batch(self.label, list(values), self.schema)
        out = pa.BufferOutputStream()
        with pa.ipc.new_stream(out, batch.schema) as stream:
            stream.write_batch(batch)
        return (out.getvalue().to_pybytes(),)

    def save(self, frame, path: str) -> None:
        target = self.arrow_schema

        def decoded(batches):
            import pyarrow as pa

            for batch in batches:
                for raw in batch.column(0).to_pylist():
                    yield pa.ipc.open_stream(raw).read_next_batch().cast(target)

        codec = "uncompressed" if self.sink.codec == "none" else self.sink.codec
        # Timestamps as Parquet's microsecond timestamps, as pyarrow writes them (Spark's
        # default is the legacy INT96), for this write only.
        conf, setting = frame.sparkSession.conf, "spark.sql.parquet.outputTimestampType"
        before = conf.get(setting)
        conf.set(setting, "TIMESTAMP_MICROS")
        try:
            frame.mapInArrow(decoded, self.spark_schema).write.option("compression", codec).parquet(
                path
            )
        finally:
            conf.set(setting, before)

    def empty_shard(self) -> bytes:
        import pyarrow as pa
        import pyarrow.parquet as pq

        out = pa.BufferOutputStream()
        pq.write_table(self.schema.empty_table(), out, compression=self.sink.codec)
        return out.getvalue().to_pybytes()


_FORMS = {ir.TextSink: _TextForm, ir.ParquetSink: _ParquetForm}
FILE_SINKS = tuple(_FORMS)


def form_for(ir_sink, sink, label: str):
    """How Spark's writer writes ``sink``'s records as rows, the sink lifted from ``ir_sink``
    (a Parquet sink with its schema, for there is no collection to sample here)."""
    return _FORMS[type(ir_sink)](sink, label, None, None)


def part_files(fs, directory: str) -> dict:
    """The part files Spark's writer left in ``directory``, by the partition that wrote each."""
    return {
        int(name.split("-")[1]): posixpath.join(directory, name)
        for name in fs.list_directory(directory)
        if name.startswith("part-")
    }


def _sample(collection, plan, label) -> list:
    """The first records, for a schema inferred from them."""
    return [value for _, value in _pairs(collection, plan, f"{label} (schema sample)").take(1000)]


class _Rows:
    """A partition loop's sink: the shard's first rows (a header), then a row per chunk."""

    def __init__(self, form, ordered, cell):
        self.form, self.out = form, list(form.first_rows())

    def push(self, chunk):
        self.out.append(self.form.row(chunk.values))

    def drain(self):
        yield from self.out
        self.out.clear()

    def finish(self):
        return ()


class _Pairs:
    """A partition loop's sink keeping ``(position, value)`` pairs."""

    def __init__(self, ordered, cell):
        self.out: list = []

    def push(self, chunk):
        self.out.extend(zip(chunk.positions, chunk.values))

    def drain(self):
        yield from self.out
        self.out.clear()

    def finish(self):
        return ()


def _pairs(collection, plan, name):
    return collection.work().run(_Pairs, plan.metrics_accumulator, name)


def _shard_rows(plan, collection, sink, form, label) -> tuple:
    """The rows of each shard, a partition per shard, and the shard count."""
    if not sink.num_shards:
        rows = collection.work().run(
            functools.partial(_Rows, form), plan.metrics_accumulator, f"{label} (rows)"
        )
        return rows, rows.getNumPartitions()
    shards = sink.num_shards
    pairs = plan.persist(_pairs(collection, plan, f"{label} (positions)"))
    bounds = _range_bounds(plan, pairs, shards, label)

    def shard_rows(pairs_in_order):
        yield from form.first_rows()
        values = (value for _, value in pairs_in_order)
        while chunk := list(islice(values, CHUNK)):
            yield form.row(chunk)

    ordered = pairs.repartitionAndSortWithinPartitions(
        shards, lambda position: bisect_right(bounds, position)
    )
    return worker_output(ordered.mapPartitions(worker_generator(shard_rows))), shards


def _range_bounds(plan, pairs, shards: int, label: str) -> list:
    """Positions cutting the records into ``shards`` runs of about equal size, from a sample
    of each partition (the driver sees ``SAMPLES_PER_SHARD`` positions per shard)."""
    if shards == 1:
        return []
    per_partition = -(-shards * SAMPLES_PER_SHARD // pairs.getNumPartitions())

    def sample(partition, records):
        picked, generator, seen = [], random.Random(partition), -1
        for seen, (position, _) in enumerate(records):
            if seen < per_partition:
                picked.append(position)
            elif (slot := generator.randrange(seen + 1)) < per_partition:
                picked[slot] = position
        yield picked, seen + 1 if picked else 0

    samples = plan.action(label, pairs.mapPartitionsWithIndex(sample).collect)
    weighted = sorted(
        (position, count / len(picked)) for picked, count in samples for position in picked
    )
    total = sum(weight for _, weight in weighted)
    bounds: list = []
    passed = 0.0
    for position, weight in weighted:
        passed += weight
        if passed >= total * (len(bounds) + 1) / shards and len(bounds) < shards - 1:
            bounds.append(position)
    return bounds


def _renames(fs, sink, form, prefix: str, temporary: str, shards: int) -> list:
    """``(temporary path, final name)`` of every shard: Spark's part file of each partition,
    or, where a partition wrote none (no rows), an empty shard written here."""
    names = shard_names(prefix, sink.file_name_suffix, shards, sink.shard_name_template)
    written = part_files(fs, temporary)
    renames = []
    for index, final in enumerate(names):
        path = written.get(index)
        if path is None:
            path = posixpath.join(temporary, f"empty-{index}")
            with fs.create(path) as out:
                out.write(form.empty_shard())
        renames.append((path, final))
    return renames


def _compressed(data: bytes, compression: str) -> bytes:
    import pyarrow as pa

    codec = {
        CompressionTypes.GZIP: "gzip",
        CompressionTypes.BZIP2: "bz2",
        CompressionTypes.ZSTD: "zstd",
    }.get(compression)
    if codec is None:
        return data
    out = pa.BufferOutputStream()
    with pa.CompressedOutputStream(out, codec) as stream:
        stream.write(data)
    return out.getvalue().to_pybytes()
