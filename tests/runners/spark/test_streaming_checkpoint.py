"""What panes keeps beside a streaming query's checkpoint: the pipeline's structure, so that a
restart with another pipeline is refused naming what changed (a fixed user function is not a
change), the layout of its state, and one commit record per published micro-batch with the
metrics so far, all through Hadoop's file system."""

import inspect

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
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import (
    BagStateSpec,
    ReadModifyWriteStateSpec,
    SetStateSpec,
    TimerSpec,
    on_timer,
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


def _stateful_ir(cells: dict, timers: dict, label="Dedup"):
    """A pipeline whose stateful DoFn ``label`` has ``cells`` (name -> state spec class) and
    ``timers`` (name -> time domain), each asked for by ``process``."""
    specs = [kind(name) for name, kind in cells.items()]
    timer_specs = [TimerSpec(name, domain) for name, domain in timers.items()]

    class Stateful(beam.DoFn):
        def process(self, kv, **specs):
            return []

    Stateful.process.__signature__ = inspect.Signature(
        [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for name in ("self", "kv")
        ]
        + [
            inspect.Parameter(f"spec{index}", inspect.Parameter.KEYWORD_ONLY, default=param(spec))
            for index, (param, spec) in enumerate(
                [(beam.DoFn.StateParam, spec) for spec in specs]
                + [(beam.DoFn.TimerParam, spec) for spec in timer_specs]
            )
        ]
    )
    for spec in timer_specs:
        callback = on_timer(spec)(lambda self: [])
        callback.__name__ = f"on_{spec.name}"
        setattr(Stateful, callback.__name__, callback)
    p = beam.Pipeline()
    p | beam.Create([("a", 1)]) | label >> beam.ParDo(Stateful())
    return p.to_ir()


DEDUP = {"seen": SetStateSpec, "last": ReadModifyWriteStateSpec}
EXPIRY = {"expiry": TimeDomain.WATERMARK}


def test_a_stateful_dofn_whose_state_cells_or_timers_changed_is_named():
    before = structure(_stateful_ir(DEDUP, EXPIRY))
    assert changes(before, structure(_stateful_ir(DEDUP, EXPIRY))) == []
    assert changes(before, structure(_stateful_ir({"seen": SetStateSpec}, EXPIRY))) == [
        "the state cells of 'Dedup' changed ('last' removed)"
    ]
    assert changes(before, structure(_stateful_ir({**DEDUP, "seen": BagStateSpec}, EXPIRY))) == [
        "the state cells of 'Dedup' changed ('seen' changed from set to bag)"
    ]
    flush = {**EXPIRY, "flush": TimeDomain.REAL_TIME}
    assert changes(before, structure(_stateful_ir(DEDUP, flush))) == [
        "the timers of 'Dedup' changed ('flush' added)"
    ]
    assert changes(before, structure(_stateful_ir(DEDUP, {"expiry": TimeDomain.REAL_TIME}))) == [
        "the timers of 'Dedup' changed ('expiry' changed from event_time to processing_time)"
    ]
    assert changes(before, structure(_stateful_ir(DEDUP, EXPIRY, label="Distinct"))) == [
        "transform 'Dedup' was renamed to 'Distinct'"
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
