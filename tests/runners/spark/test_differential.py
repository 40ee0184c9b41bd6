"""Randomized differential test: random windowed pipelines and event logs give the same panes
on the direct runner and on Spark, whatever the partitioning."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import panes as beam
from panes.evictor import CountEvictor
from panes.runners.spark import SparkRunner
from panes.testing import TestStream, materialize
from panes.trigger import (
    AccumulationMode,
    AfterAny,
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    ContinuousEventTimeTrigger,
    CountTrigger,
    Repeatedly,
)
from panes.window import (
    CountWindows,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
    TimestampCombiner,
    TimestampedValue,
)

WINDOW_FNS = [
    FixedWindows(4),
    SlidingWindows(6, 2),
    Sessions(3),
    GlobalWindows(),
    FixedWindows(5, offset=2),
    CountWindows(3),
    CountWindows(4, 2),
]
TRIGGERS = [
    None,
    AfterWatermark(early=AfterCount(2)),
    AfterWatermark(early=AfterProcessingTime(2), late=AfterCount(1)),
    Repeatedly(AfterAny(AfterCount(3), AfterProcessingTime(5))),
    CountTrigger(2),
    ContinuousEventTimeTrigger(3),
]


@st.composite
def event_logs(draw):
    stream, watermark = TestStream(), 0
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["elements", "elements", "watermark", "clock"]))
        if kind == "elements":
            bundle = draw(
                st.lists(
                    st.tuples(st.sampled_from("abc"), st.integers(0, 9), st.integers(0, 30)),
                    min_size=1,
                    max_size=6,
                )
            )
            stream = stream.add_elements([TimestampedValue((k, v), t) for k, v, t in bundle])
        elif kind == "watermark":
            watermark += draw(st.integers(1, 12))
            stream = stream.advance_watermark_to(watermark)
        else:
            stream = stream.advance_processing_time(draw(st.integers(1, 6)))
    return stream.advance_watermark_to_infinity()


@st.composite
def pipelines(draw):
    return {
        "stream": draw(event_logs()),
        "window_fn": draw(st.sampled_from(WINDOW_FNS)),
        "trigger": draw(st.sampled_from(TRIGGERS)),
        "accumulation": draw(st.sampled_from(list(AccumulationMode))),
        "lateness": draw(st.sampled_from([0, 5])),
        "combiner": draw(st.sampled_from(list(TimestampCombiner))),
        "evictor": draw(st.sampled_from([None, CountEvictor(2)])),
        "second_stage": draw(st.booleans()),
        "partitions": draw(st.integers(1, 4)),
    }


def _run(spec, runner):
    p = beam.Pipeline(runner=runner, options={"allow_unsafe_triggers": True})
    windowed = (
        p
        | spec["stream"]
        | beam.WindowInto(
            spec["window_fn"],
            trigger=spec["trigger"],
            accumulation_mode=spec["accumulation"],
            allowed_lateness=spec["lateness"],
            timestamp_combiner=spec["combiner"],
            evictor=spec["evictor"],
        )
    )
    grouped = windowed | beam.CombinePerKey(sum).with_late_output("late")
    outputs = [materialize(grouped.main, "Main"), materialize(grouped.late, "Late")]
    if spec["second_stage"]:
        totals = (
            grouped.main
            | "Rekey" >> beam.Map(lambda kv: ("all", kv[1]))
            | "Again" >> beam.WindowInto(FixedWindows(10), trigger=CountTrigger(2))
            | "Total" >> beam.CombinePerKey(sum)
        )
        outputs.append(materialize(totals, "Totals"))
    result = p.run()
    return [sorted(map(repr, handle.windowed_values)) for handle in outputs], [
        result.metrics().counter(name)
        for name in ("dropped_late", "dropped_closed", "purged_unfired")
    ]


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec=pipelines())
def test_spark_matches_direct_on_random_pipelines(spark, spec):
    assert _run(spec, SparkRunner(partitions=spec["partitions"])) == _run(spec, "direct")
