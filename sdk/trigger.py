"""Triggers and accumulation modes: immutable data, interpreted by ``panes.windowing``."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Trigger", "DefaultTrigger", "AccumulationMode"]


class AccumulationMode(enum.Enum):
    """Whether a pane repeats the elements of earlier panes of its window."""

    DISCARDING = "discarding"
    ACCUMULATING = "accumulating"


class Trigger:
    """Base of all triggers; subclasses are frozen dataclasses holding configuration only."""


@dataclass(frozen=True)
class DefaultTrigger(Trigger):
    """Fires once when the watermark passes the end of the window, then once per late element."""
