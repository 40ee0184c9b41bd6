"""Sources read record at a time under a watermark strategy, and idle sources (direct runner)."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.testing import materialize
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows

MONOTONOUS = WatermarkStrategy.for_monotonous_timestamps()


def _run(b_strategy):
    """Source a: event times 1, 25, 5, 3 arriving at 1, 2, 20, 21 s; source b: one record at
    event time 1, arriving at 0 s, then silence."""
    p = beam.Pipeline()
    a = p | "A" >> beam.Create(
        [("a", 1, 1), ("a", 25, 2), ("a", 5, 20), ("a", 3, 21)]
    ).with_watermarks(MONOTONOUS, timestamp_fn=lambda r: r[1], arrival_fn=lambda r: r[2])
    b = p | "B" >> beam.Create([("b", 1, 0)]).with_watermarks(
        b_strategy, timestamp_fn=lambda r: r[1], arrival_fn=lambda r: r[2]
    )
    grouped = (
        (a, b)
        | beam.Flatten()
        | beam.Map(lambda r: ("k", f"{r[0]}{r[1]}"))
        | beam.WindowInto(FixedWindows(10))
        | beam.GroupByKey().with_late_output()
    )
    main, late = materialize(grouped.main), materialize(grouped.late)
    result = p.run()
    panes = sorted((int(wv.windows[0].start), sorted(wv.value[1])) for wv in main.windowed_values)
    return (
        panes,
        [wv.value[1] for wv in late.windowed_values],
        result.metrics().counter("dropped_late"),
    )


def test_a_quiet_source_holds_back_the_combined_watermark():
    panes, late, dropped = _run(MONOTONOUS)
    assert panes == [(0, ["a1", "a3", "a5", "b1"]), (20, ["a25"])]
    assert (late, dropped) == ([], 0)


def test_an_idle_source_no_longer_holds_it_back():
    panes, late, dropped = _run(MONOTONOUS.with_idleness(5))
    assert panes == [(0, ["a1", "a5", "b1"]), (20, ["a25"])]
    assert (late, dropped) == (["a3"], 1)


def test_bounded_out_of_orderness_tolerates_the_delay():
    p = beam.Pipeline()
    records = [("k", 1), ("k", 12), ("k", 8), ("k", 30), ("k", 9)]
    grouped = (
        p
        | beam.Create(records).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(5), timestamp_fn=lambda r: r[1]
        )
        | beam.WindowInto(FixedWindows(10))
        | beam.GroupByKey().with_late_output()
    )
    main, late = materialize(grouped.main), materialize(grouped.late)
    p.run()
    # 8 arrives when the watermark is 12 - 5 = 7: in time; 9 arrives after 30 moved it to 25.
    assert sorted(
        (int(wv.windows[0].start), sorted(wv.value[1])) for wv in main.windowed_values
    ) == [(0, [1, 8]), (10, [12]), (30, [30])]
    assert [wv.value for wv in late.windowed_values] == [("k", 9)]


def test_with_watermarks_needs_a_strategy():
    with pytest.raises(PipelineConstructionError, match="WatermarkStrategy"):
        beam.Create([1]).with_watermarks(5)
