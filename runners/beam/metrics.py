"""Beam's user metrics in panes' containers, and a run's metrics as Beam's ``MetricResults``.

Beam's ``Metrics.counter(...).inc()`` reports to the state sampler of the current thread;
``use_panes_metrics`` installs one whose metrics container hands counters and distributions
to panes' current metrics scope, so they are counted as panes counts its own (once per
committed task on Spark) under the step that runs them. Gauges, string sets, bounded tries
and histograms (Beam's lineage among them) are not bridged.
"""

from __future__ import annotations

import threading

from apache_beam.metrics import cells as beam_cells
from apache_beam.metrics.execution import MetricKey as BeamMetricKey
from apache_beam.metrics.execution import MetricResult as BeamMetricResult
from apache_beam.metrics.execution import MetricsContainer as BeamMetricsContainer
from apache_beam.metrics.metric import MetricResults as BeamMetricResults
from apache_beam.metrics.metricbase import MetricName as BeamMetricName
from apache_beam.runners.worker import statesampler
from apache_beam.utils.counters import CounterFactory

from panes.metrics import MetricName
from panes.metrics.execution import current_scope


class _Counter(beam_cells.MetricCell):
    """A Beam counter's updates, added to panes' counter of the same name."""

    def __init__(self, name: MetricName):
        super().__init__()
        self.name = name

    def update(self, value) -> None:
        scope = current_scope()
        if scope is not None:
            scope[0].inc(scope[1], self.name, value)


class _Distribution(_Counter):
    """A Beam distribution's updates, added to panes' distribution of the same name."""

    def update(self, value) -> None:
        scope = current_scope()
        if scope is not None:
            scope[0].update(scope[1], self.name, value)


class _Unbridged(_Counter):
    """A gauge, string set, bounded trie or histogram: not kept."""

    def update(self, value) -> None:
        pass


_CELLS = {beam_cells.CounterCell: _Counter, beam_cells.DistributionCell: _Distribution}


class _PanesContainer(BeamMetricsContainer):
    """The metrics container Beam's sampler reports to: a cell per metric, each passing its
    updates on to panes' scope."""

    def __init__(self):
        super().__init__("panes")
        self.cells: dict = {}

    def get_metric_cell(self, typed_name):
        cell = self.cells.get(typed_name)
        if cell is None:
            name = MetricName(typed_name.metric_name.namespace, typed_name.metric_name.name)
            cell = self.cells[typed_name] = _CELLS.get(typed_name.cell_type, _Unbridged)(name)
        return cell


_THREAD = threading.local()


def use_panes_metrics() -> None:
    """Makes Beam's metrics in this thread report to panes' (called before Beam code runs,
    in every process that runs it; the thread's sampler is made once)."""
    sampler = getattr(_THREAD, "sampler", None)
    if sampler is None:
        sampler = _THREAD.sampler = statesampler.StateSampler("panes", CounterFactory())
        state = sampler.scoped_state("panes", "process", metrics_container=_PanesContainer())
        state.__enter__()
    if statesampler.get_current_tracker() is not sampler:
        statesampler.set_current_tracker(sampler)


class MetricResults(BeamMetricResults):
    """A finished run's metrics as Beam reports them; ``query`` takes Beam's
    ``MetricsFilter``."""

    def __init__(self, container):
        self.container = container

    def query(self, filter=None) -> dict:
        def results(metrics, convert):
            found = []
            for (step, name), value in metrics.items():
                key = BeamMetricKey(step, BeamMetricName(name.namespace, name.name))
                if self.matches(filter, key):
                    found.append(BeamMetricResult(key, convert(value), convert(value)))
            return found

        return {
            self.COUNTERS: results(self.container.counters, int),
            self.DISTRIBUTIONS: results(self.container.distributions, _distribution),
            self.GAUGES: [],
            self.STRINGSETS: [],
            self.BOUNDED_TRIES: [],
        }


def _distribution(data) -> beam_cells.DistributionResult:
    return beam_cells.DistributionResult(
        beam_cells.DistributionData(data.sum, data.count, data.min, data.max)
    )
