"""Every window function is one entry of ``window_fn_kinds`` (a user's own ``WindowFn``
subclass is the ``custom`` kind, pickled), and each goes to the IR, through JSON and back."""

import dataclasses

import pytest
from ids import stable_id
from ir_round_trip import through_json

from panes import window as api
from panes.ir import windowing as ir
from panes.windowing import window_fn_kinds


class EveryTenSeconds(api.NonMergingWindowFn):
    """A user's window function."""

    def assign(self, context):
        start = context.timestamp - context.timestamp % 10_000_000
        return [api.IntervalWindow(start, start + 10_000_000)]

    def __eq__(self, other):
        return type(other) is EveryTenSeconds


EXAMPLES = [
    api.GlobalWindows(),
    api.FixedWindows(60),
    api.FixedWindows(86400, offset=-8 * 3600),
    api.SlidingWindows(600, 60),
    api.SlidingWindows(10, 3, offset=1),
    api.Sessions(5),
    api.CountWindows(3),
    api.CountWindows(3, 1),
    EveryTenSeconds(),
]


def test_every_api_window_fn_and_every_ir_kind_has_one_entry():
    built_in = {
        value
        for value in vars(api).values()
        if isinstance(value, type)
        and issubclass(value, api.WindowFn)
        and dataclasses.is_dataclass(value)
    }
    assert {kind.api for kind in window_fn_kinds.KINDS} == built_in | {api.WindowFn}
    assert {kind.ir for kind in window_fn_kinds.KINDS} == set(ir.WindowFn.members.values())
    assert {type(window_fn_kinds.to_ir(e)) for e in EXAMPLES} == set(ir.WindowFn.members.values())


@pytest.mark.parametrize("window_fn", EXAMPLES, ids=stable_id)
def test_a_window_fn_round_trips_through_its_ir_and_json(window_fn):
    lowered = window_fn_kinds.to_ir(window_fn)
    read_back = through_json(lowered, ir.WindowFn)
    assert read_back == lowered
    assert window_fn_kinds.from_ir(read_back) == window_fn


@pytest.mark.parametrize(
    "window_fn, shown",
    [
        (api.FixedWindows(60), "FixedWindows(60s)"),
        (api.FixedWindows(86400, offset=-8 * 3600), "FixedWindows(86400s, offset=57600s)"),
        (api.SlidingWindows(600, 60), "SlidingWindows(600s, 60s)"),
        (api.Sessions(5), "Sessions(5s)"),
        (api.CountWindows(3, 1), "CountWindows(3, 1)"),
        (EveryTenSeconds(), "EveryTenSeconds(<pickled>)"),
    ],
)
def test_a_window_fn_is_shown_as_the_api_writes_it(window_fn, shown):
    assert window_fn_kinds.display(window_fn_kinds.to_ir(window_fn)) == shown


@pytest.mark.parametrize("window_fn", EXAMPLES, ids=stable_id)
def test_a_fast_assigner_gives_what_assign_gives(window_fn):
    lowered = window_fn_kinds.to_ir(window_fn)
    fast = window_fn_kinds.chunk_assigner(lowered)
    if fast is None:
        assert isinstance(lowered, (ir.CustomWindowFn, ir.SlidingWindows))
        return
    timestamps = [-7_300_001, 0, 1, 59_999_999, 60_000_000, 123_456_789]
    expected = [tuple(window_fn.assign(api.AssignContext.at_micros(t))) for t in timestamps]
    assert list(fast([None] * len(timestamps), timestamps, [(api.GLOBAL_WINDOW,)] * 6)) == expected
