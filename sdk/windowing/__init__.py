"""The windowing core: one implementation of window assignment, merging, triggers, panes,
accumulation, lateness and timestamp holds, driven by every runner."""

from panes.windowing.strategy import WindowingStrategy

__all__ = ["WindowingStrategy"]
