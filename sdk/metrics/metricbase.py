"""What user code updates, as Beam's ``apache_beam.metrics.metricbase``: a metric's name, and
the counter and distribution objects that report to the run's current metrics container."""

from __future__ import annotations

from dataclasses import dataclass

from panes.metrics.execution import current_scope


@dataclass(frozen=True)
class MetricName:
    namespace: str
    name: str


class Counter:
    """A sum, updated with ``inc``/``dec``."""

    def __init__(self, name: MetricName):
        self.metric_name = name

    def inc(self, n: int = 1) -> None:
        scope = current_scope()
        if scope is not None:
            scope[0].inc(scope[1], self.metric_name, n)

    def dec(self, n: int = 1) -> None:
        self.inc(-n)


class Distribution:
    """Sum, count, min and max of the values given to ``update``."""

    def __init__(self, name: MetricName):
        self.metric_name = name

    def update(self, value) -> None:
        scope = current_scope()
        if scope is not None:
            scope[0].update(scope[1], self.metric_name, value)
