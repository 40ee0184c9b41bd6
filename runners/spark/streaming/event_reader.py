"""A static source's event log as a Spark stream: a Python Data Source whose reader delivers
one tick (one event-log step) per micro-batch.

Each tick's rows are the source's elements at that step, in chunks, and one marker row; every
row carries the tick as its watermark column, so Spark's watermark after the micro-batch is the
tick delivered. With ``Trigger.AvailableNow`` (``SupportsTriggerAvailableNow``) the query stops
by itself once the last tick, the end of input, has been processed.
"""

from __future__ import annotations

import base64
import datetime
import pickle

from pyspark import cloudpickle
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

FORMAT = "panes_event_log"
SCHEMA = "source string, tick long, data binary, wm timestamp"
CHUNK = 4096
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def tick_time(tick: int) -> datetime.datetime:
    """The watermark column's value for ``tick``: ``tick`` milliseconds after the epoch."""
    return _EPOCH + datetime.timedelta(milliseconds=tick)


def reader_options(source_id: str, bundles: dict, end_tick: int, ticks_per_batch: int) -> dict:
    payload = base64.b64encode(cloudpickle.dumps(bundles)).decode("ascii")
    return {
        "source": source_id,
        "bundles": payload,
        "end_tick": str(end_tick),
        "ticks_per_batch": str(ticks_per_batch),
    }


class _Tick(InputPartition):
    def __init__(self, tick: int):
        self.tick = tick


class EventLogReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets are ``{"tick": n}``: the ticks up to ``n`` have been delivered."""

    def __init__(self, options):
        self.source = options["source"]
        self.bundles = pickle.loads(base64.b64decode(options["bundles"]))
        self.end_tick = int(options["end_tick"])
        self.ticks_per_batch = int(options["ticks_per_batch"])

    def initialOffset(self) -> dict:
        return {"tick": 0}

    def prepareForTriggerAvailableNow(self) -> None:
        pass  # the log is complete from the start: its target is its last tick

    def latestOffset(self, start: dict, limit) -> dict:
        return {"tick": min(start["tick"] + self.ticks_per_batch, self.end_tick)}

    def partitions(self, start: dict, end: dict):
        return [_Tick(tick) for tick in range(start["tick"] + 1, end["tick"] + 1)]

    def read(self, partition):
        tick, watermark = partition.tick, tick_time(partition.tick)
        records = self.bundles.get(tick, [])
        for start in range(0, len(records), CHUNK):
            yield (self.source, tick, cloudpickle.dumps(records[start : start + CHUNK]), watermark)
        yield (self.source, tick, None, watermark)

    def commit(self, end: dict) -> None:
        pass


class EventLogSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> str:
        return SCHEMA

    def streamReader(self, schema) -> EventLogReader:
        return EventLogReader(self.options)
