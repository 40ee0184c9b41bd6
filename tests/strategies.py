"""Engine specifications write windowing as users do (``panes.window``, ``panes.trigger``); the
engine runs its IR. ``strategy_of`` lowers one to the other."""

from panes.transforms.core import Windowing
from panes.windowing.strategy import windowing_to_ir


def strategy_of(*args, **kwargs):
    """The IR ``WindowingStrategy`` of ``Windowing(*args, **kwargs)``."""
    return windowing_to_ir(Windowing(*args, **kwargs))
