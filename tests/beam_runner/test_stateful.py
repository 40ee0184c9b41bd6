"""Beam's stateful DoFns (``apache_beam.transforms.userstate``) and ``GroupIntoBatches`` run on
panes' state and timers: each kind of state, timers in both time domains under a TestStream,
dynamic timer tags and batching with a buffering deadline give what Beam's DirectRunner gives.
What panes cannot run is refused, naming the transform."""

import pytest

beam = pytest.importorskip(
    "apache_beam", reason="Beam's pipelines need apache-beam: pip install 'panes[beam]'"
)

from apache_beam.coders import PickleCoder, VarIntCoder  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions  # noqa: E402
from apache_beam.testing.test_stream import TestStream  # noqa: E402
from apache_beam.transforms import combiners, userstate, window  # noqa: E402
from apache_beam.transforms.timeutil import TimeDomain  # noqa: E402
from apache_beam.transforms.util import GroupIntoBatches  # noqa: E402
from apache_beam.utils.sharded_key import ShardedKey  # noqa: E402
from apache_beam.utils.timestamp import Timestamp  # noqa: E402
from beam_reference import matches_beam  # noqa: E402

from panes.compiler.lift import lift  # noqa: E402
from panes.errors import PipelineConstructionError  # noqa: E402
from panes.ir.userstate import StateSpec  # noqa: E402
from panes.runners.beam.translate import translate  # noqa: E402

Param = beam.DoFn


class EveryKind(beam.DoFn):
    """Keeps each kind of state per key and window; at the end of the window (an event-time
    timer) outputs what they hold."""

    LAST = userstate.ReadModifyWriteStateSpec("last", PickleCoder())
    ALL = userstate.BagStateSpec("all", VarIntCoder())
    DISTINCT = userstate.SetStateSpec("distinct", VarIntCoder())
    TOTAL = userstate.CombiningValueStateSpec("total", PickleCoder(), combiners.MeanCombineFn())
    END = userstate.TimerSpec("end", TimeDomain.WATERMARK)

    def process(
        self,
        element,
        timestamp=Param.TimestampParam,
        w=Param.WindowParam,
        last=Param.StateParam(LAST),  # noqa: B008
        every=Param.StateParam(ALL),  # noqa: B008
        distinct=Param.StateParam(DISTINCT),  # noqa: B008
        total=Param.StateParam(TOTAL),  # noqa: B008
        end=Param.TimerParam(END),  # noqa: B008
    ):
        _, value = element
        last.write(value)
        every.add(value)
        distinct.add(value % 3)
        total.add(value)
        end.set(w.max_timestamp())

    @userstate.on_timer(END)
    def flush(
        self,
        key=Param.KeyParam,
        w=Param.WindowParam,
        timestamp=Param.TimestampParam,
        last=Param.StateParam(LAST),  # noqa: B008
        every=Param.StateParam(ALL),  # noqa: B008
        distinct=Param.StateParam(DISTINCT),  # noqa: B008
        total=Param.StateParam(TOTAL),  # noqa: B008
    ):
        yield (
            key,
            float(w.start),
            float(timestamp),
            last.read(),
            sorted(every.read()),
            sorted(distinct.read()),
            total.read(),
        )


class InTimeOrder(beam.DoFn):
    """An ordered list per key: each value with the values before it in event time, and
    those of the first five seconds."""

    BY_TIME = userstate.OrderedListStateSpec("by_time", VarIntCoder())

    def process(
        self,
        element,
        timestamp=Param.TimestampParam,
        by_time=Param.StateParam(BY_TIME),  # noqa: B008
    ):
        key, value = element
        by_time.add((timestamp, value))
        before = [v for _, v in by_time.read_range(Timestamp(0), timestamp)]
        yield (
            key,
            value,
            before,
            [(float(t), v) for t, v in by_time.read_range(Timestamp(0), Timestamp(5))],
        )


def in_time_order(p):
    values = [("a", 4, 3), ("a", 7, 1), ("a", 9, 12), ("a", 2, 4), ("b", 6, 8)]
    return (
        p
        | beam.Create(values)
        | beam.MapTuple(lambda key, value, t: window.TimestampedValue((key, value), t))
        | beam.ParDo(InTimeOrder())
    )


def every_kind(p):
    events = (
        TestStream()
        .advance_watermark_to(0)
        .add_elements([window.TimestampedValue(("a", 4), 3), window.TimestampedValue(("b", 1), 2)])
        .add_elements([window.TimestampedValue(("a", 7), 1), window.TimestampedValue(("a", 9), 12)])
        .advance_watermark_to(11)
        .add_elements(
            [window.TimestampedValue(("a", 2), 15), window.TimestampedValue(("b", 6), 18)]
        )
        .advance_watermark_to_infinity()
    )
    return p | events | beam.WindowInto(window.FixedWindows(10)) | beam.ParDo(EveryKind())


class Debounce(beam.DoFn):
    """Per key, the values seen until a processing-time timer, set 10 s after the first of
    them, fires; and a count under each value's dynamic event-time timer."""

    SEEN = userstate.BagStateSpec("seen", VarIntCoder())
    QUIET = userstate.TimerSpec("quiet", TimeDomain.REAL_TIME)
    EACH = userstate.TimerSpec("each", TimeDomain.WATERMARK)

    def process(
        self,
        element,
        timestamp=Param.TimestampParam,
        seen=Param.StateParam(SEEN),  # noqa: B008
        quiet=Param.TimerParam(QUIET),  # noqa: B008
        each=Param.TimerParam(EACH),  # noqa: B008
    ):
        _, value = element
        if not seen.read():
            quiet.set(Timestamp.now() + 10)
        seen.add(value)
        each.set(timestamp + 100, dynamic_timer_tag=f"tag-{value}")

    @userstate.on_timer(QUIET)
    def quiet_period(self, key=Param.KeyParam, seen=Param.StateParam(SEEN)):  # noqa: B008
        yield ("quiet", key, sorted(seen.read()))
        seen.clear()

    @userstate.on_timer(EACH)
    def each_value(
        self, key=Param.KeyParam, tag=Param.DynamicTimerTagParam, ts=Param.TimestampParam
    ):
        yield ("each", key, tag, float(ts))


def debounce(p):
    events = (
        TestStream()
        .advance_watermark_to(0)
        .add_elements([("a", 1), ("b", 2)])
        .add_elements([("a", 3)])
        .advance_processing_time(5)
        .add_elements([("a", 4)])
        .advance_processing_time(7)  # 12 s: the timers set at the start have fired
        .add_elements([("a", 5)])
        .advance_processing_time(20)
        .advance_watermark_to_infinity()
    )
    return p | events | beam.ParDo(Debounce())


def batches_with_a_deadline(p):
    """GroupIntoBatches of three, or what is buffered 5 s (wall-clock time) after a batch's
    first value; and the same with sharded keys, whose key user code sees as Beam's
    ``ShardedKey``."""
    events = (
        TestStream()
        .advance_watermark_to(0)
        .add_elements([("k", 1), ("k", 2)])
        .advance_processing_time(6)
        .add_elements([("k", 3), ("k", 4), ("k", 5), ("k", 6)])
        .advance_processing_time(6)
        .add_elements([("j", 7)])
        .advance_watermark_to_infinity()
    )
    keyed = p | events | beam.Map(lambda kv: kv).with_output_types(tuple[str, int])
    plain = (
        keyed
        | GroupIntoBatches(3, max_buffering_duration_secs=5)
        | beam.MapTuple(lambda key, batch: ("plain", key, sorted(batch)))
    )
    sharded = (
        keyed
        | "Sharded" >> GroupIntoBatches.WithShardedKey(3, max_buffering_duration_secs=5)
        | "Unshard"
        >> beam.MapTuple(lambda key, batch: (type(key) is ShardedKey, key.key, sorted(batch)))
    )
    return (plain, sharded) | beam.Flatten()


@pytest.mark.slow
def test_every_kind_of_state_under_an_event_time_timer(runner):
    outputs = matches_beam(every_kind, runner)
    assert ("a", 0.0, 9.999999, 7, [4, 7], [1], 5.5) in outputs
    assert ("a", 10.0, 19.999999, 2, [2, 9], [0, 2], 5.5) in outputs


@pytest.mark.slow
def test_ordered_list_state(runner):
    outputs = matches_beam(in_time_order, runner)
    assert ("a", 2, [7, 4], [(1.0, 7), (3.0, 4), (4.0, 2)]) in outputs


@pytest.mark.slow
def test_processing_time_and_dynamic_event_time_timers(runner):
    outputs = matches_beam(debounce, runner)
    assert sorted(tag for kind, key, tag, _ in outputs if kind == "each") == [
        "tag-1",
        "tag-2",
        "tag-3",
        "tag-4",
        "tag-5",
    ]


@pytest.mark.slow
def test_group_into_batches_with_a_buffering_deadline(runner):
    outputs = matches_beam(batches_with_a_deadline, runner)
    # Beam's deadline is on the wall clock (time.time), which TestStream does not move.
    assert ("plain", "k", [4, 5, 6]) in outputs
    assert {sharded for sharded, *_ in outputs if sharded != "plain"} == {True}


def test_a_stateful_dofn_becomes_a_stateful_par_do_with_beams_state_and_timers():
    p = beam.Pipeline(options=PipelineOptions([]))
    p | beam.Create([("a", 1)]) | "Stateful" >> beam.ParDo(Debounce())
    node = translate(p).nodes["Stateful"]
    assert node.payload["state_specs"] == (StateSpec("seen", "bag"),)
    assert {(t.name, t.time_domain) for t in node.payload["timer_specs"]} == {
        ("ts-quiet", "processing_time"),
        ("ts-each", "event_time"),
    }
    assert type(lift(node.payload["fn"])).__name__ == "BeamDebounce"


def test_a_stateful_dofn_under_merging_windows_is_refused_naming_the_transform():
    p = beam.Pipeline(options=PipelineOptions([]))
    (
        p
        | beam.Create([("a", 1)])
        | beam.WindowInto(window.Sessions(10))
        | "Stateful" >> beam.ParDo(EveryKind())
    )
    with pytest.raises(PipelineConstructionError, match="'Stateful'.*Sessions windows merge"):
        translate(p)


def test_a_stateful_dofn_with_a_side_input_is_refused_naming_the_transform():
    p = beam.Pipeline(options=PipelineOptions([]))
    side = p | "Side" >> beam.Create([1])
    (
        p
        | beam.Create([("a", 1)])
        | "Stateful" >> beam.ParDo(Debounce(), beam.pvalue.AsSingleton(side))
    )
    with pytest.raises(PipelineConstructionError, match="'Stateful'.*side inputs"):
        translate(p)
