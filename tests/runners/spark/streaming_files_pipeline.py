"""The file-to-file streaming pipeline the streaming tests run, in-process or as a separate
driver process (``python streaming_files_pipeline.py <json options>``) that a test can kill.

It reads ``key,value,seconds`` lines from files arriving in a directory, sums values per key
in 10 s windows with early, on-time and late panes, and writes one line per pane naming its
key, window, timing and index, so a duplicated or lost pane shows in the output."""

import json
import os
import sys

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows


class DescribePane(beam.DoFn):
    def process(self, kv, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam):
        key, total = kv
        yield (
            f"{key} [{int(window.start)},{int(window.end)}) "
            f"{pane.timing.value} {pane.index} {total}"
        )


def parse(line):
    key, value, _ = line.split(",")
    return key, int(value)


def parse_fixed(line):
    """``parse``, fixed to count a value that is not a number as 0."""
    key, value, _ = line.split(",")
    return key, int(value) if value.isdigit() else 0


def build(pipeline, directory, output_prefix, window_seconds=10, fixed=False):
    lines = pipeline | "Read" >> ReadFromText(os.path.join(directory, "*.csv")).with_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(3),
        timestamp_fn=lambda line: int(line.split(",")[2]),
    )
    (
        lines
        | "Parse" >> beam.Map(parse_fixed if fixed else parse)
        | beam.WindowInto(
            FixedWindows(window_seconds),
            trigger=AfterWatermark(early=AfterCount(4), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=5,
        )
        | "Sum" >> beam.CombinePerKey(sum)
        | "Describe" >> beam.ParDo(DescribePane())
        | "Write" >> WriteToText(output_prefix)
    )


def main(options: dict, directory: str, output_prefix: str, fixed=False):
    pipeline = beam.Pipeline(
        runner="spark", options={"streaming": True, "max_files_per_trigger": 1, **options}
    )
    build(pipeline, directory, output_prefix, fixed=fixed)
    result = pipeline.run()
    result.wait_until_finish()
    return result


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), sys.argv[2], sys.argv[3])
