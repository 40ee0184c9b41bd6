"""Text and Parquet files read on the executors, never through the driver.

The driver matches the files through Hadoop (any scheme the cluster knows) and plans one
DataFrame read over them with Spark's own readers; its rows reach the Python workers as Arrow
batches, columns at a time. Each row carries where it came from — its file, and the split
(text) or row index (Parquet) in it — so the records get the positions the direct runner's
order gives them, however Spark packs splits into partitions. Local text files (``file:``,
which Spark requires every node to see at the same path) skip the JVM: the Python workers read
byte ranges of them, with the same positions and line rules.

A native source's RDD holds chunks ``(segment, offset, records)``: consecutive records of one
segment of the source — ``(file index, split start)`` for text, ``(file index,)`` for Parquet
— the first at ``offset`` in it.
"""

from __future__ import annotations

from urllib.parse import urlparse

from panes.errors import UserCodeError
from panes.io.base import SourceError
from panes.io.files import match_files
from panes.io.filesystem import CompressionTypes
from panes.io.filesystems import FileSystems
from panes.io.text import decoded, header_lines, line_place
from panes.runners.fusion import CHUNK
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.hadoop import HadoopFileSystems, literal

FILE, PLACE = "__panes_file__", "__panes_place__"
LOCAL_SPLIT_BYTES = 32 << 20


def matched(plan, label: str, pattern: str) -> list:
    """The ``FileMetadata`` of the files ``pattern`` names, resolved on the driver (a relative
    path against its working directory), in path order."""
    fs = HadoopFileSystems(plan.sc)
    try:
        return match_files(fs, fs.qualified(pattern))
    except OSError as error:  # no such file, or no file system for its scheme
        raise UserCodeError(label, None, error) from None


def text_chunks(plan, source, label: str) -> tuple:
    """The lines of a ``TextSource``'s files and whether each partition's positions rise:
    local files (``file:``, which Spark requires every node to see) split into byte ranges
    the Python workers read themselves, without a trip through the JVM; any other file
    system's split by Spark's line reader. Lines are decoded on the workers."""
    files = matched(plan, label, source.file_pattern)
    if source.compression_type != CompressionTypes.AUTO and any(
        CompressionTypes.detect_compression_type(file.path) != source.compression_type
        for file in files
    ):
        raise UserCodeError(
            label,
            None,
            ValueError(
                "on Spark a file's compression is known by its extension (.gz, .bz2, .zst): "
                "name the files so, or read them with compression_type=CompressionTypes.AUTO"
            ),
        )
    if all(file.path.startswith("file:") for file in files):
        return _local_text_chunks(plan, files, source.skip_header_lines, label), True
    from pyspark.sql import functions as F

    paths = [file.path for file in files]
    frame = plan.session.read.text([literal(path) for path in paths])
    frame = frame.select(
        F.col("value").cast("binary"),
        _file_index(plan, paths).alias(FILE),
        F.col("_metadata.file_block_start").alias(PLACE),
    )
    skip = source.skip_header_lines

    def records(batch, file, path, start, offset):
        """``batch``'s lines: decoded, less the file's header lines."""
        values = decoded_column(batch.column(0), line_place(path, start, offset))
        dropped = header_lines(skip, start, offset)
        return (file, start), offset + dropped, values[dropped:]

    return _arrow_chunks(plan, frame, paths, records, label), False


def _local_text_chunks(plan, files: list, skip: int, label: str):
    """Local files in byte ranges of at most ``LOCAL_SPLIT_BYTES`` (at least one per
    partition) cut just after a newline, each read by a Python worker; a compressed file is
    one range."""
    total = sum(file.size_in_bytes for file in files)
    size = max(1, min(LOCAL_SPLIT_BYTES, -(-total // plan.partitions)))
    splits = [
        split for index, file in enumerate(files) for split in _byte_ranges(index, file, size)
    ]

    def chunks(split):
        index, path, start, end = split
        local = urlparse(path).path
        if end is None:
            with FileSystems.open(local) as stream:
                data = stream.read()
        else:
            with open(local, "rb") as raw:
                raw.seek(start)
                data = raw.read(end - start)
        lines = data.splitlines()
        for offset in range(0, len(lines), CHUNK):
            values = decoded(lines[offset : offset + CHUNK], _local_place(path, start, offset))
            dropped = header_lines(skip, start, offset)
            if values[dropped:]:
                yield (index, start), offset + dropped, values[dropped:]

    if not splits:
        return plan.sc.emptyRDD()
    return (
        plan.sc.parallelize(splits, len(splits))
        .flatMap(worker_generator(_source_errors(label, chunks)))
        .setName(label)
    )


def _local_place(path: str, start: int, offset: int):
    """``line_place`` of a local file's lines from byte ``start``, counting the file's lines
    before it when asked (only a failing line is), so the line number is the file's."""

    def where(index):
        return line_place(path, 0, _lines_before(urlparse(path).path, start) + offset)(index)

    return where


def _lines_before(local: str, start: int) -> int:
    """How many lines end in the first ``start`` bytes of a file (at ``\n``, ``\r\n`` or
    ``\r``)."""
    count, previous = 0, b""
    with open(local, "rb") as raw:
        while raw.tell() < start:
            block = raw.read(min(1 << 20, start - raw.tell()))
            if not block:
                break
            joined = previous + block
            count += (
                joined.count(b"\n")
                + joined.count(b"\r")
                - joined.count(b"\r\n")
                - (previous.count(b"\n") + previous.count(b"\r"))
            )
            previous = block[-1:]
    return count


def _byte_ranges(index: int, file, size: int) -> list:
    """``(file index, path, start, end)`` ranges of about ``size`` bytes covering the file,
    each cut just after a newline; ``end`` None: the whole file, decompressed."""
    if CompressionTypes.detect_compression_type(file.path) != CompressionTypes.UNCOMPRESSED:
        return [(index, file.path, 0, None)]
    cuts, length = [0], file.size_in_bytes
    with open(urlparse(file.path).path, "rb") as raw:
        for target in range(size, length, size):
            if target > cuts[-1]:
                raw.seek(target - 1)  # a newline just before the target cuts there
                raw.readline()
                cuts.append(raw.tell())
    cuts = sorted({cut for cut in cuts if cut < length}) + [length]
    return [(index, file.path, start, end) for start, end in zip(cuts, cuts[1:])]


def _source_errors(label: str, fn):
    """``fn`` with a record it cannot read reported as the Read transform's error."""

    def reading(*args):
        try:
            yield from fn(*args)
        except SourceError as error:
            raise UserCodeError(label, error.where, error) from None

    return reading


def parquet_chunks(plan, source, label: str):
    """The rows of a ``ParquetSource``'s files, read by Spark's Parquet reader, as dicts."""
    files = [file.path for file in matched(plan, label, source.file_pattern)]
    from pyspark.sql import functions as F

    frame = plan.session.read.parquet(*[literal(path) for path in files])
    columns = list(source.columns) if source.columns else frame.columns
    frame = frame.select(
        *[F.col(f"`{name}`") for name in columns],
        _file_index(plan, files).alias(FILE),
        F.col("_metadata.row_index").alias(PLACE),
    )

    def records(batch, file, path, row, offset):
        import pyarrow as pa

        rows = pa.RecordBatch.from_arrays(batch.columns[:-2], names=columns).to_pylist()
        return (file,), row, rows

    return _arrow_chunks(plan, frame, files, records, label), False


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
                segment, first, values = records(run, file, files[file], place, offset)
                if values:
                    yield segment, first, values

    return (
        RDD(java_batches, plan.sc, NoOpSerializer())
        .mapPartitions(worker_generator(_source_errors(label, chunks)))
        .setName(label)
    )


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
    cuts: set = set()
    for column in columns:
        changed = pc.not_equal(column.slice(1), column.slice(0, count - 1))
        cuts.update(index + 1 for index in pc.indices_nonzero(changed).to_pylist())
    bounds = [0, *sorted(cuts), count]
    return list(zip(bounds, bounds[1:]))
