"""The five workloads, each written for every system that can run it.

Every implementation returns normalized results — sorted tuples of (key, window start, window
end, value) in seconds, or (word, count) — so the runner can check that all systems agree
before it reports any time.
"""

from __future__ import annotations

from operator import add

from benchmarks.datagen import events_csv, events_parquet, words_text

FIXED, SLIDE_SIZE, SLIDE_PERIOD, GAP = 60, 600, 60, 5
# Workload 4: the watermark trails the largest event time by 20 s while events arrive up to 30 s
# out of order, so some arrive late; the 1000 keys fall into 10 groups, so a window holds
# enough elements per group for early panes (every 1000 elements) to fire.
DELAY, LATENESS, GROUPS, EARLY_EVERY = 20, 60, 10, 1000
S = 1_000_000
WORKLOADS = {
    1: "fixed 60 s windows, sum per key",
    2: "sliding 10 min / 1 min windows, mean per key",
    3: "session windows (gap 5 s), count per key",
    4: "fixed 60 s windows, sum per key group, early every 1000 and late firings, "
    "out-of-orderness watermark",
    5: "word count",
}


def parse(line):
    key, value, seconds = line.split(",")
    return key, int(value), int(seconds)


def grouped(line):
    """Workload 4's (key group, value)."""
    key, value, _ = parse(line)
    return f"g{int(key[1:]) % GROUPS}", value


def normalized(rows):
    return sorted(
        (*row[:-1], round(row[-1], 6) if isinstance(row[-1], float) else row[-1]) for row in rows
    )


# -- hand-written PySpark RDD ------------------------------------------------------------------


def rdd(spark, workload, size):
    sc = spark.sparkContext
    if workload == 5:
        counts = (
            sc.textFile(str(words_text(size)))
            .flatMap(str.split)
            .map(lambda word: (word, 1))
            .reduceByKey(add)
        )
        return normalized(counts.collect())
    events = sc.textFile(str(events_csv(size))).map(parse)
    if workload == 1:
        sums = events.map(lambda e: ((e[0], e[2] - e[2] % FIXED), e[1])).reduceByKey(add)
        return normalized((k, s, s + FIXED, v) for (k, s), v in sums.collect())
    if workload == 2:

        def windows(e):
            last = e[2] - e[2] % SLIDE_PERIOD
            return [
                ((e[0], start), (e[1], 1))
                for start in range(last, e[2] - SLIDE_SIZE, -SLIDE_PERIOD)
            ]

        sums = events.flatMap(windows).reduceByKey(lambda a, b: (a[0] + b[0], a[1] + b[1]))
        return normalized(
            (k, s, s + SLIDE_SIZE, total / n) for (k, s), (total, n) in sums.collect()
        )
    if workload == 3:

        def sessions(pair):
            key, times = pair
            out, start, end, count = [], None, None, 0
            for t in sorted(times):
                if start is not None and t < end:
                    end, count = max(end, t + GAP), count + 1
                    continue
                if start is not None:
                    out.append((key, start, end, count))
                start, end, count = t, t + GAP, 1
            out.append((key, start, end, count))
            return out

        return normalized(
            events.map(lambda e: (e[0], e[2])).groupByKey().flatMap(sessions).collect()
        )
    raise KeyError(workload)


# -- native PySpark DataFrame -------------------------------------------------------------------


def dataframe(spark, workload, size):
    from pyspark.sql import functions as F

    if workload == 5:
        words = spark.read.text(str(words_text(size))).select(
            F.explode(F.split("value", " ")).alias("word")
        )
        return normalized(tuple(r) for r in words.groupBy("word").count().collect())
    if workload == 4:
        return None
    events = spark.read.parquet(str(events_parquet(size))).withColumn(
        "ts", F.timestamp_seconds("seconds")
    )
    window, aggregate = {
        1: (F.window("ts", f"{FIXED} seconds"), F.sum("value")),
        2: (F.window("ts", f"{SLIDE_SIZE} seconds", f"{SLIDE_PERIOD} seconds"), F.avg("value")),
        3: (F.session_window("ts", f"{GAP} seconds"), F.count("value")),
    }[workload]
    grouped = (
        events.groupBy(window.alias("w"), "key")
        .agg(aggregate.alias("v"))
        .select(
            "key", F.unix_timestamp("w.start").alias("s"), F.unix_timestamp("w.end").alias("e"), "v"
        )
    )
    return normalized(tuple(r) for r in grouped.collect())


# -- panes (direct and Spark runners) -----------------------------------------------------------


def panes(runner, workload, size, spark_partitions=None):
    import panes as beam
    from panes.testing import materialize
    from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
    from panes.watermark import WatermarkStrategy
    from panes.window import FixedWindows, Sessions, SlidingWindows, TimestampedValue

    p = beam.Pipeline(runner=runner, options={"spark_partitions": spark_partitions})
    if workload == 5:
        counts = (
            p
            | beam.io.ReadFromText(str(words_text(size)))
            | beam.FlatMap(str.split)
            | beam.combiners.Count.PerElement()
        )
        out = materialize(counts)
        p.run()
        return normalized(out.values)
    read = beam.io.ReadFromText(str(events_csv(size)))
    if workload == 4:
        read = read.with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(DELAY),
            timestamp_fn=lambda line: int(line.rsplit(",", 1)[1]),
        )
        pairs = p | read | beam.Map(grouped)
    else:
        pairs = (
            p
            | read
            | beam.Map(lambda line: (lambda k, v, t: TimestampedValue((k, v), t))(*parse(line)))
        )
    windowing, combine = {
        1: (beam.WindowInto(FixedWindows(FIXED)), sum),
        2: (beam.WindowInto(SlidingWindows(SLIDE_SIZE, SLIDE_PERIOD)), beam.combiners.MeanFn()),
        3: (beam.WindowInto(Sessions(GAP)), beam.combiners.CountFn()),
        4: (
            beam.WindowInto(
                FixedWindows(FIXED),
                trigger=AfterWatermark(early=AfterCount(EARLY_EVERY), late=AfterCount(1)),
                accumulation_mode=AccumulationMode.ACCUMULATING,
                allowed_lateness=LATENESS,
            ),
            sum,
        ),
    }[workload]
    out = materialize(pairs | windowing | beam.CombinePerKey(combine))
    p.run()
    if workload == 4:
        return normalized(
            (key, start // S, end // S, pane.timing.value, pane.index, value)
            for (key, value), _, ((start, end),), pane in out.windowed_values
        )
    return normalized(
        (key, start // S, end // S, value)
        for (key, value), _, ((start, end),), _ in out.windowed_values
    )


def panes_sql(workload, size):
    """Workloads 1-3 with the declarative API over the Parquet file, which the Spark runner
    lowers to one Spark SQL query (``panes.runners.spark.lowering``)."""
    import panes as beam
    from panes.testing import materialize
    from panes.window import FixedWindows, Sessions, SlidingWindows

    if workload not in (1, 2, 3):
        return None
    window_fn, combine = {
        1: (FixedWindows(FIXED), sum),
        2: (SlidingWindows(SLIDE_SIZE, SLIDE_PERIOD), beam.combiners.MeanFn()),
        3: (Sessions(GAP), beam.combiners.CountFn()),
    }[workload]
    p = beam.Pipeline(runner="spark")
    out = materialize(
        p
        | beam.io.ReadFromParquet(str(events_parquet(size)))
        | beam.WithTimestampField("seconds")
        | beam.WindowInto(window_fn)
        | beam.GroupBy("key").aggregate_field("value", combine, "v")
    )
    p.run()
    return normalized(
        (value["key"], start // S, end // S, value["v"])
        for value, _, ((start, end),), _ in out.windowed_values
    )


# -- Apache Beam's Python DirectRunner ------------------------------------------------------------

_beam_rows: list = []


def _keep_beam_row(row) -> None:
    """Module level, so Beam pickles it by reference and rows land in this process's list."""
    _beam_rows.append(row)


def beam_direct(workload, size):
    import apache_beam as ab
    from apache_beam.transforms import window as bw

    class Collect(ab.DoFn):
        def process(self, kv, w=ab.DoFn.WindowParam):
            _keep_beam_row(
                (kv[0], kv[1]) if workload == 5 else (kv[0], int(w.start), int(w.end), kv[1])
            )

    _beam_rows.clear()
    with ab.Pipeline(runner="DirectRunner") as p:
        if workload == 5:
            (
                p
                | ab.io.ReadFromText(str(words_text(size)))
                | ab.FlatMap(str.split)
                | ab.combiners.Count.PerElement()
                | ab.ParDo(Collect())
            )
        elif workload == 1:
            (
                p
                | ab.io.ReadFromText(str(events_csv(size)))
                | ab.Map(
                    lambda line: (lambda k, v, t: bw.TimestampedValue((k, v), t))(*parse(line))
                )
                | ab.WindowInto(bw.FixedWindows(FIXED))
                | ab.CombinePerKey(sum)
                | ab.ParDo(Collect())
            )
        else:
            return None
    return normalized(_beam_rows)
