"""Reading the IR from JSON checks every value against the IR's annotations: an impossible
value is refused with an error naming the node or collection and the field, and so is an IR of
another version, with what to do about it."""

import copy
import dataclasses
import json

import pytest
from ir_round_trip import set_in

import panes as beam
from panes.compiler import validate
from panes.errors import ValidationError
from panes.ir import IR_VERSION, from_json, to_json, triggers
from panes.ir import windowing as ir
from panes.trigger import AfterCount, AfterWatermark
from panes.window import FixedWindows

WINDOWED = "Window.main"


@pytest.fixture(scope="module")
def document() -> dict:
    """The JSON data of a small windowed pipeline."""
    p = beam.Pipeline()
    (
        p
        | beam.Create([("k", 1)])
        | "Window"
        >> beam.WindowInto(
            FixedWindows(60),
            trigger=AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
            allowed_lateness=30,
        )
        | "Group" >> beam.GroupByKey()
    )
    return json.loads(to_json(p.to_ir()))


def read(document, change) -> None:
    """``from_json`` of ``document`` after ``change(data)`` edits a copy of it."""
    data = copy.deepcopy(document)
    change(data)
    from_json(json.dumps(data))


def windowing(data) -> dict:
    return data["pcollections"][WINDOWED]["windowing"]


REFUSED = [
    # The examples: FixedWindows(size=0), AfterCount(-3), a count as a string, an
    # unknown field.
    (
        set_in(("nodes", "Window", "payload", "window_fn", "size"), 0),
        "node 'Window' (assign_windows), field payload.window_fn.size: must be at least 1, got 0",
    ),
    (
        set_in(
            ("pcollections", WINDOWED, "windowing", "trigger", "early"),
            {"kind": "element_count", "count": -3},
        ),
        f"pcollection '{WINDOWED}', field windowing.trigger.early.count: must be at least 1, "
        f"got -3",
    ),
    (
        set_in(
            ("pcollections", WINDOWED, "windowing", "trigger", "early"),
            {"kind": "element_count", "count": "3"},
        ),
        "field windowing.trigger.early.count: expected an integer, got the string '3'",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "window_fn", "sise"), 60),
        f"pcollection '{WINDOWED}', field windowing.window_fn.sise: unknown field 'sise'; "
        f"FixedWindows has size, offset",
    ),
    # More impossible values.
    (
        set_in(("pcollections", WINDOWED, "windowing", "window_fn", "offset"), 60_000_000),
        "field windowing.window_fn.offset: must be less than size (60000000), got 60000000",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "allowed_lateness"), -1),
        "field windowing.allowed_lateness: must be at least 0, got -1",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "allowed_lateness"), 2**63),
        "field windowing.allowed_lateness: 9223372036854775808 is outside the int64 range",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "allowed_lateness"), True),
        "field windowing.allowed_lateness: expected an integer, got true",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "accumulation_mode"), "retracting"),
        "field windowing.accumulation_mode: expected one of 'discarding', 'accumulating', got the "
        "string 'retracting'",
    ),
    (
        set_in(
            ("pcollections", WINDOWED, "windowing", "trigger"),
            {"kind": "after_all", "subtriggers": []},
        ),
        "field windowing.trigger.subtriggers: must not be empty",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "trigger"), {"kind": "after_forever"}),
        "field windowing.trigger: unknown trigger kind 'after_forever'; this panes knows ",
    ),
    (
        set_in(("pcollections", WINDOWED, "windowing", "trigger"), {"count": 3}),
        "field windowing.trigger: expected a trigger (an object with a 'kind')",
    ),
    (
        set_in(
            ("pcollections", WINDOWED, "windowing", "window_fn"),
            {"kind": "sliding_windows", "size": 10},
        ),
        "field windowing.window_fn.period: missing field 'period' of SlidingWindows",
    ),
    (
        set_in(("nodes", "Create", "payload", "values"), [1, 2]),
        "node 'Create' (create), field payload.values: expected pickled user code",
    ),
    (
        set_in(("nodes", "Group", "payload", "combine_fn"), None),
        "node 'Group' (group_by_key), field payload.combine_fn: unknown field 'combine_fn'; "
        "group_by_key payload has late_output",
    ),
    (set_in(("nodes", "Group", "kind"), "teleport"), "node 'Group' has unknown kind 'teleport'"),
    (
        set_in(("nodes", "Group", "inputs"), "Window.main"),
        "node 'Group', field inputs: expected a list, got the string 'Window.main'",
    ),
]


@pytest.mark.parametrize("change, message", REFUSED, ids=[m[:60] for _, m in REFUSED])
def test_from_json_refuses_an_impossible_value_naming_where_it_is(document, change, message):
    with pytest.raises(ValidationError) as refused:
        read(document, change)
    assert message in str(refused.value)


def test_the_unchanged_document_reads_back(document):
    assert to_json(from_json(json.dumps(document)))


def test_an_ir_built_in_python_is_checked_as_json_is(document):
    built = from_json(json.dumps(document))
    spec = built.pcollections[WINDOWED]
    strategy = dataclasses.replace(
        spec.windowing, window_fn=ir.FixedWindows(size=0), trigger=triggers.ElementCount(count="3")
    )
    broken = dataclasses.replace(
        built,
        pcollections={
            **built.pcollections,
            WINDOWED: dataclasses.replace(spec, windowing=strategy),
        },
    )
    with pytest.raises(
        ValidationError,
        match=f"pcollection '{WINDOWED}', field windowing.window_fn.size: must be at least 1",
    ):
        validate(broken)


def test_an_older_version_is_refused_with_how_to_migrate(document):
    version_1 = {"$type": "panes.ir.model.PipelineIR", "fields": {"version": 1}}
    with pytest.raises(
        ValidationError,
        match=rf"IR version 1 was written by an older panes; this "
        rf"panes reads version {IR_VERSION}.*Recompile the pipeline",
    ):
        from_json(json.dumps(version_1))


def test_a_newer_version_is_refused_with_what_to_upgrade(document):
    with pytest.raises(
        ValidationError,
        match=f"IR version {IR_VERSION + 1} was written by a newer panes.*upgrade panes",
    ):
        read(document, set_in(("version",), IR_VERSION + 1))


@pytest.mark.parametrize("text", ["[]", '{"nodes": {}}', '{"version": "2"}'])
def test_json_that_is_no_ir_is_refused(text):
    with pytest.raises(ValidationError, match="does not hold a panes pipeline IR"):
        from_json(text)


def test_an_unknown_top_level_field_is_refused(document):
    with pytest.raises(ValidationError, match="the IR, field stages: unknown field 'stages'"):
        read(document, set_in(("stages",), {}))


def test_times_are_int64_micros_in_the_json(document):
    strategy = windowing(document)
    assert strategy["window_fn"] == {"kind": "fixed_windows", "size": 60_000_000, "offset": 0}
    assert strategy["allowed_lateness"] == 30_000_000
    assert strategy["trigger"] == {
        "kind": "after_end_of_window",
        "early": {"kind": "element_count", "count": 2},
        "late": {"kind": "element_count", "count": 1},
    }


def test_a_side_input_view_is_one_of_the_four():
    p = beam.Pipeline()
    numbers = p | "Numbers" >> beam.Create([1])
    numbers | "Use" >> beam.Map(lambda x, side: x, beam.pvalue.AsList(numbers))
    data = json.loads(to_json(p.to_ir()))
    assert data["nodes"]["Use"]["side_inputs"][0]["view"] == "list"
    with pytest.raises(
        ValidationError,
        match=r"node 'Use', field side_inputs\[0\].view: expected "
        r"one of 'singleton', 'iter', 'list', 'dict', got "
        r"the string 'set'",
    ):
        read(data, set_in(("nodes", "Use", "side_inputs", 0, "view"), "set"))


def test_a_nan_default_round_trips_and_the_json_stays_json():
    """A mean's empty result (NaN) as a singleton view's default, as Beam gives it."""
    p = beam.Pipeline()
    numbers = p | "Numbers" >> beam.Create([1.0])
    mean = numbers | beam.CombineGlobally(beam.combiners.MeanCombineFn()).as_singleton_view()
    numbers | "Use" >> beam.Map(lambda x, m: x - m, mean)
    ir = p.to_ir()
    assert from_json(to_json(ir)) == ir
    json.loads(to_json(ir), parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))


def test_test_stream_events_are_checked():
    from panes.testing import TestStream

    p = beam.Pipeline()
    events = TestStream().add_elements([1]).advance_watermark_to(5).advance_processing_time(1)
    p | "Events" >> events
    data = json.loads(to_json(p.to_ir()))
    assert [e["kind"] for e in data["nodes"]["Events"]["payload"]["events"]] == [
        "elements",
        "watermark",
        "processing_time",
    ]
    with pytest.raises(
        ValidationError,
        match=r"node 'Events' \(test_stream\), field "
        r"payload.events\[2\].advance: must be at least 1",
    ):
        read(data, set_in(("nodes", "Events", "payload", "events", 2, "advance"), 0))
    with pytest.raises(
        ValidationError,
        match=r"payload.events\[1\].watermark: expected an "
        r"integer, got the string '5'",
    ):
        read(data, set_in(("nodes", "Events", "payload", "events", 1, "watermark"), "5"))
