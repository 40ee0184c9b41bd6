"""The file-to-file streaming pipeline the streaming tests run, in-process or as a separate
driver process (``python streaming_files_pipeline.py <json options>``) that a test can kill.

It reads ``key,value,seconds`` lines from files arriving in a directory, sums values per key
in 10 s windows with early, on-time and late panes, and writes one line per pane naming its
key, window, timing and index, so a duplicated or lost pane shows in the output. Beside it,
per key and 10 s window, a stateful DoFn buffers values in a bag until an event-time timer
2 s after the latest one (kept in a value cell) fires, and ``GroupIntoBatches(3)`` batches
them, so state and pending timers must survive restarts too. Each line is the same whatever
the order of a micro-batch's elements, which Spark's packing of files into partitions sets.

With ``lowered`` the driver runs instead the sums that panes runs as Spark's own streaming
aggregation: the files as a streaming DataFrame, the default trigger, no lateness."""

import json
import operator
import os
import sys

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.runners.spark.session import start_session
from panes.runners.spark.streaming.sources import ReadFromSpark
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import BagStateSpec, ReadModifyWriteStateSpec, TimerSpec, on_timer
from panes.transforms.util import GroupIntoBatches
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, GlobalWindows


class DescribePane(beam.DoFn):
    def process(self, kv, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam):
        key, total = kv
        yield (
            f"{key} [{int(window.start)},{int(window.end)}) "
            f"{pane.timing.value} {pane.index} {total}"
        )


BUFFER = BagStateSpec("buffer")
LATEST = ReadModifyWriteStateSpec("latest")
QUIET = TimerSpec("quiet", TimeDomain.WATERMARK)


class BufferUntilQuiet(beam.DoFn):
    """Buffers a key's values per window until the watermark passes 2 s after the latest
    (or the window's end), then writes them; a late value starts a new buffer."""

    def process(
        self,
        kv,
        timestamp=beam.DoFn.TimestampParam,
        window=beam.DoFn.WindowParam,
        buffer=beam.DoFn.StateParam(BUFFER),
        latest=beam.DoFn.StateParam(LATEST),
        quiet=beam.DoFn.TimerParam(QUIET),
    ):
        buffer.add(kv[1])
        newest = max(latest.read() or timestamp, timestamp)
        latest.write(newest)
        quiet.set(min(newest + 2, window.max_timestamp()))

    @on_timer(QUIET)
    def flush(
        self,
        key=beam.DoFn.KeyParam,
        window=beam.DoFn.WindowParam,
        buffer=beam.DoFn.StateParam(BUFFER),
    ):
        yield f"buffer {key} [{int(window.start)},{int(window.end)}) {sorted(buffer.read())}"
        buffer.clear()


def describe_batch(kv, window=beam.DoFn.WindowParam):
    key, batch = kv
    return f"batch {key} [{int(window.start)},{int(window.end)}) {len(batch)}"


def parse(line):
    key, value, _ = line.split(",")
    return key, int(value)


def parse_fixed(line):
    """``parse``, fixed to count a value that is not a number as 0."""
    key, value, _ = line.split(",")
    return key, int(value) if value.isdigit() else 0


def build(
    pipeline, directory, output_prefix, window_seconds=10, fixed=False, stateful_fn=BufferUntilQuiet
):
    lines = pipeline | "Read" >> ReadFromText(os.path.join(directory, "*.csv")).with_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(3),
        timestamp_fn=lambda line: int(line.split(",")[2]),
    )
    parsed = lines | "Parse" >> beam.Map(parse_fixed if fixed else parse)
    panes = (
        parsed
        | beam.WindowInto(
            FixedWindows(window_seconds),
            trigger=AfterWatermark(early=AfterCount(4), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=5,
        )
        | "Sum" >> beam.CombinePerKey(sum)
        | "Describe" >> beam.ParDo(DescribePane())
    )
    windowed = parsed | "StateWindows" >> beam.WindowInto(
        FixedWindows(window_seconds), allowed_lateness=5
    )
    buffered = windowed | "Buffer" >> beam.ParDo(stateful_fn())
    batches = (
        windowed | "Batch" >> GroupIntoBatches(3) | "DescribeBatch" >> beam.Map(describe_batch)
    )
    unwindowed = [
        pcoll | f"Unwindow{name}" >> beam.WindowInto(GlobalWindows())
        for name, pcoll in (("Panes", panes), ("Buffers", buffered), ("Batches", batches))
    ]
    unwindowed | beam.Flatten() | "Write" >> WriteToText(output_prefix)


def build_lowered(pipeline, frame, output_prefix, window_seconds=10):
    (
        pipeline
        | "Read"
        >> ReadFromSpark(frame).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(3),
            timestamp_fn=operator.itemgetter("seconds"),
        )
        | beam.WindowInto(FixedWindows(window_seconds))
        | "Sum" >> beam.GroupBy("key").aggregate_field("value", sum, "total")
        | "Describe" >> beam.Map(lambda row: (row["key"], row["total"]))
        | "DescribePane" >> beam.ParDo(DescribePane())
        | "Write" >> WriteToText(output_prefix)
    )


def main(options: dict, directory: str, output_prefix: str, fixed=False, lowered=False):
    options = {"streaming": True, "max_files_per_trigger": 1, **options}
    pipeline = beam.Pipeline(runner="spark", options=options)
    if lowered:
        spark = start_session(options.get("spark_master"), conf=options.get("spark_conf"))
        frame = (
            spark.readStream.schema("key string, value long, seconds long")
            .option("maxFilesPerTrigger", 1)
            .csv(directory)
        )
        build_lowered(pipeline, frame, output_prefix)
    else:
        build(pipeline, directory, output_prefix, fixed=fixed)
    result = pipeline.run()
    result.wait_until_finish()
    return result


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], lowered=sys.argv[4:] == ["lowered"])
