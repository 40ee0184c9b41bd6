"""Bulk work with Python's cycle collector paused.

A run holds millions of live elements; the cycle collector would rescan them again and again
(half of a large run's time). Pausing it while a run or a partition is processed and resuming
after frees any cycles later. What the paused work leaves alive (a run's results, say) goes
straight to the oldest generation, as if it had survived collections already: left young, it
would be scanned in each younger generation in turn, which took three times as long as the
code that went on to read a large result.
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
            if not gc.get_freeze_count():
                gc.freeze()  # every tracked object to the permanent generation...
                gc.unfreeze()  # ...and from there into the oldest one
            # else others froze objects (a Spark worker's imports: panes.runners.spark.daemon),
            # which unfreezing would return to every collection.
            gc.enable()
