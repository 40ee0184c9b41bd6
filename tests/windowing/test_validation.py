"""validate_strategy: unsafe triggers (Beam's may_lose_data) are rejected unless allowed."""

import pytest
from strategies import strategy_of

from panes.trigger import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    CountTrigger,
    DefaultTrigger,
    DeltaTrigger,
    OrFinally,
    Repeatedly,
)
from panes.window import FixedWindows, Sessions
from panes.windowing import validate_strategy


@pytest.mark.parametrize(
    "trigger, lateness, unsafe",
    [
        (DefaultTrigger(), 0, False),
        (AfterCount(2), 0, True),
        (AfterProcessingTime(5), 0, True),
        (Repeatedly(AfterCount(2)), 0, False),
        (AfterWatermark(), 0, False),
        (AfterWatermark(), 10, True),
        (AfterWatermark(late=AfterCount(1)), 10, False),
        (AfterAny(AfterWatermark(), AfterCount(2)), 0, True),
        (AfterAll(AfterWatermark(), AfterCount(2)), 0, False),
        (AfterEach(AfterCount(1), AfterCount(2)), 0, True),
        (OrFinally(Repeatedly(AfterCount(1)), AfterWatermark()), 0, False),
        (CountTrigger(3), 0, False),
    ],
)
def test_unsafe_triggers(trigger, lateness, unsafe):
    strategy = strategy_of(window_fn=FixedWindows(10), trigger=trigger, allowed_lateness=lateness)
    validate_strategy(strategy, "Window", allow_unsafe=True)
    if unsafe:
        with pytest.raises(ValueError, match=r"^Window: unsafe trigger .*allow_unsafe_triggers"):
            validate_strategy(strategy, "Window")
    else:
        validate_strategy(strategy, "Window")


def test_delta_trigger_cannot_merge():
    strategy = strategy_of(window_fn=Sessions(10), trigger=DeltaTrigger(1, lambda a, b: 0))
    with pytest.raises(ValueError, match="DeltaTrigger cannot be used with merging windows"):
        validate_strategy(strategy, "W", allow_unsafe=True)
