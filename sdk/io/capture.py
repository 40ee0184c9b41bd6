"""The sink that ``materialize`` and ``assert_that`` write to."""

from __future__ import annotations

from dataclasses import dataclass

from panes.io.base import Sink


@dataclass(frozen=True)
class CaptureSink(Sink):
    """Runners hand the windowed values written here back in the pipeline result."""

    capture_id: str
