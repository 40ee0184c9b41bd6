"""Values shipped to every worker once, as Spark broadcasts, read without resuming the cycle
collector."""

from __future__ import annotations

import gc


class Shared:
    """A Spark broadcast handle whose ``value`` leaves the cycle collector as it found it.

    PySpark's loading of a broadcast switches the collector back on. In a partition processed
    with it paused (``worker_generator``) every later allocation would then pay for rescans of
    the partition's live elements: a replayed grouping ran several times slower.
    """

    def __init__(self, handle):
        self.handle = handle

    @property
    def value(self):
        paused = not gc.isenabled()
        value = self.handle.value
        if paused:
            gc.disable()
        return value
