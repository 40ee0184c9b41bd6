"""Engine specifications write windowing as users do (``panes.window``, ``panes.trigger``); the
engine runs its IR. ``strategy_of`` lowers one to the other. The window functions and event
times that property tests of the batch path draw from are here too, and the event logs and
live micro-batches that property tests of the key driver draw."""

from hypothesis import strategies as st

from panes.runners.eventlog import END_STEP, ProcessingTime, Watermark
from panes.timestamp import MAX_MICROS, MICROS_PER_SECOND
from panes.transforms.core import Windowing
from panes.window import (
    PANE_NO_FIRING,
    AssignContext,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
)
from panes.windowing import window_fn_kinds
from panes.windowing.strategy import windowing_to_ir

S = MICROS_PER_SECOND

# Every kind of window function the batch path has a way for.
BATCH_WINDOW_FNS = [
    GlobalWindows(),
    FixedWindows(10),
    FixedWindows(10, offset=3),
    SlidingWindows(10, 4),
    Sessions(5),
]
# Seconds on a 5 s grid as well, so that sessions (gap 5 s) often only touch, and stay apart.
seconds = st.one_of(st.integers(0, 60), st.integers(0, 12).map(lambda n: 5 * n))


def strategy_of(*args, **kwargs):
    """The IR ``WindowingStrategy`` of ``Windowing(*args, **kwargs)``."""
    return windowing_to_ir(Windowing(*args, **kwargs))


@st.composite
def event_logs(draw, strategy):
    """Per step, a bundle and a watermark after it, or a clock advance before it; the end of
    input at ``END_STEP``. A dense log crowds event times into few windows and moves the clocks
    rarely, so that windows take runs of elements between clock advances."""
    elements, watermarks, clock = {}, [], [ProcessingTime(-1, 0)]
    watermark, now = 0, 0
    spread, odds = (5, 4) if draw(st.booleans()) else (30, 1)

    def advances():
        return draw(st.integers(0, odds)) == 0

    for step in range(1, draw(st.integers(1, 24)) + 1):
        if advances():
            now += draw(st.integers(1, 4)) * S
            clock.append(ProcessingTime(step, now))
        if draw(st.booleans()):
            for key, value, seconds in draw(
                st.lists(
                    st.tuples(st.sampled_from("abc"), st.integers(0, 9), st.integers(0, spread)),
                    min_size=1,
                    max_size=4,
                )
            ):
                time = seconds * S
                windows = tuple(
                    window_fn_kinds.from_ir(strategy.window_fn).assign(
                        AssignContext.at_micros(time, value)
                    )
                )
                elements.setdefault(key, []).append(((step,), value, time, windows, PANE_NO_FIRING))
        if advances():
            watermark += draw(st.integers(0, 8 * spread // 30)) * S
            watermarks.append(Watermark(step, watermark, idle=draw(st.booleans())))
    watermarks.append(Watermark(END_STEP, MAX_MICROS))
    clock.append(ProcessingTime(END_STEP, MAX_MICROS))
    return elements, watermarks, clock


@st.composite
def micro_batches(draw, strategy):
    """Live micro-batches: each at a later step, with Spark's watermark (from the batches
    before it) and the batch's processing time, and a bundle of elements per key."""
    batches, watermark, now, step = [], 0, 0, 0
    for _ in range(draw(st.integers(1, 12))):
        step += draw(st.integers(1, 3)) * 1000
        now += draw(st.integers(0, 3)) * S
        watermark += draw(st.integers(0, 6)) * S
        by_key: dict = {}
        for index, (key, value, seconds) in enumerate(
            draw(
                st.lists(
                    st.tuples(st.sampled_from("abc"), st.integers(0, 9), st.integers(0, 40)),
                    max_size=4,
                )
            )
        ):
            time = seconds * S
            windows = tuple(
                window_fn_kinds.from_ir(strategy.window_fn).assign(
                    AssignContext.at_micros(time, value)
                )
            )
            by_key.setdefault(key, []).append(((step, index), value, time, windows, PANE_NO_FIRING))
        batches.append((step, watermark, now, by_key))
    return batches
