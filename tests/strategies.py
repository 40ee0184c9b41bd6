"""Engine specifications write windowing as users do (``panes.window``, ``panes.trigger``); the
engine runs its IR. ``strategy_of`` lowers one to the other. The window functions and event
times that property tests of the batch path draw from are here too."""

from hypothesis import strategies as st

from panes.transforms.core import Windowing
from panes.window import FixedWindows, GlobalWindows, Sessions, SlidingWindows
from panes.windowing.strategy import windowing_to_ir

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
