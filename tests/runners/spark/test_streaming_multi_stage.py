"""Groupings after groupings on streaming: per-key sums with early and late panes feed a
per-window top two, whose panes feed a count of tops per window — three groupings, the last two
in the tail — over a TestStream that moves processing time and the watermark, with late data.
Every stage gives the direct runner's panes."""

import pytest

import panes as beam
from panes.testing import TestStream, materialize
from panes.transforms.combiners import TopCombineFn
from panes.trigger import AccumulationMode, AfterCount, AfterProcessingTime, AfterWatermark
from panes.window import FixedWindows, TimestampCombiner, TimestampedValue


def _events():
    stream = TestStream()
    for step in range(6):
        stream.add_elements(
            [
                TimestampedValue((f"k{(step + i) % 3}", step * 10 + i), step * 4 + i)
                for i in range(3)
            ]
        )
        stream.advance_processing_time(5)
        stream.advance_watermark_to(step * 4)
    stream.add_elements([TimestampedValue(("k1", 100), 3)])  # late, within the lateness
    stream.advance_watermark_to(40)
    return stream.add_elements([TimestampedValue(("k2", 1000), 1)])  # beyond it: dropped


def _run(runner, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    sums = (
        p
        | _events()
        | "PerKey"
        >> beam.WindowInto(
            FixedWindows(10),
            trigger=AfterWatermark(early=AfterProcessingTime(4), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=15,
            timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST,
        )
        | "Sum" >> beam.CombinePerKey(sum)
    )
    tops = (
        sums
        | "All" >> beam.Map(lambda kv: ("all", kv))
        | "Top" >> beam.CombinePerKey(TopCombineFn(2, key=lambda pair: pair[1]))
    )
    counted = (
        tops
        | "Window" >> beam.WindowInto(FixedWindows(20), allowed_lateness=30)
        | "Pairs" >> beam.Map(lambda kv: ("tops", 1))
        | "Count" >> beam.CombinePerKey(sum)
    )
    handles = [
        materialize(pc, name) for pc, name in ((sums, "Sums"), (tops, "Tops"), (counted, "Counted"))
    ]
    result = p.run()
    return (
        [sorted(map(repr, handle.windowed_values)) for handle in handles],
        result.metrics().counter("dropped_late"),
    )


@pytest.mark.slow
def test_three_groupings_in_a_row_give_the_direct_runners_panes(spark):
    streamed = _run("spark", {"streaming": True})
    assert streamed == _run("direct")
    (sums, tops, counted), dropped = streamed
    assert sums and tops and counted and dropped >= 1
