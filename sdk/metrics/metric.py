"""User metrics, as Beam's ``apache_beam.metrics.metric``: ``Metrics`` makes them,
``MetricsFilter`` selects them and ``MetricResults`` answers a finished run's queries."""

from __future__ import annotations

from panes.metrics.execution import MetricKey, MetricResult, MetricsContainer
from panes.metrics.metricbase import Counter, Distribution, MetricName


class Metrics:
    """Beam's entry point: ``Metrics.counter(namespace, name).inc()``; the namespace is a
    string or a class (its qualified name)."""

    @staticmethod
    def get_namespace(namespace) -> str:
        if isinstance(namespace, str):
            return namespace
        if isinstance(namespace, type):
            return f"{namespace.__module__}.{namespace.__name__}"
        raise ValueError(f"a metric namespace is a string or a class, got {namespace!r}")

    @staticmethod
    def counter(namespace, name: str) -> Counter:
        return Counter(MetricName(Metrics.get_namespace(namespace), name))

    @staticmethod
    def distribution(namespace, name: str) -> Distribution:
        return Distribution(MetricName(Metrics.get_namespace(namespace), name))


class MetricsFilter:
    """Selects metrics by name, namespace and step; each ``with_*`` adds alternatives."""

    def __init__(self):
        self._names: set = set()
        self._namespaces: set = set()
        self._steps: set = set()

    @property
    def names(self) -> frozenset:
        return frozenset(self._names)

    @property
    def namespaces(self) -> frozenset:
        return frozenset(self._namespaces)

    @property
    def steps(self) -> frozenset:
        return frozenset(self._steps)

    def with_metric(self, metric) -> MetricsFilter:
        return self.with_name(metric.metric_name.name).with_namespace(metric.metric_name.namespace)

    def with_name(self, name: str) -> MetricsFilter:
        return self.with_names([name])

    def with_names(self, names) -> MetricsFilter:
        self._names.update(_collection(names, "names"))
        return self

    def with_namespace(self, namespace) -> MetricsFilter:
        return self.with_namespaces([namespace])

    def with_namespaces(self, namespaces) -> MetricsFilter:
        self._namespaces.update(
            Metrics.get_namespace(namespace) for namespace in _collection(namespaces, "namespaces")
        )
        return self

    def with_step(self, step: str) -> MetricsFilter:
        return self.with_steps([step])

    def with_steps(self, steps) -> MetricsFilter:
        self._steps.update(_collection(steps, "steps"))
        return self


def _collection(values, what: str):
    if isinstance(values, str):
        raise ValueError(f"{what} must be a collection, not a string: write [{values!r}]")
    return values


class MetricResults:
    """A finished run's metrics: ``query(MetricsFilter().with_name('words'))`` gives
    ``{'counters': [MetricResult, ...], 'distributions': [...], 'gauges': []}``."""

    COUNTERS = "counters"
    DISTRIBUTIONS = "distributions"
    GAUGES = "gauges"

    def __init__(self, container: MetricsContainer):
        self._container = container

    @staticmethod
    def matches(filter: MetricsFilter | None, key: MetricKey) -> bool:
        """Beam's rule: the name and namespace are among the filter's (when it names any), and
        a filter step is a '/'-delimited run of the step's full label."""
        if filter is None:
            return True
        return (
            (not filter.names or key.metric.name in filter.names)
            and (not filter.namespaces or key.metric.namespace in filter.namespaces)
            and (not filter.steps or any(_is_sub_path(key.step, step) for step in filter.steps))
        )

    def query(
        self,
        filter: MetricsFilter | None = None,
        *,
        name: str | None = None,
        namespace=None,
        step: str | None = None,
    ) -> dict:
        """The matching metrics; ``name``, ``namespace`` and ``step`` are a shorthand for a
        filter with those."""
        if filter is None and (name, namespace, step) != (None, None, None):
            filter = MetricsFilter()
            for value, add in (
                (name, filter.with_name),
                (namespace, filter.with_namespace),
                (step, filter.with_step),
            ):
                if value is not None:
                    add(value)

        def results(metrics):
            return [
                MetricResult(MetricKey(s, m), value, value)
                for (s, m), value in metrics.items()
                if self.matches(filter, MetricKey(s, m))
            ]

        return {
            self.COUNTERS: results(self._container.counters),
            self.DISTRIBUTIONS: results(self._container.distributions),
            self.GAUGES: [],
        }

    def counter(self, name: str, namespace=None) -> int:
        """Sum of a counter over all steps (0 if it never counted)."""
        return sum(r.committed for r in self.query(name=name, namespace=namespace)[self.COUNTERS])


def _is_sub_path(actual: str, wanted: str) -> bool:
    parts, pieces = actual.split("/"), wanted.split("/")
    return bool(actual) and any(
        parts[i : i + len(pieces)] == pieces for i in range(len(parts) - len(pieces) + 1)
    )
