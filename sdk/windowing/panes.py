"""Pane bookkeeping: the ``PaneInfo`` of a window's next firing (Beam's ``PaneInfoTracker``).

Timing follows EARLY* ON_TIME? LATE*: a pane is LATE once an ON_TIME or LATE pane was emitted
or when the output watermark already passed the window; EARLY while the input watermark has not
passed the window's end; otherwise it is the window's unique ON_TIME pane. EARLY panes have
non-speculative index -1.
"""

from __future__ import annotations

from panes.window import PaneInfo, PaneInfoTiming


def next_pane(
    previous: PaneInfo | None,
    window_max_timestamp: int,
    input_watermark: int,
    output_watermark: int,
    is_final: bool,
) -> PaneInfo:
    """The pane to emit after ``previous`` (None for the window's first pane)."""
    is_first = previous is None
    index = 0 if previous is None else previous.index + 1
    nonspeculative_index = 0 if previous is None else previous.nonspeculative_index + 1
    late_for_output = window_max_timestamp < output_watermark
    only_early_so_far = previous is None or previous.timing == PaneInfoTiming.EARLY
    if late_for_output or not only_early_so_far:
        timing = PaneInfoTiming.LATE
    elif input_watermark <= window_max_timestamp:
        timing = PaneInfoTiming.EARLY
        nonspeculative_index = -1
    else:
        timing = PaneInfoTiming.ON_TIME
    return PaneInfo(is_first, is_final, timing, index, nonspeculative_index)
