"""What panes keeps beside a streaming query's checkpoint: the pipeline's structure, so that a
restart with another pipeline is refused naming what changed (a fixed user function is not a
change), the layout of its state, and one commit record per published micro-batch with the
metrics so far, all through Hadoop's file system."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.metrics import MetricName, MetricsContainer
from panes.runners.spark.hadoop import HadoopFileSystems
from panes.runners.spark.streaming.checkpoint import (
    RETAINED_RECORDS,
    CheckpointStore,
    changes,
    structure,
)
from panes.window import FixedWindows, Sessions


def _ir(window=None, fn=lambda kv: kv, extra=False, count_label="Count", group="Group"):
    window = window or FixedWindows(10)
    p = beam.Pipeline()
    pairs = p | "Read" >> beam.Create([("a", 1)]) | "Fn" >> beam.Map(fn)
    grouped = pairs | "Window" >> beam.WindowInto(window) | group >> beam.GroupByKey()
    if extra:
        grouped | count_label >> beam.Map(len)
    return p.to_ir()


def test_a_changed_user_function_keeps_the_structure():
    assert changes(structure(_ir()), structure(_ir(fn=lambda kv: (kv[0], kv[1] + 1)))) == []


def test_structural_changes_are_named():
    assert changes(structure(_ir()), structure(_ir(window=Sessions(5)))) == [
        "the windowing of 'Group' changed (window_fn)"
    ]
    assert changes(structure(_ir()), structure(_ir(window=FixedWindows(20)))) == [
        "the windowing of 'Group' changed (window_fn)"
    ]
    assert changes(structure(_ir()), structure(_ir(extra=True))) == ["transform 'Count' was added"]
    assert changes(structure(_ir(extra=True)), structure(_ir())) == [
        "transform 'Count' was removed"
    ]


def test_a_renamed_transform_is_named_and_its_consumers_are_not_blamed():
    assert changes(structure(_ir(extra=True)), structure(_ir(extra=True, count_label="Size"))) == [
        "transform 'Count' was renamed to 'Size'"
    ]
    assert changes(structure(_ir(extra=True)), structure(_ir(extra=True, group="Gather"))) == [
        "transform 'Group' was renamed to 'Gather'"
    ]


def test_a_checkpoint_refuses_another_pipeline(tmp_path, spark):
    fs = HadoopFileSystems(spark.sparkContext)
    CheckpointStore(fs, str(tmp_path)).check_structure(_ir())
    CheckpointStore(fs, str(tmp_path)).check_structure(_ir())  # the same pipeline restarts
    with pytest.raises(
        PipelineConstructionError, match="'Count' was added.*new --checkpoint_location"
    ):
        CheckpointStore(fs, str(tmp_path)).check_structure(_ir(extra=True))


def test_the_state_layout_of_the_first_run_holds_after(tmp_path, spark):
    fs = HadoopFileSystems(spark.sparkContext)
    assert CheckpointStore(fs, str(tmp_path)).layout(2, 16) == (2, 32)
    assert CheckpointStore(fs, str(tmp_path)).layout(8, 16) == (2, 32)


def test_metrics_are_those_of_committed_micro_batches(tmp_path, spark):
    fs = HadoopFileSystems(spark.sparkContext)
    store = CheckpointStore(fs, str(tmp_path))
    total = MetricsContainer()
    for batch_id, n in ((0, 2), (1, 3)):
        total.inc("Fn", MetricName("user", "seen"), n)
        store.commit(batch_id, total)
    reopened = CheckpointStore(fs, str(tmp_path))
    assert reopened.is_committed(1) and not reopened.is_committed(2)
    assert reopened.metrics().counters == {("Fn", MetricName("user", "seen")): 5}


def test_old_commit_records_are_removed(tmp_path, spark):
    fs = HadoopFileSystems(spark.sparkContext)
    store = CheckpointStore(fs, str(tmp_path))
    for batch_id in range(RETAINED_RECORDS + 3):
        store.commit(batch_id, MetricsContainer())
    kept = sorted(p.name for p in (tmp_path / "panes" / "commits").glob("*.metrics"))
    assert len(kept) == RETAINED_RECORDS and kept[0] == f"{3:012d}.metrics"
