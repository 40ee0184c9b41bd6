"""The windowing engine: one implementation of window assignment, merging, triggers, panes,
accumulation, lateness and timestamp holds (``engine.WindowingEngine``), driven by every
runner. It reads the IR's windowing (``panes.ir.windowing``, ``panes.ir.triggers``)."""

from panes.windowing.strategy import effective_windowing
from panes.windowing.validation import validate_strategy

__all__ = ["effective_windowing", "validate_strategy"]
