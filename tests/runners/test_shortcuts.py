"""The one decision of a grouping's path, and each shortcut against the engine path: on generated
pipelines, the batch path (direct, and Spark's with a map-side combine) and the Spark SQL
lowering give exactly the panes that the key driver gives when every grouping takes the engine
path — values, timestamps, windows, pane info, and the order a step's outputs come in."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import BATCH_WINDOW_FNS, seconds

import panes as beam
import panes.runners.direct.executors as direct_executors
from panes.runners.shortcuts import BATCH, ENGINE, SQL, grouping_path
from panes.testing import TestStream, materialize
from panes.transforms.combiners import CountFn, MeanFn
from panes.trigger import AfterCount, AfterWatermark
from panes.window import (
    CountWindows,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
    TimestampCombiner,
    TimestampedValue,
)

COMBINERS = [None, sum, CountFn(), MeanFn()]  # None: GroupByKey

elements = st.lists(st.tuples(st.sampled_from("abc"), st.integers(-3, 9), seconds), max_size=30)
# The triggers that fire once on batch input: the default, and AfterWatermark() alone.
BATCH_TRIGGERS = [None, AfterWatermark()]
groupings = st.tuples(
    st.sampled_from(BATCH_WINDOW_FNS),
    st.sampled_from(COMBINERS),
    st.sampled_from(list(TimestampCombiner)),
    st.sampled_from([0, 5]),
    st.sampled_from(BATCH_TRIGGERS),
)


def grouped(p, records, grouping):
    window_fn, combine, timestamp_combiner, lateness, trigger = grouping
    windowed = (
        p
        | beam.Create([TimestampedValue((key, value), t) for key, value, t in records])
        | beam.WindowInto(
            window_fn,
            trigger=trigger,
            timestamp_combiner=timestamp_combiner,
            allowed_lateness=lateness,
            allow_unsafe_triggers=True,  # AfterWatermark() with lateness: safe on batch input
        )
    )
    return windowed | (beam.GroupByKey() if combine is None else beam.CombinePerKey(combine))


def panes_of(handle) -> list:
    """A run's panes in the order they came, with their steps; a GroupByKey's lists sorted
    (Beam gives them in no order)."""
    return [
        (_sorted_lists(wv.value), wv.timestamp, wv.windows, wv.pane_info, step)
        for step, wv in zip(handle.steps, handle.windowed_values)
    ]


def _sorted_lists(value):
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], list):
        return value[0], sorted(value[1])
    return value


def run(runner, build) -> list:
    p = beam.Pipeline(runner=runner)
    handle = materialize(build(p))
    p.run()
    return panes_of(handle)


def on_the_engine_path(build, monkeypatch) -> list:
    """The direct run of ``build`` with every grouping on the engine path."""
    with monkeypatch.context() as patch:
        patch.setattr(direct_executors, "grouping_path", lambda *args, **kwargs: ENGINE)
        return run("direct", build)


# -- the decision ---------------------------------------------------------------------------------


def decided(build, **kwargs) -> dict:
    p = beam.Pipeline()
    build(p)
    ir = p.to_ir()
    return {
        node.id: grouping_path(ir, node, **kwargs)
        for node in ir.nodes.values()
        if node.kind in ("group_by_key", "combine_per_key")
    }


@pytest.mark.parametrize("trigger", BATCH_TRIGGERS, ids=["default", "AfterWatermark()"])
def test_a_trigger_that_fires_once_over_batch_input_takes_the_batch_path(trigger):
    def build(p):
        return grouped(p, [("a", 1, 1)], (FixedWindows(10), sum, None, 0, trigger))

    p = beam.Pipeline()
    build(p)
    ir = p.to_ir()
    (node,) = [n for n in ir.nodes.values() if n.kind == "combine_per_key"]
    assert grouping_path(ir, node, batch_end=10) == BATCH
    assert grouping_path(ir, node, batch_end=None) == ENGINE


def test_another_trigger_takes_the_engine_path_even_over_batch_input():
    def build(p):
        return (
            p
            | beam.Create([("a", 1)])
            | beam.WindowInto(GlobalWindows(), trigger=AfterWatermark(early=AfterCount(1)))
            | beam.CombinePerKey(sum)
        )

    assert set(decided(build, batch_end=10).values()) == {ENGINE}


def test_count_windows_under_after_watermark_take_the_engine_path():
    """Count windows imply their own trigger only in place of the default one."""

    def build(p):
        return (
            p
            | beam.Create([("a", 1)])
            | beam.WindowInto(CountWindows(2), trigger=AfterWatermark())
            | beam.CombinePerKey(sum)
        )

    assert set(decided(build, batch_end=10).values()) == {ENGINE}


def test_only_a_runner_with_the_lowering_takes_the_sql_path(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="the Parquet source needs the parquet extra")
    import pyarrow.parquet as pq

    path = str(tmp_path / "events.parquet")
    pq.write_table(pa.Table.from_pylist([{"key": "a", "value": 1, "seconds": 1.0}]), path)

    def build(p):
        return (
            p
            | beam.io.ReadFromParquet(path)
            | beam.WithTimestampField("seconds")
            | beam.WindowInto(FixedWindows(60))
            | beam.GroupBy("key").aggregate_field("value", sum, "total")
        )

    assert set(decided(build, sql=True).values()) == {SQL}
    assert set(decided(build, batch_end=10).values()) == {BATCH}


def test_a_test_stream_is_not_batch_input_and_takes_the_engine_path(monkeypatch):
    stream = TestStream().add_elements([("a", 1)]).advance_watermark_to(5).add_elements([("a", 2)])

    def build(p):
        return p | stream | beam.WindowInto(FixedWindows(10)) | beam.CombinePerKey(sum)

    taken = []
    original = direct_executors.grouping_path

    def noted(*args, **kwargs):
        taken.append(original(*args, **kwargs))
        return taken[-1]

    monkeypatch.setattr(direct_executors, "grouping_path", noted)
    run("direct", build)
    assert taken == [ENGINE]


# -- each shortcut against the engine path ------------------------------------------------------


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(elements, groupings)
def test_the_batch_path_gives_the_engine_paths_panes(monkeypatch, records, grouping):
    def build(p):
        return grouped(p, records, grouping)

    assert run("direct", build) == on_the_engine_path(build, monkeypatch)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(elements, groupings, st.sampled_from([1, 3]))
def test_the_spark_batch_path_gives_the_engine_paths_panes(
    spark, monkeypatch, records, grouping, partitions
):
    from panes.runners.spark import SparkRunner

    def build(p):
        return grouped(p, records, grouping)

    spark_panes = run(SparkRunner(partitions=partitions), build)
    assert spark_panes == on_the_engine_path(build, monkeypatch)


rows = st.lists(
    st.fixed_dictionaries(
        {
            "key": st.sampled_from(["a", "b", "c"]),
            "value": st.integers(-50, 100),
            "seconds": st.one_of(st.integers(-30, 90), st.integers(-6, 18).map(lambda n: 5 * n)),
        }
    ),
    min_size=1,
    max_size=40,
)
SQL_WINDOW_FNS = [FixedWindows(10), FixedWindows(10, offset=3), SlidingWindows(10, 5), Sessions(5)]


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows,
    st.sampled_from(SQL_WINDOW_FNS),
    st.sampled_from([sum, min, max, CountFn(), MeanFn()]),
    st.sampled_from(BATCH_TRIGGERS),
)
def test_the_sql_path_gives_the_engine_paths_panes(
    spark, monkeypatch, records, window_fn, combine, trigger
):
    import panes.runners.spark.runner as spark_runner
    from panes.runners.spark.dataframe import ReadFromDataFrame
    from panes.runners.spark.lowering import lower_aggregations

    frame = spark.createDataFrame(records, "key string, value long, seconds long")

    def build(p):
        return (
            p
            | ReadFromDataFrame(frame)
            | beam.WithTimestampField("seconds")
            | beam.WindowInto(window_fn, trigger=trigger)
            | beam.GroupBy("key").aggregate_field("value", combine, "out")
        )

    queries = []
    with monkeypatch.context() as patch:

        def noted(ir, session):
            lowered = lower_aggregations(ir, session)
            queries.append(lowered[1])
            return lowered

        patch.setattr(spark_runner, "lower_aggregations", noted)
        sql_panes = run("spark", build)
    assert queries and queries[0], "the chain was not lowered to Spark SQL"
    assert sql_panes == on_the_engine_path(build, monkeypatch)
