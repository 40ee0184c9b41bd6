"""The ingest stage: a ``mapInArrow`` over a source's rows that turns them into elements, runs
the element-wise transforms after the source (``routing``) and hands on what reaches a grouping
or a write as ``rows.ROW_SCHEMA`` rows, plus the watermark column Spark's watermark follows.

Each task is one bundle of each transform (``start_bundle`` ... ``finish_bundle``), as on the
batch Spark runner; user metrics and log records leave the task as one row routed to
``metrics``.
"""

from __future__ import annotations

import pyarrow as pa

from panes.errors import UserCodeError
from panes.ir import from_json
from panes.metrics import MetricsContainer, metrics_cell_scope, reset_metrics_scope
from panes.runners.spark.errors import TransportedError, transported
from panes.runners.spark.positions import INGEST_TASK
from panes.runners.spark.streaming.routing import Router
from panes.runners.spark.streaming.rows import TICK, Outbox, add_report
from panes.runners.spark.worker_logs import captured

INGEST_SCHEMA = pa.schema(
    [
        ("route", pa.string()),
        ("key", pa.binary()),
        ("step", pa.int64()),
        ("data", pa.binary()),
        ("wm", pa.timestamp("us", tz="UTC")),
    ]
)
INGEST_DDL = "route string, key binary, step long, data binary, wm timestamp"


class Task:
    """What a decoder may need of its task: its partition, and how many rows it has read."""

    def __init__(self, partition: int):
        self.partition, self.rows = partition, 0


def ingest(ir_json: str, decode, buckets: int, tail_ids=frozenset()):
    """The ``mapInArrow`` function of a source: ``decode(batch, task)`` gives the batch's
    ``(pcollection id, Chunk)`` pushes and its watermark column's largest value (a datetime,
    or None); ``buckets``: how many key buckets; ``tail_ids``: the tail's groupings."""

    def run(batches):
        from pyspark import TaskContext

        partition = TaskContext.get().partitionId()
        task = Task(partition)
        ir = from_json(ir_json)
        cell = [MetricsContainer(), None]
        outbox = Outbox(ir, buckets, partition.to_bytes(4, "big"), tail_ids)
        router = Router(ir, outbox.exit, outbox.side, cell)
        token = metrics_cell_scope(cell)
        watermark, step = None, 0
        try:
            with captured():
                router.start_bundle()
                for batch in batches:
                    pushes, batch_watermark = decode(batch, task)
                    for pcollection, chunk in pushes:
                        router.push(pcollection, chunk)
                        step = chunk.positions[-1][0]
                    if batch_watermark is not None:
                        watermark = max(watermark or batch_watermark, batch_watermark)
                    if outbox:
                        yield _batch(outbox.drain(), watermark)
                router.finish_bundle(step, (INGEST_TASK, partition))
                router.close()
        except UserCodeError as error:
            raise TransportedError(transported(error)) from None
        finally:
            reset_metrics_scope(token)
        columns = outbox.drain()
        add_report(columns, cell[0])
        columns["route"].append(TICK)  # the watermark, even when nothing else leaves
        columns["key"].append(b"")
        columns["step"].append(0)
        columns["data"].append(None)
        yield _batch(columns, watermark)

    return run


def _batch(columns: dict, watermark) -> pa.RecordBatch:
    count = len(columns["route"])
    return pa.RecordBatch.from_pydict({**columns, "wm": [watermark] * count}, schema=INGEST_SCHEMA)
