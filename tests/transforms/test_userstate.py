"""Stateful DoFns (``panes.transforms.userstate``): what Beam refuses is refused when the pipeline
is built or the timer set, naming the transform and the fix; each state kind behaves as Beam's;
``GroupIntoBatches`` batches on every runner. The timer and state rules themselves are scenarios
of the conformance corpus (``scenarios/state_and_timers.yaml``)."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError, UserCodeError
from panes.testing import TestStream, materialize
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import (
    BagStateSpec,
    OrderedListRuntimeState,
    OrderedListStateSpec,
    ReadModifyWriteStateSpec,
    SetRuntimeState,
    SetStateSpec,
    TimerSpec,
    get_dofn_specs,
    is_stateful_dofn,
    on_timer,
)
from panes.transforms.util import GroupIntoBatches
from panes.utils.sharded_key import ShardedKey
from panes.window import FixedWindows, Sessions, TimestampedValue

COUNT = ReadModifyWriteStateSpec("count")


class CountPerKey(beam.DoFn):
    def process(self, element, count=beam.DoFn.StateParam(COUNT)):
        count.write((count.read() or 0) + 1)
        yield element[0], count.read()


def test_a_dofn_with_state_or_timers_is_stateful_and_lists_its_specs():
    assert is_stateful_dofn(CountPerKey())
    assert not is_stateful_dofn(beam.DoFn())
    assert get_dofn_specs(CountPerKey()) == ({COUNT}, set())


def test_a_stateful_dofn_needs_keyed_input():
    p = beam.Pipeline()
    with pytest.raises(PipelineConstructionError) as caught:
        p | beam.Create([1, 2]) | "Count" >> beam.ParDo(CountPerKey())
    assert "'Count' has a stateful DoFn" in str(caught.value)
    assert "WithKeys" in str(caught.value)


def test_a_stateful_dofn_under_merging_windows_is_refused_when_built():
    p = beam.Pipeline()
    sessions = p | beam.Create([("a", 1)]) | beam.WindowInto(Sessions(10))
    with pytest.raises(PipelineConstructionError) as caught:
        sessions | "Count" >> beam.ParDo(CountPerKey())
    for words in ("'Count'", "Sessions", "windows merge", "FixedWindows"):
        assert words in str(caught.value)


def test_a_timer_without_a_callback_is_refused_when_built():
    timer_spec = TimerSpec("lonely", TimeDomain.WATERMARK)

    class Lonely(beam.DoFn):
        def process(self, element, timer=beam.DoFn.TimerParam(timer_spec)):
            timer.set(0)

    with pytest.raises(PipelineConstructionError) as caught:
        beam.ParDo(Lonely())
    assert "without a callback" in str(caught.value) and "@on_timer" in str(caught.value)


def test_two_callbacks_for_one_timer_are_refused():
    timer_spec = TimerSpec("twice", TimeDomain.WATERMARK)
    on_timer(timer_spec)(lambda self: None)
    with pytest.raises(ValueError, match="two @on_timer callbacks"):
        on_timer(timer_spec)(lambda self: None)


def test_a_timer_in_an_unknown_time_domain_is_refused():
    with pytest.raises(ValueError, match="TimeDomain.WATERMARK or TimeDomain.REAL_TIME"):
        TimerSpec("t", "SOMETIME")


LATE = TimerSpec("late", TimeDomain.WATERMARK)


class PastTheWindow(beam.DoFn):
    def process(self, element, window=beam.DoFn.WindowParam, timer=beam.DoFn.TimerParam(LATE)):
        timer.set(window.end + 1)

    @on_timer(LATE)
    def fired(self):
        yield "never"


def test_an_event_timer_after_its_windows_expiry_fails_naming_the_transform_and_the_fix():
    p = beam.Pipeline()
    (
        p
        | beam.Create([TimestampedValue(("a", 1), 1)])
        | beam.WindowInto(FixedWindows(10))
        | "Late" >> beam.ParDo(PastTheWindow())
    )
    with pytest.raises(UserCodeError) as caught:
        p.run()
    for words in ("'Late'", "after the window's expiry", "window.max_timestamp()"):
        assert words in str(caught.value)


HELD = TimerSpec("held", TimeDomain.WATERMARK)


class HeldBeforeItsElement(beam.DoFn):
    def process(
        self, element, timestamp=beam.DoFn.TimestampParam, timer=beam.DoFn.TimerParam(HELD)
    ):
        timer.set(timestamp + 5, output_timestamp=timestamp - 1)

    @on_timer(HELD)
    def fired(self):
        yield "never"


def test_an_output_timestamp_before_the_element_fails():
    p = beam.Pipeline()
    p | beam.Create([TimestampedValue(("a", 1), 3)]) | "Held" >> beam.ParDo(HeldBeforeItsElement())
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert "'Held'" in str(caught.value)
    assert "before the timestamp of the element or timer setting it" in str(caught.value)


def test_set_state_keeps_each_value_once_in_the_order_first_added():
    cells: dict = {}
    state = SetRuntimeState(cells, SetStateSpec("s"))
    for value in (3, 1, 3, 2, 1):
        state.add(value)
    assert list(state.read()) == [3, 1, 2]
    assert 2 in state.read() and 4 not in state.read() and len(state.read()) == 3
    state.clear()
    assert list(state.read()) == [] and cells == {}


def test_ordered_list_state_reads_ranges_by_timestamp():
    state = OrderedListRuntimeState({}, OrderedListStateSpec("o"))
    for timestamp, value in ((5, "e"), (1, "a"), (3, "c"), (3, "c2"), (2, "b")):
        state.add((timestamp, value))
    assert [value for _, value in state.read()] == ["a", "b", "c", "c2", "e"]
    assert [(float(t), v) for t, v in state.read_range(2, 5)] == [(2, "b"), (3, "c"), (3, "c2")]
    state.clear_range(2, 4)
    assert [value for _, value in state.read()] == ["a", "e"]


BUFFER = BagStateSpec("buffer")


class CountAndBuffer(beam.DoFn):
    """Two cells of a key: both per window, both gone with it."""

    def process(
        self, element, count=beam.DoFn.StateParam(COUNT), buffer=beam.DoFn.StateParam(BUFFER)
    ):
        buffer.add(element[1])
        count.write(len(buffer.read()))
        yield element[0], (count.read(), sorted(buffer.read()))


def test_state_is_kept_per_key_and_window_on_every_runner(runner):
    p = beam.Pipeline(runner=runner)
    elements = [("a", 1, 1), ("b", 2, 2), ("a", 3, 12), ("a", 4, 5)]
    handle = materialize(
        p
        | beam.Create([TimestampedValue((k, v), t) for k, v, t in elements])
        | beam.WindowInto(FixedWindows(10))
        | beam.ParDo(CountAndBuffer())
    )
    p.run()
    assert sorted(handle.values) == [
        ("a", (1, [1])),
        ("a", (1, [3])),
        ("a", (2, [1, 4])),
        ("b", (1, [2])),
    ]


def test_group_into_batches_batches_each_key_on_every_runner(runner):
    p = beam.Pipeline(runner=runner)
    values = [("a", i) for i in range(7)] + [("b", 10), ("b", 11)]
    handle = materialize(p | beam.Create(values) | GroupIntoBatches(3))
    p.run()
    batches = sorted(handle.values)
    assert [key for key, _ in batches] == ["a", "a", "a", "b"]
    assert sorted(len(batch) for key, batch in batches if key == "a") == [1, 3, 3]
    assert sorted(v for _, batch in batches for v in batch) == [v for _, v in values]


def test_group_into_batches_flushes_each_window_at_its_end(runner):
    p = beam.Pipeline(runner=runner)
    elements = [TimestampedValue(("a", t), t) for t in (1, 2, 3, 11, 12)]
    handle = materialize(
        p | beam.Create(elements) | beam.WindowInto(FixedWindows(10)) | GroupIntoBatches(2)
    )
    p.run()
    assert sorted((wv.windows[0].start, len(wv.value[1])) for wv in handle.windowed_values) == [
        (0, 1),
        (0, 2),
        (10, 2),
    ]


def test_group_into_batches_flushes_after_the_buffering_time_in_processing_time():
    """The buffering timer fires as the TestStream's clock passes it, with no new element and
    the watermark still at its start."""
    stream = (
        TestStream()
        .add_elements([("a", 1), ("a", 2)])
        .advance_processing_time(5)
        .add_elements([("a", 3)])
        .advance_processing_time(6)
        .add_elements([("a", 4)])
        .advance_watermark_to_infinity()
    )
    p = beam.Pipeline()
    handle = materialize(p | stream | GroupIntoBatches(10, max_buffering_duration_secs=10))
    p.run()
    assert list(zip(handle.steps, handle.values)) == [(4, ("a", [1, 2, 3])), (6, ("a", [4]))]


def test_group_into_batches_with_sharded_keys_keys_by_shards_of_the_user_key():
    p = beam.Pipeline()
    handle = materialize(
        p | beam.Create([("a", i) for i in range(5)]) | GroupIntoBatches.WithShardedKey(2)
    )
    p.run()
    assert all(isinstance(key, ShardedKey) and key.key == "a" for key, _ in handle.values)
    assert sorted(v for _, batch in handle.values for v in batch) == list(range(5))
    assert sorted(len(batch) for _, batch in handle.values) == [1, 2, 2]


def test_group_into_batches_refuses_a_batch_size_below_one():
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        GroupIntoBatches(0)
