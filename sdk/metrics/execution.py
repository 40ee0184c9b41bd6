"""Where metrics are kept while a pipeline runs, as Beam's ``apache_beam.metrics.execution``:
one container per run (or task), the scope that routes user updates to it, and the results
a finished run reports."""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any, NamedTuple

from panes.metrics.cells import DistributionData

if TYPE_CHECKING:
    from panes.metrics.metricbase import MetricName


class MetricsContainer:
    """The metrics of one run (or one task): counters and distributions by (step, name)."""

    def __init__(self):
        self.counters: dict = {}  # (step, MetricName) -> int
        self.distributions: dict = {}  # (step, MetricName) -> DistributionData

    def inc(self, step: str, name, n: int) -> None:
        key = (step, name)
        self.counters[key] = self.counters.get(key, 0) + n

    def update(self, step: str, name, value) -> None:
        self.distributions.setdefault((step, name), DistributionData()).update(value)

    def merge(self, other: MetricsContainer) -> None:
        for key, n in other.counters.items():
            self.counters[key] = self.counters.get(key, 0) + n
        for key, data in other.distributions.items():
            self.distributions[key] = self.distributions.get(key, DistributionData()).combine(data)


_current: contextvars.ContextVar[Any] = contextvars.ContextVar("panes_metrics", default=None)


def current_scope():
    """``(container, step)`` that user metrics report to now, or None outside a run."""
    return _current.get()


def metrics_scope(container: MetricsContainer, step: str):
    """Makes user metrics inside the block report to ``container`` under ``step``."""
    return _current.set((container, step))


def metrics_cell_scope(cell: list):
    """Makes user metrics inside the block report to ``cell[0]`` under the step that ``cell[1]``
    names at the time: a loop running several steps' code renames the step as it goes, which
    is cheaper than a scope per call."""
    return _current.set(cell)


def reset_metrics_scope(token) -> None:
    _current.reset(token)


class MetricKey(NamedTuple):
    """A metric of one step: the step's full label and the metric's name."""

    step: str
    metric: MetricName


class MetricResult(NamedTuple):
    """A metric's value in a finished run. Runners report committed values only (a retried
    task's updates count once), so ``attempted`` equals ``committed``."""

    key: MetricKey
    committed: object
    attempted: object

    @property
    def result(self):
        return self.committed
