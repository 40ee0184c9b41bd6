"""A grouping's output carries the continuation of its trigger, as Beam defines it."""

import pytest

from panes.trigger import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    CountTrigger,
    DefaultTrigger,
    Never,
    OrFinally,
    Repeatedly,
)
from panes.windowing import trigger_kinds

CASES = [
    (DefaultTrigger(), DefaultTrigger()),
    (Never(), Never()),
    (AfterCount(5), AfterCount(1)),
    (AfterProcessingTime(30), AfterProcessingTime(0)),
    (AfterWatermark(), AfterWatermark()),
    (
        AfterWatermark(early=AfterCount(3), late=AfterProcessingTime(5)),
        AfterWatermark(early=AfterCount(1), late=AfterProcessingTime(0)),
    ),
    (Repeatedly(AfterCount(4)), Repeatedly(AfterCount(1))),
    (
        AfterAll(AfterCount(2), AfterProcessingTime(1)),
        AfterAll(AfterCount(1), AfterProcessingTime(0)),
    ),
    (AfterAny(AfterCount(2), AfterWatermark()), AfterAny(AfterCount(1), AfterWatermark())),
    (AfterEach(AfterCount(2), AfterCount(3)), Repeatedly(AfterAny(AfterCount(1), AfterCount(1)))),
    (
        OrFinally(Repeatedly(AfterCount(2)), AfterCount(9)),
        OrFinally(Repeatedly(AfterCount(1)), AfterCount(1)),
    ),
    (CountTrigger(3), CountTrigger(3)),
]


@pytest.mark.parametrize("trigger, expected", CASES, ids=lambda t: repr(t)[:40])
def test_continuation_trigger(trigger, expected):
    continued = trigger_kinds.continuation(trigger_kinds.to_ir(trigger))
    assert continued == trigger_kinds.to_ir(expected)
    assert trigger_kinds.from_ir(continued) == expected


def test_grouping_output_carries_the_continuation():
    import panes as beam
    from panes.window import FixedWindows

    p = beam.Pipeline()
    grouped = (
        p
        | beam.Create([("k", 1)])
        | beam.WindowInto(FixedWindows(10), trigger=Repeatedly(AfterCount(3)))
        | beam.GroupByKey()
    )
    assert grouped.windowing.trigger == Repeatedly(AfterCount(1))
    assert grouped.windowing.window_fn == FixedWindows(10)
