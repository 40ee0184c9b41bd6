"""User metrics, as Beam's ``apache_beam.metrics``; runners also find here the container
that collects a run's metrics and the scope that routes user updates to it."""

from panes.metrics.cells import DistributionData
from panes.metrics.execution import (
    MetricsContainer,
    metrics_cell_scope,
    metrics_scope,
    reset_metrics_scope,
)
from panes.metrics.metric import MetricResults, Metrics, MetricsFilter
from panes.metrics.metricbase import MetricName
