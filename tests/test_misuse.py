"""Misuse gets a clear error that names what is wrong and how to fix it, before anything runs
where that is possible, and never as a deep stack trace from a runner."""

import collections
import copy
import dataclasses
import enum
import threading

import pytest

import panes as beam
from panes.compiler import validate
from panes.errors import PipelineConstructionError, UserCodeError, ValidationError
from panes.testing import materialize
from panes.trigger import (
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    DeltaTrigger,
    EventTimeTrigger,
    Repeatedly,
)
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, Sessions


def one_node_ir():
    p = beam.Pipeline()
    p | beam.Create([1])
    return p.to_ir()


def duplicate_label():
    p = beam.Pipeline()
    numbers = p | beam.Create([1])
    numbers | "Show" >> beam.Map(str)
    numbers | "Show" >> beam.Map(repr)


def unpicklable_function():
    lock = threading.Lock()
    p = beam.Pipeline()
    p | beam.Create([1]) | "UsesLock" >> beam.Map(lambda x: (lock, x))
    p.run()


def unsafe_trigger():
    p = beam.Pipeline()
    p | beam.Create([("k", 1)]) | beam.WindowInto(FixedWindows(1), trigger=AfterCount(2))


def unsafe_late_trigger():
    p = beam.Pipeline()
    (
        p
        | beam.Create([("k", 1)])
        | "Hourly"
        >> beam.WindowInto(FixedWindows(3600), trigger=AfterWatermark(), allowed_lateness=60)
    )


def delta_trigger_in_sessions():
    p = beam.Pipeline()
    (
        p
        | beam.Create([("k", 1)])
        | beam.WindowInto(Sessions(10), trigger=DeltaTrigger(1, lambda a, b: b - a))
    )


def combine_globally_with_defaults_in_fixed_windows():
    p = beam.Pipeline()
    p | beam.Create([1]) | beam.WindowInto(FixedWindows(10)) | "Total" >> beam.CombineGlobally(sum)


def grouping_non_pairs():
    p = beam.Pipeline()
    p | beam.Create([1, 2]) | "Group" >> beam.GroupByKey()


def version_mismatch():
    validate(dataclasses.replace(one_node_ir(), version=99))


def unknown_node_kind():
    ir = one_node_ir()
    node = next(iter(ir.nodes.values()))
    validate(dataclasses.replace(ir, nodes={node.id: dataclasses.replace(node, kind="teleport")}))


def flatten_of_different_windowing():
    p = beam.Pipeline()
    plain = p | "Plain" >> beam.Create([1])
    windowed = p | "Windowed" >> beam.Create([2]) | beam.WindowInto(FixedWindows(1))
    (plain, windowed) | beam.Flatten()


def undeclared_output_tag():
    class Tagger(beam.DoFn):
        def process(self, element):
            yield beam.TaggedOutput("other", element)

    p = beam.Pipeline()
    p | beam.Create([1]) | "Tagger" >> beam.ParDo(Tagger())
    p.run()


def group_by_of_pairs():
    p = beam.Pipeline()
    p | beam.Create([("a", 1)]) | beam.GroupBy("key").aggregate_field("value", sum, "total")


MISUSES = [
    # (what is done, error type, words the message must contain: what is wrong, and the fix)
    (duplicate_label, PipelineConstructionError, ["'Show' already exists", "unique label"]),
    (unpicklable_function, ValidationError, ["cannot serialize", "DoFn.setup()"]),
    (
        lambda: beam.Pipeline(options={"runnr": "spark"}),
        PipelineConstructionError,
        ["unknown pipeline option", "Did you mean 'runner'?", "PipelineOptions subclass"],
    ),
    (
        lambda: beam.Pipeline(runner="flink"),
        PipelineConstructionError,
        ["unknown runner 'flink'", "DirectRunner", "SparkRunner"],
    ),
    (
        lambda: [1, 2] | beam.Map(str),
        PipelineConstructionError,
        ["Map(str)", "must be applied to a pipeline, a PCollection"],
    ),
    (
        lambda: beam.Pipeline() | beam.Map(str),
        PipelineConstructionError,
        ["not the pipeline itself", "start with p | Create(...)"],
    ),
    (
        lambda: beam.WindowInto(FixedWindows),
        PipelineConstructionError,
        ["got the class FixedWindows", "WindowInto(FixedWindows(...))"],
    ),
    (
        lambda: beam.WindowInto(FixedWindows(1), allowed_lateness=-5),
        PipelineConstructionError,
        ["allowed_lateness must not be negative", "use 0"],
    ),
    (
        lambda: beam.WindowInto(FixedWindows(1), accumulation_mode="sometimes"),
        PipelineConstructionError,
        ["accumulation_mode", "AccumulationMode.ACCUMULATING"],
    ),
    (
        unsafe_trigger,
        PipelineConstructionError,
        [
            "WindowInto(FixedWindows)",
            "unsafe trigger",
            "may lose data",
            "Repeatedly",
            "allow_unsafe_triggers=True",
        ],
    ),
    (
        unsafe_late_trigger,
        PipelineConstructionError,
        ["Hourly: unsafe trigger AfterWatermark", "late=AfterCount(1)", "--allow_unsafe_triggers"],
    ),
    (
        delta_trigger_in_sessions,
        PipelineConstructionError,
        [
            "WindowInto(Sessions)",
            "DeltaTrigger cannot be used with merging windows",
            "CountTrigger",
        ],
    ),
    (
        lambda: AfterProcessingTime(-5),
        PipelineConstructionError,
        ["AfterProcessingTime needs a delay of 0 or more", "use AfterProcessingTime(0)"],
    ),
    (
        lambda: EventTimeTrigger.afterFirstElement(-1),
        PipelineConstructionError,
        ["EventTimeAfterFirstElement needs a delay of 0 or more"],
    ),
    (
        combine_globally_with_defaults_in_fixed_windows,
        PipelineConstructionError,
        [
            "Total: Default values are not yet supported in CombineGlobally()",
            "not windowed by GlobalWindows",
            "CombineGlobally().without_defaults()",
        ],
    ),
    (grouping_non_pairs, PipelineConstructionError, ["GroupByKey 'Group'", "WithKeys"]),
    (version_mismatch, ValidationError, ["IR version 99", "recompile"]),
    (unknown_node_kind, ValidationError, ["node 'Create'", "unknown kind 'teleport'"]),
    (lambda: beam.Map(3), PipelineConstructionError, ["Map needs a callable"]),
    (
        lambda: beam.CombinePerKey(beam.combiners.MeanFn),
        PipelineConstructionError,
        ["CombinePerKey", "MeanFn()"],
    ),
    (
        lambda: beam.AsSingleton([1]),
        PipelineConstructionError,
        ["AsSingleton takes a PCollection", "Create([...])"],
    ),
    (
        flatten_of_different_windowing,
        PipelineConstructionError,
        ["Flatten", "different windowing strategies"],
    ),
    (
        lambda: beam.Partition(lambda x, n: 0, 0),
        PipelineConstructionError,
        ["Partition", "positive number of partitions"],
    ),
    (undeclared_output_tag, UserCodeError, ["'Tagger'", "with_outputs('other')"]),
    (
        lambda: beam.GroupBy(),
        PipelineConstructionError,
        ["GroupBy needs at least one key field", "GroupBy('key')", "CombineGlobally"],
    ),
    (
        lambda: beam.GroupBy(lambda row: row["key"]),
        PipelineConstructionError,
        ["GroupBy takes field names", "GroupByKey()"],
    ),
    (lambda: beam.GroupBy("key", "key"), PipelineConstructionError, ["names a key field twice"]),
    (
        lambda: beam.GroupBy("key").aggregate_field("value", sorted, "total"),
        PipelineConstructionError,
        [
            "GroupBy(key).aggregate_field('value', ..., 'total')",
            "not a built-in combiner",
            "CountFn()",
            "CombinePerKey",
        ],
    ),
    (
        lambda: beam.GroupBy("key").aggregate_field("value", beam.combiners.TopCombineFn(3), "top"),
        PipelineConstructionError,
        ["not a built-in combiner", "MeanFn()"],
    ),
    (
        lambda: beam.GroupBy("key").aggregate_field("value", beam.combiners.MeanFn, "mean"),
        PipelineConstructionError,
        ["aggregate_field('value', ..., 'mean')", "MeanFn()"],
    ),
    (
        lambda: beam.GroupBy("key").aggregate_field(3, sum, "total"),
        PipelineConstructionError,
        ["field to aggregate must be a field name", "got 3"],
    ),
    (
        lambda: beam.GroupBy("key").aggregate_field("value", sum, ""),
        PipelineConstructionError,
        ["output name must be a non-empty string"],
    ),
    (
        lambda: beam.GroupBy("key").aggregate_field("value", sum, "key"),
        PipelineConstructionError,
        ["'key' is already a key field or output", "its own name"],
    ),
    (
        group_by_of_pairs,
        PipelineConstructionError,
        ["GroupBy(key) needs rows (dicts)", "(key, value) pairs", "CombinePerKey"],
    ),
    (
        lambda: beam.WithTimestampField(None),
        PipelineConstructionError,
        ["WithTimestampField needs the name of the field", "WithTimestampField('seconds')"],
    ),
]


@pytest.mark.parametrize(
    "misuse, error, words",
    MISUSES,
    ids=[
        m[0].__name__ if m[0].__name__ != "<lambda>" else f"case{i}" for i, m in enumerate(MISUSES)
    ],
)
def test_misuse_gets_a_clear_error(misuse, error, words):
    with pytest.raises(error) as caught:
        misuse()
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(
    "window_into_allows, option_allows",
    [(True, False), (False, True)],
    ids=["WindowInto-argument", "pipeline-option"],
)
def test_an_unsafe_trigger_runs_when_allowed(window_into_allows, option_allows):
    p = beam.Pipeline(options={"allow_unsafe_triggers": option_allows})
    grouped = (
        p
        | beam.Create([("k", 1), ("k", 2), ("k", 3)])
        | beam.WindowInto(
            FixedWindows(10), trigger=AfterCount(2), allow_unsafe_triggers=window_into_allows
        )
        | beam.GroupByKey()
    )
    out = materialize(grouped)
    p.run()
    assert out.values == [("k", [1, 2, 3])]  # one bundle: AfterCount(2) fires once, with all


def test_a_failing_user_function_names_the_transform_and_element(runner):
    p = beam.Pipeline(runner=runner)
    p | beam.Create([("a", 1), ("a", "x")]) | "Total" >> beam.CombinePerKey(sum)
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert caught.value.label == "Total"
    assert isinstance(caught.value.cause, TypeError)


def stop_at(bad):
    def fn(value):
        if value == bad:
            raise StopIteration
        return value

    return fn


def test_a_user_function_raising_stop_iteration_fails_instead_of_ending_the_input(runner):
    p = beam.Pipeline(runner=runner)
    p | beam.Create([1, 2, 3]) | "Stops" >> beam.Map(stop_at(2))
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert (caught.value.label, caught.value.element) == ("Stops", 2)


def test_a_timestamp_function_raising_stop_iteration_fails_naming_the_record(runner, tmp_path):
    (tmp_path / "lines.txt").write_text("1\n2\n3\n")
    p = beam.Pipeline(runner=runner)
    stops = stop_at("2")
    p | "Read" >> beam.io.ReadFromText(str(tmp_path / "lines.txt")).with_watermarks(
        WatermarkStrategy.for_monotonous_timestamps(), timestamp_fn=lambda line: int(stops(line))
    )
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert (caught.value.label, caught.value.element) == ("Read", "2")


class Point:
    """A key class without __eq__: its instances compare by identity."""

    def __init__(self, x):
        self.x = x

    def __repr__(self):
        return f"Point({self.x})"


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class Cell:
    row: int


KEYS_THAT_CANNOT_GROUP = [
    # (key, words the message must contain: the key, what is wrong, the fix)
    (
        Point(1),
        [
            "the key Point(1)",
            "a Point compares by identity",
            "give Point __eq__ and __hash__",
            "dataclass(frozen=True)",
        ],
    ),
    (("a", Point(2)), ["the key Point(2)", "compares by identity"]),
    ([1, 2], ["the key [1, 2]", "a list is not hashable", "tuple(key)"]),
]


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "streaming"])
@pytest.mark.parametrize(
    "key, words", KEYS_THAT_CANNOT_GROUP, ids=["identity", "identity-in-tuple", "unhashable"]
)
def test_a_key_that_cannot_group_fails_naming_the_transform_key_and_fix(runner, key, words, batch):
    p = beam.Pipeline(runner=runner)
    pairs = p | beam.Create([(key, 1), (key, 2)])
    if not batch:  # an early trigger takes the replaying path instead of the batch one
        pairs |= beam.WindowInto(beam.window.GlobalWindows(), trigger=Repeatedly(AfterCount(1)))
    pairs | "Group" >> beam.GroupByKey()
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert caught.value.label == "Group"
    for word in words:
        assert word in str(caught.value)


def test_keys_that_compare_by_value_group(runner):
    Pair = collections.namedtuple("Pair", "a b")
    keys = [None, Color.RED, Cell(3), Pair("x", Color.RED), frozenset({1, 2}), ("t", None), 2.5]
    p = beam.Pipeline(runner=runner)
    # Every key twice, as distinct but equal objects after pickling (copy.deepcopy).
    out = materialize(
        p
        | beam.Create([(key, n) for n in (1, 2) for key in copy.deepcopy(keys)])
        | beam.CombinePerKey(sum)
    )
    p.run()
    assert sorted(out.values, key=repr) == sorted([(key, 3) for key in keys], key=repr)


@pytest.mark.parametrize(
    "rows, words",
    [
        ([{"key": "a", "seconds": 1}], ["'GroupBy(key)/KeyByFields'", "has no field 'value'"]),
        ([["a", 1, 1]], ["'WithTimestampField(seconds)'", "needs dict elements"]),
    ],
)
def test_rows_without_the_named_fields_fail_naming_the_transform_and_field(runner, rows, words):
    p = beam.Pipeline(runner=runner)
    (
        p
        | beam.Create(rows)
        | beam.WithTimestampField("seconds")
        | beam.GroupBy("key").aggregate_field("value", sum, "total")
    )
    with pytest.raises(UserCodeError) as caught:
        p.run()
    for word in words:
        assert word in str(caught.value)
