"""The windowing engine: one implementation of window assignment, merging, triggers, panes,
accumulation, lateness and timestamp holds (``engine.WindowingEngine``), driven by every
runner."""

from panes.windowing.strategy import WindowingStrategy, effective_windowing
from panes.windowing.validation import validate_strategy

__all__ = ["WindowingStrategy", "effective_windowing", "validate_strategy"]
