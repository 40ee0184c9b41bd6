"""A streaming Beam pipeline — a TestStream with early, on-time and late firings — runs
unchanged with ``--streaming`` on panes' Spark runner (Spark Structured Streaming) and gives
the panes Beam's DirectRunner gives."""

import pytest

beam = pytest.importorskip(
    "apache_beam", reason="Beam's pipelines need apache-beam: pip install 'panes[beam]'"
)

from apache_beam.testing.test_stream import TestStream  # noqa: E402
from apache_beam.transforms import trigger, window  # noqa: E402
from beam_reference import matches_beam  # noqa: E402


class Panes(beam.DoFn):
    """Each output with its window, timestamp and pane, as plain data."""

    def process(
        self,
        element,
        w=beam.DoFn.WindowParam,
        t=beam.DoFn.TimestampParam,
        pane=beam.DoFn.PaneInfoParam,
    ):
        yield (
            element,
            (float(w.start), float(w.end)),
            float(t),
            (pane.timing, pane.index, pane.nonspeculative_index, pane.is_first),
        )


def scores(p):
    """Team scores per minute: an early pane every two events, the on-time pane, then a pane per
    late event within two minutes of lateness."""
    events = (
        TestStream()
        .advance_watermark_to(0)
        .add_elements(
            [window.TimestampedValue(("blue", 3), 5), window.TimestampedValue(("red", 1), 7)]
        )
        .add_elements([window.TimestampedValue(("blue", 2), 20)])
        .add_elements([window.TimestampedValue(("blue", 4), 65)])
        .advance_watermark_to(70)
        .add_elements(
            [window.TimestampedValue(("blue", 10), 30), window.TimestampedValue(("red", 5), 75)]
        )
        .advance_watermark_to(130)
        .add_elements([window.TimestampedValue(("red", 6), 90)])
        .advance_watermark_to(500)
        .add_elements([window.TimestampedValue(("blue", 100), 10)])
        .advance_watermark_to_infinity()
    )
    return (
        p
        | events
        | beam.WindowInto(
            window.FixedWindows(60),
            trigger=trigger.AfterWatermark(early=trigger.AfterCount(2), late=trigger.AfterCount(1)),
            accumulation_mode=trigger.AccumulationMode.ACCUMULATING,
            allowed_lateness=120,
        )
        | beam.CombinePerKey(sum)
        | beam.ParDo(Panes())
    )


@pytest.mark.slow
def test_a_streaming_pipeline_gives_beams_panes_on_spark_structured_streaming(spark):
    outputs = matches_beam(scores, "spark", ["--streaming"])
    timings = {timing for _, _, _, (timing, *_) in outputs}
    assert timings == {0, 1, 2}  # early, on time and late panes


@pytest.mark.slow
def test_beams_stateful_dofns_give_beams_outputs_on_spark_structured_streaming(spark):
    """Every kind of Beam state under an event-time timer, through panes' state and timers in
    Spark's state store. (GroupIntoBatches.WithShardedKey is left out: Beam draws a shard per
    DoFn instance, so its batches depend on how a runner spreads the work.)"""
    from test_stateful import every_kind

    state = matches_beam(every_kind, "spark", ["--streaming"])
    assert ("a", 0.0, 9.999999, 7, [4, 7], [1], 5.5) in state
