"""User metrics on Spark, counted once per element whatever Spark retries, and the log records
of user code that travel with them (``panes.runners.spark.worker_logs``).

Spark adds a task's accumulator updates each time a task succeeds: a retried task, a
speculative copy, and every task of a stage recomputed after an executor was lost add theirs
again. So each partition loop reports its metrics keyed by the loop and the partition, and the
driver keeps one report per key — the partition's committed result, as the loop is
deterministic — before summing them. A report also carries the log records written since
the task's last report; the driver passes on each key's once.
"""

from __future__ import annotations

import uuid

from pyspark.accumulators import AccumulatorParam

from panes.metrics import MetricsContainer
from panes.runners.spark import worker_logs


class PerPartition(AccumulatorParam):
    """An accumulator of reports keyed by partition (here ``{(loop, partition):
    (MetricsContainer, WorkerLogs | None)}``); a later report of the same key replaces the
    earlier one."""

    def zero(self, value):
        return {}

    def addInPlace(self, value1, value2):
        value1.update(value2)
        return value1


def partition_metrics(sc):
    """A fresh accumulator of per-partition metrics reports."""
    return sc.accumulator({}, PerPartition())


def loop_id() -> str:
    """A name for one partition loop (an RDD's), made on the driver."""
    return uuid.uuid4().hex


def report(accumulator, loop: str, partition: int, container: MetricsContainer) -> None:
    """On a worker: the partition's metrics, replacing any earlier attempt's, and the log
    records its task's user code wrote since its last report."""
    accumulator.add({(loop, partition): (container, worker_logs.taken())})


def committed(accumulator) -> MetricsContainer:
    """On the driver: every partition's metrics, each counted once."""
    total = MetricsContainer()
    for container, _ in list(accumulator.value.values()):
        total.merge(container)
    return total


def emit_new_logs(accumulator, emitted: set) -> None:
    """On the driver: the log records of the reports not in ``emitted`` (the keys of reports
    already passed on), which then are."""
    new = [(key, logs) for key, (_, logs) in list(accumulator.value.items()) if key not in emitted]
    emitted.update(key for key, _ in new)
    worker_logs.emit(logs for _, logs in new)
