"""The Spark SQL query of a lowered aggregation (see ``panes.runners.spark.lowering``).

It reads only the fields the aggregation names, computes event time as ``WithTimestampField``
does, assigns ``window`` or ``session_window`` and groups by key and window (sliding windows
whose size is a multiple of their period go through period-long slices, so a row is aggregated
once, not once per window). Besides the aggregates it takes the minimum of each row's packed
source position — the position the ordinary plan gives the row: Parquet files are numbered in
``match_files`` order and rows by their index in the file (``_metadata.row_index``); a
DataFrame's rows by partition and index there, which is what ``monotonically_increasing_id``
packs. Where Python would fail (a None, NaN, infinite or out-of-range time, a None aggregated
value) the query fails with the same ``UserCodeError``.

``build_query`` gives None whenever Spark SQL and the Python path might disagree: a field type
other than plain integers, floats, strings and booleans (and UTC timestamps for event time), a
missing field, a file Spark could read differently.
"""

from __future__ import annotations

import decimal
import functools
import math

from panes.compiler.lift import lift
from panes.errors import RunnerError, UserCodeError
from panes.ir import io
from panes.ir import windowing as ir
from panes.ir.rows import BuiltinCombine
from panes.runners.spark.errors import transported
from panes.timestamp import (
    MAX_MICROS,
    MICROS_PER_SECOND,
    MIN_MICROS,
    check_timestamps,
    outside_range,
)
from panes.transforms.group_by import missing_value_message
from panes.transforms.timestamps import TimestampFromField

# A source position (FIRST_STEP, partition, index) packed in one long, as Spark's
# monotonically_increasing_id packs a DataFrame's (partition, row): the index in the low bits.
INDEX_BITS = 33
POSITION = "__panes_position__"
EVENT_TIME, EVENT_MICROS = "__panes_event_time__", "__panes_event_micros__"
# A streaming session's row: where its session starts in Spark, and its session's least time.
SESSION_FROM, FIRST = "__panes_session_from__", "__panes_first__"
# Sessions' gaps below this many micros: a row's gap goes to Spark as decimal(18, 6) seconds.
_GAP_LIMIT = 10**17
# How integer sums are computed (``_sum``).
TRY_SUMS, DECIMAL_SUMS, SPLIT_SUMS = "try", "decimal", "split"


def build_query(aggregation, session, exact: bool = False):
    """The lowered aggregation as a lazy DataFrame with columns ``key0..``, ``start`` and
    ``end`` (micros), ``aggregate0..`` and ``first`` (the group's least packed position); or
    None when the input is not one the query reproduces exactly.

    Integer sums are 64-bit and null where they overflow (``try_sum``); ``exact`` sums them as
    38-digit decimals instead, for a rerun when one did. A mean's aggregate is its sum and
    count (``finished`` divides as ``MeanFn`` does)."""
    from pyspark.sql import functions as F

    read = _input(aggregation, session)
    if read is None:
        return None
    frame, types, nullable = read
    if not _types_fit(aggregation, types):
        return None
    time = F.timestamp_micros(_event_micros(aggregation, types, nullable))
    window_fn = aggregation.strategy.window_fn
    sums = DECIMAL_SUMS if exact else TRY_SUMS
    keys, partials, names, per_row, results = _aggregates(aggregation, types, nullable, sums)
    if _by_slices(window_fn):
        return _sliding_by_slices(frame, keys, time, window_fn, partials, names, per_row, results)
    if isinstance(window_fn, ir.Sessions):
        window, end_shift = _session_window(time, window_fn), 1
    else:
        window = _window(time, window_fn.size, period_of(window_fn), window_fn.offset)
        end_shift = 0
    return (
        frame.groupBy(*keys, window.alias("window"))
        .agg(*per_row, F.min(POSITION).alias("first"))
        .select(
            *_key_names(keys),
            F.unix_micros("window.start").alias("start"),
            (F.unix_micros("window.end") + end_shift).alias("end"),
            *results,
            "first",
        )
    )


def build_streaming_query(aggregation, frame, delay: int, late_filter):
    """The lowered aggregation of a streaming DataFrame (``shortcuts``' streaming chain), with
    columns ``key0..``, ``start``, ``end`` and ``aggregate0..``: each window's row once
    Spark's watermark — the largest event time less ``delay`` micros, as the source's strategy
    gives it — passes the window's end; or None as for ``build_query``, and for sessions whose
    ends may fall between milliseconds (``_whole_milliseconds``). ``late_filter(rows,
    schema)`` takes the fields and the event time in micros (``EVENT_MICROS``) before they are
    grouped, and returns the rows to group in ``schema``: for sessions with each row's
    ``SESSION_FROM`` (``_streaming_sessions``). It also fails a None in the
    ``required_fields`` and a null ``EVENT_MICROS`` (a time Python cannot take), which the
    query does not check: the error a query raises is in its plan, and a streaming query's
    failures print its plan. Integer sums are exact
    (``SPLIT_SUMS``): a streaming query cannot be run again."""
    from pyspark.sql import functions as F

    fields = _fields(aggregation)
    read = _frame_fields(frame, fields)
    if read is None or not _types_fit(aggregation, read[0]):
        return None
    types, unchecked = read[0], dict.fromkeys(fields, False)
    window_fn = aggregation.strategy.window_fn
    keys, _, _, per_row, results = _aggregates(aggregation, types, unchecked, SPLIT_SUMS)
    timed = frame.select(
        *map(_column, fields),
        _event_micros(aggregation, types, unchecked, checked=False).alias(EVENT_MICROS),
    )
    start = F.unix_micros("window.start")
    if isinstance(window_fn, ir.Sessions):
        if not _whole_milliseconds(window_fn, types[aggregation.timestamp_field]):
            return None
        kept, window = _streaming_sessions(timed, window_fn, late_filter)
        per_row, start, end_shift = [*per_row, F.min(EVENT_MICROS).alias(FIRST)], F.col(FIRST), 1
    else:
        kept = late_filter(timed, timed.schema)
        kept = kept.withColumn(EVENT_TIME, F.timestamp_micros(EVENT_MICROS))
        period = period_of(window_fn)
        window, end_shift = _window(F.col(EVENT_TIME), window_fn.size, period, window_fn.offset), 0
    return (
        kept.withWatermark(EVENT_TIME, f"{delay // 1000} milliseconds")
        .groupBy(*keys, window.alias("window"))
        .agg(*per_row)
        .select(
            *_key_names(keys),
            start.alias("start"),
            (F.unix_micros("window.end") + end_shift).alias("end"),
            *results,
        )
    )


def _streaming_sessions(timed, window_fn, late_filter) -> tuple:
    """``(rows, session_window)`` of streaming sessions. Spark merges a micro-batch's rows into
    the sessions it keeps before it emits those the watermark has ended, where the engine has
    ended them first: so a row behind the watermark starts its session at the watermark
    (``SESSION_FROM``, which ``late_filter`` adds), past any ended session's end and still
    overlapping any open one it overlapped, and keeps its end (a gap per row); the session's
    start is its rows' least time (``FIRST``). The watermark follows ``SESSION_FROM``, which
    moves it as the event time does: a row moved is behind the watermark either way."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    schema = T.StructType([*timed.schema.fields, T.StructField(SESSION_FROM, T.LongType())])
    kept = late_filter(timed, schema).withColumn(EVENT_TIME, F.timestamp_micros(SESSION_FROM))
    gap = F.col(EVENT_MICROS) + (window_fn.gap_size - 1) - F.col(SESSION_FROM)
    seconds = (gap.cast("decimal(24,0)") / 1_000_000).cast("decimal(18,6)")
    return kept, _session_window(F.col(EVENT_TIME), F.make_interval(secs=seconds))


def _whole_milliseconds(window_fn, time_type) -> bool:
    """Whether sessions' ends are whole milliseconds, as the watermark is: then Spark's session
    1 µs shorter (``_session_window``) ends by a watermark exactly when Beam's does. So the
    gap must be, and the event time integral (seconds); and the gap within what a row's gap
    in ``make_interval`` seconds holds."""
    gap = window_fn.gap_size
    return gap % 1000 == 0 and gap < _GAP_LIMIT and isinstance(time_type, _integral_types())


def _event_micros(aggregation, types: dict, nullable: dict, checked: bool = True):
    """Each row's event time in micros, as ``WithTimestampField`` reads the field; unless
    ``checked``, null where Python fails, for a check in Python (``_micros``)."""
    field = aggregation.timestamp_field
    column = _required(nullable, field, time_error(aggregation, None))
    errors = None
    if checked:
        outside = UserCodeError(aggregation.timestamp_label, None, outside_range("an event time"))
        errors = [time_error(aggregation, math.nan), time_error(aggregation, math.inf), outside]
    return _micros(column, types[field], errors)


def _aggregates(aggregation, types: dict, nullable: dict, sums: str) -> tuple:
    """``(keys, partials, names, per_row, results)``: the key columns; each aggregation's
    partial aggregates (``_partials``) and their column names; the partials over rows, named;
    and each aggregation's result from them, named ``aggregate0..``."""
    required = functools.partial(_required, nullable)
    keys = [_column(name).alias(f"key{i}") for i, name in enumerate(aggregation.key_fields)]
    partials = [_partials(aggregation, a, required, types, sums) for a in aggregation.aggregations]
    names = [[f"partial{i}_{j}" for j in range(len(p))] for i, p in enumerate(partials)]
    per_row = [
        aggregate.alias(name)
        for p, ns in zip(partials, names)
        for (aggregate, _), name in zip(p, ns)
    ]
    results = [
        _result(a.combine, ns).alias(f"aggregate{i}")
        for i, (a, ns) in enumerate(zip(aggregation.aggregations, names))
    ]
    return keys, partials, names, per_row, results


def _by_slices(window_fn) -> bool:
    """Whether ``window_fn`` slides by a period that divides its size into several slices."""
    return (
        isinstance(window_fn, ir.SlidingWindows)
        and window_fn.period < window_fn.size
        and window_fn.size % window_fn.period == 0
    )


def _sliding_by_slices(frame, keys, time, window_fn, partials, names, per_row, results):
    """Sliding windows from their slices: each row is aggregated once, into the period-long
    slice holding it; each slice's partial aggregates then go into the size / period windows
    holding the slice. Spark's ``window()`` would copy every row into each of its windows."""
    from pyspark.sql import functions as F

    size, period = window_fn.size, window_fn.period
    key_names = _key_names(keys)
    partial_names = [name for ns in names for name in ns]
    slices = frame.groupBy(
        *keys, _window(time, period, period, window_fn.offset).alias("slice")
    ).agg(*per_row, F.min(POSITION).alias("first"))
    copies = slices.select(
        *key_names,
        *partial_names,
        "first",
        F.unix_micros("slice.start").alias("slice_start"),
        F.explode(F.sequence(F.lit(0), F.lit(size // period - 1))).alias("k"),
    ).withColumn("start", F.col("slice_start") - F.col("k") * period)
    combined = [
        combine(name).alias(name)
        for p, ns in zip(partials, names)
        for (_, combine), name in zip(p, ns)
    ]
    return (
        copies.groupBy(*key_names, "start")
        .agg(*combined, F.min("first").alias("first"))
        .select(*key_names, "start", (F.col("start") + size).alias("end"), *results, "first")
    )


def _session_window(time, gap):
    """Beam merges sessions that overlap; Spark also merges sessions that only touch. With
    sessions 1 µs shorter (``gap``: a Sessions window fn, or a column of shortened gaps),
    touching in Spark is overlapping in Beam; ``end`` adds it back."""
    from pyspark.sql import functions as F

    if isinstance(gap, ir.Sessions):
        gap = f"{gap.gap_size - 1} microseconds"
    return F.session_window(time, gap)


def period_of(window_fn) -> int:
    """How far apart fixed or sliding windows start."""
    return window_fn.size if isinstance(window_fn, ir.FixedWindows) else window_fn.period


def _window(time, size: int, period: int, offset: int):
    from pyspark.sql import functions as F

    return F.window(
        time, f"{size} microseconds", f"{period} microseconds", f"{offset} microseconds"
    )


def _key_names(keys) -> list:
    return [f"key{i}" for i in range(len(keys))]


def _fields(aggregation) -> tuple:
    return tuple(
        dict.fromkeys(
            (
                *aggregation.key_fields,
                aggregation.timestamp_field,
                *(a.field for a in aggregation.aggregations),
            )
        )
    )


def _input(aggregation, session):
    """``(frame, types, nullable)``: the fields the aggregation reads and ``POSITION``; each
    field's Spark type; whether it may hold nulls. None when it cannot be read here."""
    source, fields = aggregation.source, _fields(aggregation)
    if isinstance(source, io.DataFrameSource):
        return _dataframe_input(source, fields)
    if source.columns is not None and not set(fields) <= set(source.columns):
        return None
    return _parquet_input(lift(source), fields, session)


def _dataframe_input(source, fields):
    from pyspark.sql import functions as F

    try:
        frame = lift(source).dataframe
    except RunnerError:
        return None
    read = _frame_fields(frame, fields)
    if read is None:
        return None
    positioned = frame.select(
        *map(_column, fields), F.monotonically_increasing_id().alias(POSITION)
    )
    return positioned, *read


def _frame_fields(frame, fields) -> tuple | None:
    """``(types, nullable)`` of a DataFrame's ``fields``; None when one is missing or a name
    is taken twice."""
    schema = {field.name: field for field in frame.schema.fields}
    if not set(fields) <= set(schema) or len(schema) != len(frame.schema.fields):
        return None
    return (
        {name: schema[name].dataType for name in fields},
        {name: schema[name].nullable for name in fields},
    )


def _parquet_input(source, fields, session):
    """Each file read with the schema its footer gives (no inference job), the files' rows
    in ``match_files`` order; a field may hold nulls unless every row group's statistics
    count none."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    try:
        paths = source.files()
        footers = [_footer(path) for path in paths]
    except Exception:  # missing or unreadable: the ordinary plan reports it as a direct run does
        return None
    if any(character in path for path in paths for character in "*?[]{}\\"):
        return None  # Spark would read the path as a glob pattern
    types, nullable = None, dict.fromkeys(fields, False)
    for arrow, metadata in footers:
        if not set(fields) <= set(arrow.names) or len(set(arrow.names)) != len(arrow.names):
            return None
        file_types = {name: _spark_type(arrow.field(name).type) for name in fields}
        if None in file_types.values() or (types is not None and file_types != types):
            return None
        types = file_types
        for name in fields:
            nullable[name] = nullable[name] or _may_hold_nulls(metadata, name)
    schema = T.StructType([T.StructField(name, types[name]) for name in fields])
    try:
        frames = [
            session.read.schema(schema)
            .parquet(path)
            .select(
                *map(_column, fields),
                (F.lit(index << INDEX_BITS) + F.col("_metadata.row_index")).alias(POSITION),
            )
            for index, path in enumerate(paths)
        ]
    except AnalysisException:  # e.g. a file gone since: the ordinary plan reports it
        return None
    return functools.reduce(lambda a, b: a.unionAll(b), frames), types, nullable


def _footer(path: str) -> tuple:
    """A Parquet file's Arrow schema and metadata (row groups and their statistics)."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as file:
        return file.schema_arrow, file.metadata


def _spark_type(arrow_type):
    """The Spark type Spark reads a Parquet column of ``arrow_type`` as, for the types the
    query supports; None for any other."""
    import pyarrow as pa
    from pyspark.sql import types as T

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if pa.types.is_timestamp(arrow_type):  # stored adjusted to UTC, in a unit Spark reads
        return T.TimestampType() if arrow_type.tz and arrow_type.unit != "ns" else None
    return {
        pa.int8(): T.ByteType(),
        pa.int16(): T.ShortType(),
        pa.int32(): T.IntegerType(),
        pa.int64(): T.LongType(),
        pa.float32(): T.FloatType(),
        pa.float64(): T.DoubleType(),
        pa.string(): T.StringType(),
        pa.large_string(): T.StringType(),
        pa.bool_(): T.BooleanType(),
    }.get(arrow_type)


def _may_hold_nulls(metadata, name: str) -> bool:
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            column = row_group.column(index)
            if column.path_in_schema != name:
                continue
            statistics = column.statistics
            if statistics is None or not statistics.has_null_count or statistics.null_count:
                return True
    return False


def _integral_types() -> tuple:
    """Spark's integer types: Python ints, within a long."""
    from pyspark.sql import types as T

    return (T.ByteType, T.ShortType, T.IntegerType, T.LongType)


def _types_fit(aggregation, types: dict) -> bool:
    """Whether every field has a type whose Spark SQL values, order and arithmetic are
    Python's: keys plain integers, strings or booleans; sums and means numbers; min and max
    numbers, strings or booleans; event time numbers (seconds) or UTC timestamps."""
    from pyspark.sql import types as T

    integral = _integral_types()
    numeric = (*integral, T.FloatType, T.DoubleType)
    ordered = (*numeric, T.StringType, T.BooleanType)
    by_combine = {
        BuiltinCombine.SUM: numeric,
        BuiltinCombine.MEAN: numeric,
        BuiltinCombine.MIN: ordered,
        BuiltinCombine.MAX: ordered,
    }

    def fits(name, accepted):
        # Exactly: a collated string, say, is a StringType that compares unlike Python.
        data_type = types[name]
        return type(data_type) in accepted and (
            type(data_type) is not T.StringType or data_type == T.StringType()
        )

    return (
        all(fits(name, (*integral, T.StringType, T.BooleanType)) for name in aggregation.key_fields)
        and fits(aggregation.timestamp_field, (*numeric, T.TimestampType))
        and all(
            a.combine is BuiltinCombine.COUNT or fits(a.field, by_combine[a.combine])
            for a in aggregation.aggregations
        )
    )


def _column(name: str):
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _required(nullable: dict, name: str, error: UserCodeError):
    """Column ``name``, failing the query with ``error`` at a null, where Python fails."""
    from pyspark.sql import functions as F

    if not nullable[name]:
        return _column(name)
    return F.coalesce(_column(name), F.raise_error(F.lit(transported(error))))


def _micros(column, data_type, errors: list | None):
    """Event time in micros, as ``panes.timestamp.to_micros`` reads the field's values:
    integers are seconds, floats seconds cut to the microsecond toward zero (as Beam's
    ``Timestamp`` does), timestamps instants. A time Python cannot take fails the query with
    ``errors``' (at a NaN, at infinite micros, outside Beam's range), ANSI mode or not; with no
    ``errors`` it is null (a streaming query's plan holds no error: its failures print the
    plan, and the error would be taken for theirs)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if isinstance(data_type, T.TimestampType):
        return F.unix_micros(column)
    if errors is None:
        nan = infinite = outside = F.lit(None)
    else:
        nan, infinite, outside = (F.raise_error(F.lit(transported(e))) for e in errors)
    if isinstance(data_type, (T.FloatType, T.DoubleType)):
        seconds = column.cast("double")
        micros = seconds * float(MICROS_PER_SECOND)
        return (
            F.when(F.isnan(seconds), nan)
            .when(F.abs(micros) == float("inf"), infinite)
            .when((micros < float(MIN_MICROS)) | (micros > float(MAX_MICROS)), outside)
            .otherwise(micros.cast("long"))
        )
    seconds = column.cast("long")
    least, most = -(-MIN_MICROS // MICROS_PER_SECOND), MAX_MICROS // MICROS_PER_SECOND
    return F.when((seconds < least) | (seconds > most), outside).otherwise(
        seconds * MICROS_PER_SECOND
    )


def time_error(aggregation, seconds) -> UserCodeError:
    """The error ``WithTimestampField`` and the range check after it raise at a time
    ``seconds`` Python cannot take — None, NaN, infinite, outside Beam's range — without the
    element, which SQL lacks. (SQL cannot write an out-of-range time as Python does: the
    query's error says "an event time" instead, ``_event_micros``.)"""
    field, label = aggregation.timestamp_field, aggregation.timestamp_label
    try:
        stamped = TimestampFromField(field).fn({field: seconds})
        check_timestamps(label, [stamped.timestamp_micros], [None])
    except UserCodeError as error:
        return error
    except Exception as error:
        return UserCodeError(label, None, error)
    raise AssertionError(f"WithTimestampField took {seconds!r} as a time")


def _partials(aggregation, field_aggregation, required, types: dict, sums: str) -> list:
    """``(aggregate over rows, how two of its results combine)`` for each part the built-in
    combiner's result is computed from: a count, sum, min or max, or for a mean the sum and
    the count (the exact sum over the count, as ``MeanFn`` computes it, not a running double
    average)."""
    from pyspark.sql import functions as F

    combine = field_aggregation.combine
    count = (F.count(F.lit(1)), F.sum)
    if combine is BuiltinCombine.COUNT:
        return [count]
    column = required(field_aggregation.field, _missing_value(aggregation, field_aggregation))
    if combine in (BuiltinCombine.SUM, BuiltinCombine.MEAN):
        total = _sum(column, types[field_aggregation.field], sums)
        return [total, count] if combine is BuiltinCombine.MEAN else [total]
    aggregate = {BuiltinCombine.MIN: F.min, BuiltinCombine.MAX: F.max}[combine]
    return [(aggregate(column), aggregate)]


def _missing_value(aggregation, field_aggregation) -> UserCodeError:
    """The error Python raises at a None the built-in combiner cannot take."""
    message = missing_value_message(field_aggregation)
    return UserCodeError(aggregation.combine_label, None, ValueError(message))


def required_fields(aggregation) -> dict:
    """The fields where a None fails the run, each with the error Python raises there."""
    errors = {aggregation.timestamp_field: time_error(aggregation, None)}
    for field_aggregation in aggregation.aggregations:
        if field_aggregation.combine is not BuiltinCombine.COUNT:
            errors.setdefault(
                field_aggregation.field, _missing_value(aggregation, field_aggregation)
            )
    return errors


def _sum(column, data_type, sums: str) -> tuple:
    """A sum as ``_partials`` gives it: a Python int has no bound, a Spark long has. Integers
    sum as longs that are null where they overflow (``TRY_SUMS``), as 38-digit decimals
    (``DECIMAL_SUMS``), or as the long sums of each value's high and low 32 bits, put together
    once per group (``SPLIT_SUMS``: exact below 2^31 rows a group, at the cost of two long sums
    per row where a decimal sum costs several times more)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if not isinstance(data_type, T.IntegralType):
        return F.sum(column), F.sum
    if sums == DECIMAL_SUMS:
        return F.sum(column.cast(T.DecimalType(38, 0))), F.sum
    if sums == SPLIT_SUMS:
        if not isinstance(data_type, T.LongType):
            return F.sum(column), F.sum  # below 2^31 per value: a long holds 2^32 of them
        high = F.sum(F.shiftright(column, 32)).cast(T.DecimalType(38, 0)) * F.lit(1 << 32)
        return high + F.sum(column.bitwiseAND(F.lit(0xFFFFFFFF))), F.sum
    return F.try_sum(column), _sum_of_try_sums


def _sum_of_try_sums(name: str):
    """Partial ``try_sum``s added up, null if one of them overflowed (``try_sum`` would skip it)."""
    from pyspark.sql import functions as F

    column = F.col(name)
    return F.when(F.bool_or(column.isNull()), F.lit(None)).otherwise(F.try_sum(column))


def _result(combine, names: list):
    """The combiner's result from the columns ``names`` of its partial aggregates."""
    from pyspark.sql import functions as F

    if combine is BuiltinCombine.MEAN:
        return F.struct(F.col(names[0]).alias("sum"), F.col(names[1]).alias("count"))
    return F.col(names[0])


def overflowed(table) -> bool:
    """Whether a query's result (a pyarrow Table) has an integer sum that overflowed: no
    aggregate is null otherwise, as every group has rows and no value is None."""
    import pyarrow as pa

    for name in table.column_names:
        if name.startswith("aggregate"):
            array = table.column(name).combine_chunks()
            parts = array.flatten() if pa.types.is_struct(array.type) else [array]
            if any(part.null_count for part in parts):
                return True
    return False


def finished(combine, values: list) -> list:
    """A column of the query's result as the built-in combiner returns it: ints, not decimals;
    a mean as its sum over its count, in Python."""
    if combine is BuiltinCombine.MEAN:
        return [_integer(parts["sum"]) / parts["count"] for parts in values]
    if combine is BuiltinCombine.SUM:
        return [_integer(value) for value in values]
    return values


def _integer(value):
    return int(value) if type(value) is decimal.Decimal else value
