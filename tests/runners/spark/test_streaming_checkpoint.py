"""What panes keeps beside a streaming query's checkpoint: the pipeline's structure, so that a
restart with another pipeline is refused naming what changed (a fixed user function is not a
change), and one commit record per published micro-batch with its metrics."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.metrics import MetricName, MetricsContainer
from panes.runners.spark.streaming.checkpoint import CheckpointStore, changes, structure
from panes.window import FixedWindows, Sessions


def _ir(window=None, fn=lambda kv: kv, extra=False):
    window = window or FixedWindows(10)
    p = beam.Pipeline()
    pairs = p | "Read" >> beam.Create([("a", 1)]) | "Fn" >> beam.Map(fn)
    grouped = pairs | "Window" >> beam.WindowInto(window) | "Group" >> beam.GroupByKey()
    if extra:
        grouped | "Count" >> beam.Map(len)
    return p.to_ir()


def test_a_changed_user_function_keeps_the_structure():
    assert changes(structure(_ir()), structure(_ir(fn=lambda kv: (kv[0], kv[1] + 1)))) == []


def test_structural_changes_are_named():
    assert changes(structure(_ir()), structure(_ir(window=Sessions(5)))) == [
        "the windowing of 'Group' changed"
    ]
    assert changes(structure(_ir()), structure(_ir(extra=True))) == ["transform 'Count' was added"]
    assert changes(structure(_ir(extra=True)), structure(_ir())) == [
        "transform 'Count' was removed"
    ]


def test_a_checkpoint_refuses_another_pipeline(tmp_path):
    CheckpointStore(str(tmp_path)).check_structure(_ir())
    CheckpointStore(str(tmp_path)).check_structure(_ir())  # the same pipeline restarts
    with pytest.raises(
        PipelineConstructionError, match="'Count' was added.*new --checkpoint_location"
    ):
        CheckpointStore(str(tmp_path)).check_structure(_ir(extra=True))


def test_metrics_are_those_of_committed_micro_batches(tmp_path):
    store = CheckpointStore(str(tmp_path))
    for batch_id, n in ((0, 2), (1, 3)):
        metrics = MetricsContainer()
        metrics.inc("Fn", MetricName("user", "seen"), n)
        store.commit(batch_id, metrics)
    reopened = CheckpointStore(str(tmp_path))
    assert reopened.is_committed(1) and not reopened.is_committed(2)
    assert reopened.metrics().counters == {("Fn", MetricName("user", "seen")): 5}
