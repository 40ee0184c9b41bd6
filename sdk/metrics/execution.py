"""User metrics: counters and distributions reported by DoFns and read from the result."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricName:
    namespace: str
    name: str


@dataclass
class DistributionData:
    sum: int = 0
    count: int = 0
    min: float | None = None
    max: float | None = None

    def update(self, value) -> None:
        self.sum += value
        self.count += 1
        self.min = value if self.min is None else min(self.min, value)
        self.max = value if self.max is None else max(self.max, value)

    def combine(self, other: "DistributionData") -> "DistributionData":
        mins = [m for m in (self.min, other.min) if m is not None]
        maxs = [m for m in (self.max, other.max) if m is not None]
        return DistributionData(self.sum + other.sum, self.count + other.count,
                                min(mins) if mins else None, max(maxs) if maxs else None)

    @property
    def mean(self):
        return self.sum / self.count if self.count else None


class MetricsContainer:
    """The metrics of one run (or one task): counters and distributions by (step, name)."""

    def __init__(self):
        self.counters: dict[tuple[str, MetricName], int] = {}
        self.distributions: dict[tuple[str, MetricName], DistributionData] = {}

    def inc(self, step: str, name: MetricName, n: int) -> None:
        key = (step, name)
        self.counters[key] = self.counters.get(key, 0) + n

    def update(self, step: str, name: MetricName, value) -> None:
        self.distributions.setdefault((step, name), DistributionData()).update(value)

    def merge(self, other: "MetricsContainer") -> None:
        for key, n in other.counters.items():
            self.counters[key] = self.counters.get(key, 0) + n
        for key, data in other.distributions.items():
            self.distributions[key] = self.distributions.get(key, DistributionData()).combine(data)


_current = contextvars.ContextVar("panes_metrics", default=None)


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


class Counter:
    def __init__(self, name: MetricName):
        self.metric_name = name

    def inc(self, n: int = 1) -> None:
        scope = _current.get()
        if scope is not None:
            scope[0].inc(scope[1], self.metric_name, n)

    def dec(self, n: int = 1) -> None:
        self.inc(-n)


class Distribution:
    def __init__(self, name: MetricName):
        self.metric_name = name

    def update(self, value) -> None:
        scope = _current.get()
        if scope is not None:
            scope[0].update(scope[1], self.metric_name, value)


class Metrics:
    """Beam's entry point: ``Metrics.counter(namespace, name).inc()``."""

    @staticmethod
    def counter(namespace, name: str) -> Counter:
        return Counter(MetricName(_namespace(namespace), name))

    @staticmethod
    def distribution(namespace, name: str) -> Distribution:
        return Distribution(MetricName(_namespace(namespace), name))


def _namespace(namespace) -> str:
    return namespace if isinstance(namespace, str) else f"{namespace.__module__}.{namespace.__name__}"


@dataclass(frozen=True)
class MetricResult:
    step: str
    name: MetricName
    committed: object

    @property
    def attempted(self):
        return self.committed


class MetricResults:
    """Query interface over a finished run's metrics, as on Beam's ``PipelineResult``."""

    def __init__(self, container: MetricsContainer):
        self._container = container

    def query(self, name: str | None = None, namespace: str | None = None,
              step: str | None = None) -> dict:
        def keep(key):
            key_step, metric = key
            return ((name is None or metric.name == name)
                    and (namespace is None or metric.namespace == namespace)
                    and (step is None or key_step == step or key_step.startswith(step + "/")))

        return {
            "counters": [MetricResult(s, m, v)
                         for (s, m), v in self._container.counters.items() if keep((s, m))],
            "distributions": [MetricResult(s, m, v)
                              for (s, m), v in self._container.distributions.items() if keep((s, m))],
        }

    def counter(self, name: str, namespace: str | None = None) -> int:
        """Sum of a counter over all steps (0 if it never counted)."""
        return sum(r.committed for r in self.query(name, namespace)["counters"])
