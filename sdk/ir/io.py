"""Sources' timing in the IR: the watermark strategy a source is read under (Flink's
``WatermarkStrategy``), in int64 µs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from panes.ir.data import Count, Duration


@dataclass(frozen=True)
class WatermarkStrategy:
    """The watermark trails the largest timestamp seen by ``max_out_of_orderness``, updated
    after every ``emit_every``-th record; a source without records for ``idle_timeout`` of
    processing time is idle (None: never)."""

    max_out_of_orderness: Duration = 0
    idle_timeout: Optional[Duration] = None
    emit_every: Count = 1
