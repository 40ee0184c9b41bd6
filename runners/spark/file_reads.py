"""Text and Parquet files read by Spark's own readers, on the executors.

The driver matches the files through Hadoop (any scheme the cluster knows) and plans one
DataFrame read over them; its rows reach the Python workers as Arrow batches, columns at a
time, never through the driver. Each row carries where it came from — its file, and the split
(text) or row index (Parquet) in it — so the records get the positions the direct runner's
order gives them, however Spark packs splits into partitions.

A native source's RDD holds chunks ``(segment, offset, records)``: consecutive records of one
segment of the source — ``(file index, split start)`` for text, ``(file index,)`` for Parquet
— the first at ``offset`` in it.
"""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.io.base import SourceError
from panes.io.filesystem import CompressionTypes
from panes.io.files import match_files
from panes.io.text import decoded
from panes.runners.fusion import CHUNK
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.hadoop import HadoopFileSystems, literal

FILE, PLACE = "__panes_file__", "__panes_place__"


def matched(plan, label: str, pattern: str) -> list[str]:
    """The files ``pattern`` names, resolved on the driver (a relative path against its
    working directory), in path order."""
    fs = HadoopFileSystems(plan.sc)
    try:
        return [file.path for file in match_files(fs, fs.qualified(pattern))]
    except FileNotFoundError as error:
        raise UserCodeError(label, None, error) from None


def text_chunks(plan, source, label: str):
    """The lines of a ``TextSource``'s files, split by Spark's line reader, decoded here."""
    files = matched(plan, label, source.file_pattern)
    if source.compression_type != CompressionTypes.AUTO and any(
            CompressionTypes.detect_compression_type(path) != source.compression_type
            for path in files):
        raise UserCodeError(label, None, ValueError(
            "on Spark a file's compression is known by its extension (.gz, .bz2, .zst): "
            "name the files so, or read them with compression_type=CompressionTypes.AUTO"))
    from pyspark.sql import functions as F

    frame = plan.session.read.text([literal(path) for path in files])
    frame = frame.select(F.col("value").cast("binary"), _file_index(plan, files).alias(FILE),
                         F.col("_metadata.file_block_start").alias(PLACE))
    skip = source.skip_header_lines

    def records(batch, file, path, start, offset):
        """``batch``'s lines: decoded, less the file's header lines."""
        def where(index):
            line = offset + index + 1
            return f"{path}, line {line}" if start == 0 else \
                f"{path}, line {line} of the split at byte {start}"

        values = decoded_column(batch.column(0), where)
        dropped = max(0, skip - offset) if start == 0 else 0
        return (file, start), offset + dropped, values[dropped:]

    return _arrow_chunks(plan, frame, files, records, label)


def parquet_chunks(plan, source, label: str):
    """The rows of a ``ParquetSource``'s files, read by Spark's Parquet reader, as dicts."""
    files = matched(plan, label, source.file_pattern)
    from pyspark.sql import functions as F

    frame = plan.session.read.parquet(*[literal(path) for path in files])
    columns = list(source.columns) if source.columns else frame.columns
    frame = frame.select(*[F.col(f"`{name}`") for name in columns],
                         _file_index(plan, files).alias(FILE),
                         F.col("_metadata.row_index").alias(PLACE))

    def records(batch, file, path, row, offset):
        import pyarrow as pa

        rows = pa.RecordBatch.from_arrays(batch.columns[:-2], names=columns).to_pylist()
        return (file,), row, rows

    return _arrow_chunks(plan, frame, files, records, label)


def decoded_column(column, where) -> list:
    """A binary Arrow column's values as text, checked as UTF-8 in one pass."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(column, pa.string()).to_pylist()
    except pa.ArrowInvalid:
        return decoded(column.to_pylist(), where)


def _arrow_chunks(plan, frame, files: list, records, label: str):
    """``frame`` (data columns, then ``FILE``, the file's index, and ``PLACE``) as chunks:
    ``records(batch, file index, path, place, offset)`` turns a run of rows from one file and
    place into ``(segment, offset, records)``, ``offset`` counting the rows a segment had
    before."""
    from pyspark.rdd import RDD
    from pyspark.serializers import NoOpSerializer
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(frame.schema, timezone="UTC", prefers_large_types=False)
    java_batches = frame._jdf.toArrowBatchRdd(CHUNK, "UTC", True, False).toJavaRDD()

    def chunks(batches):
        import pyarrow as pa

        seen: dict = {}
        for raw in batches:
            batch = pa.ipc.read_record_batch(pa.py_buffer(raw), schema)
            for begin, end in _runs(batch):
                run = batch.slice(begin, end - begin)
                file, place = run.column(-2)[0].as_py(), run.column(-1)[0].as_py()
                offset = seen.get((file, place), 0)
                seen[(file, place)] = offset + len(run)
                try:
                    segment, first, values = records(run, file, files[file], place, offset)
                except SourceError as error:
                    raise UserCodeError(label, error.where, error) from None
                if values:
                    yield segment, first, values

    return RDD(java_batches, plan.sc, NoOpSerializer()).mapPartitions(
        worker_generator(chunks)).setName(label)


def _file_index(plan, files: list):
    """A column of each row's file's index in ``files``, looked up in the JVM by the path
    Spark's ``_metadata.file_path`` gives: the file's URI, encoded."""
    from pyspark.sql import functions as F

    to_uri = plan.sc._jvm.org.apache.hadoop.fs.Path
    uris = [to_uri(path).toUri().toString() for path in files]
    # Two array literals, folded into one map literal by Spark's optimizer, however many files.
    indexes = F.map_from_arrays(F.lit(uris), F.lit(list(range(len(files)))))
    return F.element_at(indexes, F.col("_metadata.file_path"))


def _runs(batch) -> list:
    """``(begin, end)`` of the runs of rows with the same ``FILE`` and ``PLACE``. A split's
    rows are consecutive in its partition, so a batch that starts and ends in the same split
    is one run."""
    import pyarrow.compute as pc

    count = batch.num_rows
    columns = (batch.column(-2), batch.column(-1))
    if count == 0:
        return []
    if all(column[0] == column[count - 1] for column in columns):
        return [(0, count)]
    cuts = set()
    for column in columns:
        changed = pc.not_equal(column.slice(1), column.slice(0, count - 1))
        cuts.update(index + 1 for index in pc.indices_nonzero(changed).to_pylist())
    bounds = [0, *sorted(cuts), count]
    return list(zip(bounds, bounds[1:]))
