"""Bulk work with Python's cycle collector paused.

A run holds millions of live elements; the cycle collector would rescan them again and again
(half of a large run's time). Pausing it while a run or a partition is processed and resuming
after frees any cycles later, at the cost of one collection.
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def cycle_collection_paused():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
