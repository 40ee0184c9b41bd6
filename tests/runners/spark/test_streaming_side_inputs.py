"""Side inputs on streaming: ParDos read a per-window total computed by a grouping, a
per-window list straight from the source, and a global table, over a TestStream that moves the
watermark, with late data; a grouping sums what they give. Every stage gives the direct
runner's elements and panes, though the main elements wait for their side windows. A side
window that could never be complete on unbounded input (the global one) is refused."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.io.text import ReadFromText
from panes.pvalue import AsDict, AsList, AsSingleton
from panes.runners.spark.streaming.runner import check_side_inputs
from panes.testing import TestStream, materialize
from panes.transforms.userstate import SetStateSpec
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import CountWindows, FixedWindows, GlobalWindows, TimestampedValue


def _events():
    stream = TestStream()
    for step in range(5):
        stream.add_elements(
            [
                TimestampedValue((f"k{(step + i) % 3}", step * 10 + i), step * 6 + i)
                for i in range(3)
            ]
        )
        stream.advance_watermark_to(step * 6)
    stream.add_elements([TimestampedValue(("k1", 100), 4)])  # late, within the lateness
    return stream.advance_watermark_to(40)


def _run(runner, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    events = p | _events()
    windowed = events | "Fixed" >> beam.WindowInto(
        FixedWindows(10),
        trigger=AfterWatermark(late=AfterCount(1)),
        accumulation_mode=AccumulationMode.DISCARDING,
        allowed_lateness=10,
    )
    total = (
        windowed
        | "Values" >> beam.Values()
        | "Total" >> beam.CombineGlobally(sum).as_singleton_view()
    )
    weights = windowed | "Weights" >> beam.Map(lambda kv: kv[1] % 4)
    table = p | "Table" >> beam.Create([("k0", "zero"), ("k1", "one")])
    shares = windowed | "Share" >> beam.Map(
        lambda kv, total, weights, names: (names.get(kv[0], kv[0]), kv[1] / total + sum(weights)),
        total,
        AsList(weights),
        AsDict(table),
    )
    summed = shares | "Sum" >> beam.CombinePerKey(sum)
    capped = shares | "Cap" >> beam.CombinePerKey(
        lambda values, total: min(sum(values), total / 10), total
    )
    handles = [
        materialize(pc, name)
        for pc, name in ((shares, "Shares"), (summed, "Summed"), (capped, "Capped"))
    ]
    p.run()
    return [sorted(map(repr, handle.windowed_values)) for handle in handles]


@pytest.mark.slow
def test_side_inputs_give_the_direct_runners_outputs(spark):
    streamed = _run("spark", {"streaming": True})
    assert streamed == _run("direct")
    assert all(streamed)


class _Seen(beam.DoFn):
    SEEN = SetStateSpec("seen")

    def process(self, kv, limit, seen=beam.DoFn.StateParam(SEEN)):
        seen.add(kv[1])
        yield kv


def test_a_stateful_dofn_with_side_inputs_is_refused():
    p = beam.Pipeline(runner="spark", options={"streaming": True})
    limit = p | "Limit" >> beam.Create([10])
    p | "Read" >> beam.Create([("a", 1)]) | "Seen" >> beam.ParDo(_Seen(), AsSingleton(limit))
    with pytest.raises(PipelineConstructionError, match="'Seen' is a stateful DoFn with side"):
        p.run()


def _side_input_pipeline(tmp_path, main_windows, side_windows):
    """Words from a watched directory (unbounded under --streaming), each read with the
    words of its side window."""
    p = beam.Pipeline(
        runner="spark", options={"streaming": True, "checkpoint_location": str(tmp_path)}
    )
    words = p | ReadFromText(str(tmp_path / "*.txt")).with_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(5), timestamp_fn=lambda _: 0
    )
    side = words | "SideWindows" >> beam.WindowInto(side_windows)
    main = words | "MainWindows" >> beam.WindowInto(main_windows)
    main | "Tag" >> beam.Map(lambda word, seen: (word, len(seen)), AsList(side))
    return p


@pytest.mark.parametrize(
    "main_windows, side_windows, reason",
    [
        (FixedWindows(60), GlobalWindows(), "its side input, from 'SideWindows',"),
        (GlobalWindows(), FixedWindows(60), "its main input, from 'MainWindows',"),
        (FixedWindows(60), CountWindows(3), "its side input, from 'SideWindows',"),
    ],
)
def test_a_side_input_that_would_wait_for_good_on_unbounded_input_is_refused(
    tmp_path, main_windows, side_windows, reason
):
    p = _side_input_pipeline(tmp_path, main_windows, side_windows)
    with pytest.raises(PipelineConstructionError) as refused:
        p.run()
    assert f"'Tag' reads side inputs and {reason} is in the global window" in str(refused.value)
    assert "Window the main and side inputs alike" in str(refused.value)


def test_side_inputs_windowed_alike_on_unbounded_input_are_not_refused(tmp_path):
    p = _side_input_pipeline(tmp_path, FixedWindows(60), FixedWindows(60))
    check_side_inputs(p.to_ir(), unbounded=True)
