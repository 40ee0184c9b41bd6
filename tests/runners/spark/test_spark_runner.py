"""Spark runner specifics: session and Java checks, errors from workers, metrics, partitioning."""

import os
import subprocess
import sys

import pytest

import panes as beam
from panes.errors import RunnerError, UserCodeError
from panes.metrics import Metrics
from panes.runners.spark import SparkRunner
from panes.runners.spark.session import parse_java_version
from panes.testing import materialize
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.window import FixedWindows, Sessions, TimestampedValue


@pytest.mark.parametrize(
    "banner, major",
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "21" 2023-09-19', 21),
    ],
)
def test_reads_java_versions(banner, major):
    assert parse_java_version(banner) == major


def test_unreadable_java_version_says_how_to_install():
    with pytest.raises(RunnerError, match="install a JDK 17"):
        parse_java_version("no java here")


def _events(n=40, keys=3):
    return [TimestampedValue((f"k{i % keys}", i), i * 0.5) for i in range(n)]


def _windowed_pipeline(p):
    events = p | beam.Create(_events())
    fixed = events | "Fixed" >> beam.WindowInto(FixedWindows(5))
    early = events | "Early" >> beam.WindowInto(
        Sessions(2),
        trigger=AfterWatermark(early=AfterCount(3)),
        accumulation_mode=AccumulationMode.ACCUMULATING,
    )
    return [
        materialize(fixed | "Sum" >> beam.CombinePerKey(sum)),
        materialize(fixed | "Group" >> beam.GroupByKey()),
        materialize(early | "SessionSums" >> beam.CombinePerKey(sum)),
    ]


def _run(runner):
    p = beam.Pipeline(runner=runner)
    handles = _windowed_pipeline(p)
    p.run()
    return [h.windowed_values for h in handles]


@pytest.mark.parametrize("partitions, shuffle_seed", [(1, None), (2, None), (7, None), (3, 11)])
def test_outputs_equal_the_direct_runner_whatever_the_partitioning(spark, partitions, shuffle_seed):
    expected = _run("direct")
    actual = _run(SparkRunner(partitions=partitions, shuffle_seed=shuffle_seed))
    for want, got in zip(expected, actual):
        assert sorted(map(repr, got)) == sorted(map(repr, want))


def test_user_code_error_names_the_transform_and_element(spark):
    p = beam.Pipeline(runner="spark")
    p | beam.Create([1, 2, 0, 4]) | "Invert" >> beam.Map(lambda x: 1 / x)
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert caught.value.label == "Invert"
    assert caught.value.element == 0
    assert isinstance(caught.value.cause, ZeroDivisionError)


class _CountingDoFn(beam.DoFn):
    def process(self, element):
        Metrics.counter("test", "seen").inc()
        Metrics.distribution("test", "sizes").update(element)
        yield element


def test_metrics_from_workers_are_counted_once(spark):
    p = beam.Pipeline(runner="spark")
    doubled = p | beam.Create(range(10)) | "Count" >> beam.ParDo(_CountingDoFn())
    materialize(doubled | "Keyed" >> beam.Map(lambda x: (x % 2, x)) | beam.GroupByKey())
    materialize(doubled)
    result = p.run()
    assert result.metrics().counter("seen") == 10


def test_reads_a_dataframe_in_place_and_in_the_direct_runner(spark):
    from panes.runners.spark.dataframe import ReadFromDataFrame

    frame = spark.createDataFrame(
        [("a", 1, 0.5), ("b", 2, 1.5), ("a", 3, 7.0)], ["key", "n", "t"]
    ).repartition(2)
    results = {}
    for runner in ("direct", "spark"):
        p = beam.Pipeline(runner=runner)
        rows = p | ReadFromDataFrame(frame)
        out = materialize(
            rows | beam.Map(lambda row: (row["key"], row["n"])) | beam.CombinePerKey(sum)
        )
        p.run()
        results[runner] = sorted(out.values)
    assert results["spark"] == results["direct"] == [("a", 4), ("b", 2)]


@pytest.mark.parametrize("runner_name", ["direct", "spark"])
def test_a_dataframes_registry_entry_lives_for_its_run_only(spark, runner_name, monkeypatch):
    """The IR names a DataFrame by a registry key: registered when the pipeline is compiled,
    released when its run ends, whether the run succeeds or fails."""
    from panes.io import dataframe, kinds
    from panes.ir import io
    from panes.runners import create_runner

    keys = []
    runner_class = type(create_runner(runner_name))
    run_pipeline = runner_class.run_pipeline

    def run_noting_keys(self, ir, options=None):
        for node in ir.nodes.values():
            if node.kind == "read" and isinstance(node.payload["source"], io.DataFrameSource):
                keys.append(node.payload["source"].key)
                assert node.payload["source"].key in dataframe._frames  # live during the run
        return run_pipeline(self, ir, options)

    monkeypatch.setattr(runner_class, "run_pipeline", run_noting_keys)
    frame = spark.createDataFrame([("a", 1), ("b", 2)], ["key", "n"])
    p = beam.Pipeline(runner=runner_name)
    out = materialize(p | dataframe.ReadFromDataFrame(frame) | beam.Map(lambda row: row["n"]))
    p.run()
    assert sorted(out.values) == [1, 2]
    failing = beam.Pipeline(runner=runner_name)
    failing | dataframe.ReadFromDataFrame(frame) | beam.Map(lambda row: 1 / 0)
    with pytest.raises(UserCodeError):
        failing.run()
    assert len(keys) == 2 and not set(keys) & set(dataframe._frames)
    with pytest.raises(RunnerError, match=f"DataFrame {keys[0]} is not registered"):
        kinds.from_ir(io.DataFrameSource(keys[0]))


def test_a_dataframe_read_record_at_a_time_scans_its_watermark_in_parallel(spark):
    from panes.runners.spark.dataframe import ReadFromDataFrame
    from panes.watermark import WatermarkStrategy

    rows = [(f"k{i % 3}", i, (i * 7) % 50 + i) for i in range(60)]  # out of order
    frame = spark.createDataFrame(rows, ["key", "n", "t"]).repartition(3)
    ordered = spark.createDataFrame(frame.collect(), frame.schema).coalesce(1)
    results = []
    for runner, dataframe in (("direct", ordered), (SparkRunner(partitions=3), frame)):
        p = beam.Pipeline(runner=runner)
        read = ReadFromDataFrame(dataframe).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(5).with_periodic_emission(2),
            timestamp_fn=lambda row: row["t"],
        )
        sums = (
            p
            | read
            | beam.Map(lambda row: (row["key"], row["n"]))
            | beam.WindowInto(
                FixedWindows(10),
                trigger=AfterWatermark(early=AfterCount(2)),
                accumulation_mode=AccumulationMode.DISCARDING,
            )
            | beam.CombinePerKey(sum).with_late_output("late")
        )
        handles = materialize(sums.main, "Main"), materialize(sums.late, "Late")
        result = p.run()
        results.append(
            (
                [sorted(map(repr, h.windowed_values)) for h in handles],
                result.metrics().counter("dropped_late"),
            )
        )
    assert results[0] == results[1]
    assert results[0][1] > 0  # the scenario does produce late data


def test_runs_on_a_session_the_user_passes(spark):
    p = beam.Pipeline(runner="spark", options={"spark_session": spark})
    out = materialize(p | beam.Create([("a", 1), ("a", 2), ("b", 5)]) | beam.CombinePerKey(sum))
    p.run()
    assert sorted(out.values) == [("a", 3), ("b", 5)]


def _base_python() -> str:
    """This virtual environment's base interpreter, which has no panes."""
    return os.path.join(sys.base_prefix, "bin", "python3")


def test_a_session_whose_local_workers_cannot_import_panes_is_refused_first(spark):
    """A session the user made without PYSPARK_PYTHON runs its workers on ``python3``; when
    that Python has no panes, the run says so before any task fails with a trace."""
    if subprocess.run([_base_python(), "-c", "import panes"], capture_output=True).returncode == 0:
        pytest.skip("the base interpreter of this environment imports panes: nothing to refuse")
    context = spark.sparkContext
    own = context.pythonExec
    context.pythonExec = _base_python()
    try:
        p = beam.Pipeline(runner=SparkRunner(), options={"spark_session": spark})
        p | beam.Create([1, 2]) | beam.Map(lambda x: x + 1)
        with pytest.raises(RunnerError) as refused:
            p.run()
    finally:
        context.pythonExec = own
    assert f"the Spark session's workers run '{_base_python()}', which cannot import panes" in str(
        refused.value
    )
    assert f"PYSPARK_PYTHON={sys.executable}" in str(refused.value)


def test_jobs_are_described_by_transform_label(spark):
    seen = []
    original = spark.sparkContext.setJobDescription
    spark.sparkContext.setJobDescription = lambda text: (seen.append(text), original(text))
    try:
        p = beam.Pipeline(runner="spark")
        events = p | beam.Create([TimestampedValue(("k", 1), 1)])
        materialize(
            events
            | "Windowed"
            >> beam.WindowInto(FixedWindows(5), trigger=AfterWatermark(early=AfterCount(1)))
            | "EarlySums" >> beam.CombinePerKey(sum)
        )
        p.run()
    finally:
        del spark.sparkContext.setJobDescription
    assert "panes: EarlySums" in seen


def _collector_after_reading(sc, read_value) -> list:
    """Whether the cycle collector is on after a worker runs ``read_value`` with it paused."""
    import gc

    def read(_):
        gc.disable()
        try:
            read_value()
            return gc.isenabled()
        finally:
            gc.enable()

    return sc.parallelize([0], 1).map(read).collect()


def test_reading_a_broadcast_on_a_worker_keeps_the_cycle_collector_paused(spark):
    from panes.runners.spark.broadcast import Shared

    sc = spark.sparkContext
    raw, wrapped = sc.broadcast(list(range(10))), sc.broadcast(list(range(10)))
    try:
        # PySpark's loading switches the collector back on; Shared pauses it again.
        assert _collector_after_reading(sc, lambda: raw.value) == [True]
        shared = Shared(wrapped)
        assert _collector_after_reading(sc, lambda: shared.value) == [False]
    finally:
        raw.destroy()
        wrapped.destroy()


def test_a_reused_worker_leaves_what_it_imported_out_of_later_collections(spark):
    """PySpark's daemon runs a full collection after every task of a reused worker; objects
    alive after a task that imported modules are frozen, so those collections skip them (and
    a partition processed with the collector paused leaves them frozen)."""
    import gc

    def frozen_counts():
        p = beam.Pipeline(runner="spark")
        counts = materialize(p | beam.Create(range(8)) | beam.Map(lambda _: gc.get_freeze_count()))
        p.run()
        return counts.values

    frozen_counts()  # a worker's first task imports, and leaves its objects frozen
    frozen_counts()  # a partition processed with the collector paused
    assert min(frozen_counts()) > 0


def test_workers_start_with_pyspark_compiled_and_common_modules_imported(spark):
    """Spark puts its zips of pyspark and py4j first on the workers' path; when they are the
    installed pyspark's own, workers import the installed (compiled) package instead, and the
    daemon imported it and panes' common modules before forking them."""
    import os
    import sys

    import pyspark

    from panes.runners.spark.daemon import PRELOADED

    def origins(_):
        import py4j
        import pyspark

        return pyspark.__file__, py4j.__file__, all(name in sys.modules for name in PRELOADED)

    p = beam.Pipeline(runner="spark")
    seen = materialize(p | beam.Create(range(4)) | beam.Map(origins))
    p.run()
    home = os.environ.get("SPARK_HOME", os.path.dirname(pyspark.__file__))
    assert os.path.dirname(pyspark.__file__) == os.path.abspath(home)  # pyspark is SPARK_HOME
    assert set(seen.values) == {(pyspark.__file__, sys.modules["py4j"].__file__, True)}


def _through_groupings(runner, make):
    """Values made by ``make`` on the workers, through a lifted combine, a GroupByKey and a
    replayed grouping, and out to the driver."""
    p = beam.Pipeline(runner=runner)
    events = p | beam.Create(_events()) | "Make" >> beam.Map(lambda kv: (kv[0], make(kv[1])))
    fixed = events | beam.WindowInto(FixedWindows(5))
    early = events | "Early" >> beam.WindowInto(
        FixedWindows(5), trigger=AfterWatermark(early=AfterCount(2))
    )
    handles = [
        materialize(fixed | beam.CombinePerKey(lambda boxes: make(sum(b.n for b in boxes)))),
        materialize(
            fixed
            | beam.GroupByKey()
            | "Unbox" >> beam.Map(lambda kv: (kv[0], sorted(b.n for b in kv[1])))
        ),
        materialize(
            early
            | "Replayed"
            >> beam.CombinePerKey(lambda boxes: make(max((b.n for b in boxes), default=0)))
        ),
    ]
    p.run()
    return [
        sorted(
            repr((wv.value[0], getattr(wv.value[1], "n", wv.value[1]), wv.windows, wv.pane_info))
            for wv in h.windowed_values
        )
        for h in handles
    ]


def test_values_of_classes_defined_on_the_fly_cross_the_workers(spark):
    """Workers pickle with the C pickler first; a class that reached them by value cannot be
    pickled by reference, and such values go through cloudpickle instead."""

    class Box:
        def __init__(self, n):
            self.n = n

    assert _through_groupings(SparkRunner(partitions=3), Box) == _through_groupings("direct", Box)
