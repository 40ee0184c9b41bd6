"""A quick look at the streaming runner (the corpus runs on it in the slow tier): a TestStream
with early, on-time and late panes, a late element routed to the late-data output and one
dropped, on Spark Structured Streaming gives the direct runner's panes and counters (its
label has spaces, as Beam's labels often do)."""

import logging

import pytest

import panes as beam
from panes.testing import TestStream, materialize
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.window import FixedWindows, TimestampedValue


def _run(runner, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    events = (
        TestStream()
        .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("b", 2), 2)])
        .add_elements([TimestampedValue(("a", 3), 3)])
        .advance_watermark_to(12)
        .add_elements([TimestampedValue(("a", 4), 4), TimestampedValue(("b", 9), 9)])
        .advance_watermark_to(25)
        .add_elements([TimestampedValue(("a", 5), 5)])
    )
    grouped = (
        p
        | "Events of a game" >> events
        | beam.WindowInto(
            FixedWindows(10),
            trigger=AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=10,
        )
        | beam.CombinePerKey(sum).with_late_output("late")
    )
    main, late = materialize(grouped.main, "Main"), materialize(grouped.late, "Late")
    result = p.run()
    return (
        sorted(map(repr, main.windowed_values)),
        sorted(map(repr, late.windowed_values)),
        result.metrics().counter("dropped_late"),
    )


@pytest.mark.smoke
def test_a_test_stream_on_structured_streaming_gives_the_direct_runners_panes(spark, caplog):
    with caplog.at_level(logging.INFO, logger="panes.streaming"):
        streamed = _run("spark", {"streaming": True})
    direct = _run("direct")
    assert streamed == direct
    main, late, dropped = streamed
    assert [sum(timing in pane for pane in main) for timing in ("EARLY", "ON_TIME", "LATE")] == [
        1,
        2,
        2,
    ]
    assert len(late) == 1 and dropped == 1
    assert any("micro-batch" in record.getMessage() for record in caplog.records)
