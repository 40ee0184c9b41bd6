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

_frozen = False  # whether ``freeze_alive`` froze objects in this process (or its parent)


def freeze_alive() -> None:
    """Collects, then freezes what is alive (``gc.freeze``): a long-lived process's modules,
    which later collections then skip."""
    global _frozen
    gc.collect()
    gc.freeze()
    _frozen = True


@contextlib.contextmanager
def cycle_collection_paused():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # Frozen objects (a Spark worker's imports: ``freeze_alive``) stay frozen:
            # unfreezing would return them to every collection. ``gc.get_freeze_count`` walks
            # them all (7 ms in a Spark worker), hence the flag first.
            if not (_frozen or gc.get_freeze_count()):
                gc.freeze()  # every tracked object to the permanent generation...
                gc.unfreeze()  # ...and from there into the oldest one
            gc.enable()
