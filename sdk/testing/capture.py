"""Capture: collect a PCollection's windowed values after a run, on any runner."""

from __future__ import annotations

import itertools

from panes.io.base import Write
from panes.io.capture import CaptureSink
from panes.transforms.ptransform import PTransform

_ids = itertools.count()


class Materialized:
    """Filled after the pipeline runs: ``windowed_values``, ``values``, and ``steps`` — the
    event-log step at which each value was emitted."""

    def __init__(self, capture_id: str):
        self.capture_id = capture_id
        self._windowed_values: list | None = None
        self.steps: list | None = None

    def _fill(self, result) -> None:
        captured = result.captures.get(self.capture_id)
        self.steps, self._windowed_values = captured if captured else ([], [])

    @property
    def windowed_values(self) -> list:
        if self._windowed_values is None:
            raise RuntimeError(
                "the pipeline has not run yet: materialized values appear after run()"
            )
        return self._windowed_values

    @property
    def values(self) -> list:
        return [wv.value for wv in self.windowed_values]


class Capture(PTransform):
    """Records the input's windowed values for reading after the run."""

    def __init__(self, handle: Materialized, label=None):
        super().__init__(label)
        self.handle = handle

    def expand(self, pcoll):
        pcoll.pipeline.post_run_checks.insert(0, self.handle._fill)
        return pcoll | "Write" >> Write(CaptureSink(self.handle.capture_id))


def materialize(pcoll, label: str | None = None) -> Materialized:
    """Returns a handle whose ``windowed_values`` (value, timestamp, windows, pane) are available
    once the pipeline has run."""
    handle = Materialized(f"capture-{next(_ids)}")
    pcoll | (label or f"Materialize{handle.capture_id.split('-')[1]}") >> Capture(handle)
    return handle
