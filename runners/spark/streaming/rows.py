"""The rows the streaming query carries between its stages, and what they hold.

Every stage after the sources speaks one schema, ``ROW_SCHEMA``: ``route`` names where a row
goes (a grouping or a write node, ``tail``, ``metrics``), ``key`` what Spark groups it by,
``step`` the event-log step of its first element, and ``data`` a pickled list. A grouping's
rows are keyed by a *key bucket* (``bucket_of``: a stable hash of the pickled key, modulo the
grouping's number of buckets) and hold ``(key, records)`` pairs, the records
``(position, value, timestamp, windows, pane)``: Spark calls the operator once per bucket, not
once per key, and a call costs far more than the work of a key in it. A file write's rows hold
``(position, value)`` pairs (a file holds values only), a capture's ``(position,
WindowedValue)``, keyed by the task's partition to spread them; the tail's
rows their entries, and a metrics row a task's metrics and log records. Elements of one
bucket travel together, so Spark moves few, large rows.
"""

from __future__ import annotations

import pickle
import zlib

from panes.compiler.lift import lift
from panes.io.capture import CaptureSink
from panes.runners.keyed import KeyedNode
from panes.runners.keys import key_values
from panes.runners.spark import worker_logs
from panes.runners.spark.serializer import dumps

ROW_SCHEMA = "route string, key binary, step long, data binary"
METRICS = "metrics"
TAIL = "tail"  # rows bound for the groupings after groupings (``tail``)
# A tail row's entries: inputs of its nodes, changes of holds, elements of side collections.
IN, HOLD, SIDE = "in", "hold", "side"
TICK = "tick"  # rows that only carry the watermark column
_COLUMNS = ("route", "key", "step", "data")


def load(data: bytes):
    return pickle.loads(data)


def bucket_of(key_bytes: bytes, buckets: int) -> bytes:
    """The bucket of a pickled key: the same in every process and after every restart."""
    return bucket_key(zlib.crc32(key_bytes) % buckets)


def bucket_key(index: int) -> bytes:
    """The Spark key of the ``index``-th key bucket."""
    return index.to_bytes(4, "big")


class Outbox:
    """Collects what leaves a push graph (``routing.Router``) as rows: a grouping's records per
    key bucket (``buckets`` of them), a write's per ``partition``, the tail's in one row."""

    def __init__(self, ir, buckets: int, partition: bytes = b"", tail_ids=frozenset()):
        self.ir, self.buckets, self.partition, self.tail_ids = ir, buckets, partition, tail_ids
        self._rows: dict = {}  # (route, Spark key) -> entries
        self._keyed: dict = {}  # (grouping, pickled key) -> records
        self._keys: dict = {}  # key -> its pickle, for the keys of this outbox
        self._captures = {
            node.id
            for node in ir.nodes.values()
            if node.kind == "write" and isinstance(lift(node.payload["sink"]), CaptureSink)
        }

    def exit(self, node, chunk) -> None:
        """``routing.Router``'s exit: groupings get keyed records, writes positioned values, and
        the tail's nodes their records, unkeyed (``tail``)."""
        if node.id in self.tail_ids:
            self._records(TAIL, b"").append((IN, node.id, list(zip(*chunk))))
            return
        if node.kind == "write":
            values = _boxed(chunk) if node.id in self._captures else chunk.values
            self._records(node.id, self.partition).extend(zip(chunk.positions, values))
            return
        pairs = key_values(node.id, KeyedNode.kind_of(node), chunk.values)
        pickled, keyed, route = self._keys, self._keyed, node.id
        for (key, value), position, timestamp, windows, pane in zip(
            pairs, chunk.positions, chunk.timestamps, chunk.windows, chunk.panes
        ):
            key_bytes = pickled.get(key) if type(key) in (str, int, bytes) else None
            if key_bytes is None:
                key_bytes = pickled[key] = pickle.dumps(key, pickle.HIGHEST_PROTOCOL)
            records = keyed.get((route, key_bytes))
            if records is None:
                records = keyed[(route, key_bytes)] = []
            records.append((position, value, timestamp, windows, pane))

    def side(self, pcollection_id: str, chunk) -> None:
        """``routing.Router``'s exit for a side collection's elements: they go to the tail."""
        self._records(TAIL, b"").append((SIDE, pcollection_id, list(zip(*chunk))))

    def add(self, route: str, key: bytes, entries: list) -> None:
        self._records(route, key).extend(entries)

    def _records(self, route: str, key: bytes) -> list:
        records = self._rows.get((route, key))
        if records is None:
            records = self._rows[(route, key)] = []
        return records

    def drain(self) -> dict:
        """The rows collected since the last drain, as columns."""
        for (route, key_bytes), records in self._keyed.items():
            self._records(route, bucket_of(key_bytes, self.buckets)).append((key_bytes, records))
        self._keyed.clear()
        columns: dict = {name: [] for name in _COLUMNS}
        for (route, key), records in self._rows.items():
            columns["route"].append(route)
            columns["key"].append(key)
            columns["step"].append(_first_step(records[0]) if records else 0)
            columns["data"].append(dumps(records))
        self._rows.clear()
        if len(self._keys) > 65536:
            self._keys.clear()
        return columns

    def __bool__(self) -> bool:
        return bool(self._rows or self._keyed)


def _first_step(entry) -> int:
    """The step of a row's first element (0 for entries without one)."""
    if isinstance(entry[0], tuple):
        return entry[0][0]  # (position, ...)
    if isinstance(entry[0], bytes):
        return entry[1][0][0][0]  # (key, records)
    return 0


def add_report(columns: dict, container) -> None:
    """Adds to ``columns`` the task's ``metrics`` row: its user metrics and the log records its
    user code wrote since its last report (``worker_logs``), when it has any."""
    logs = worker_logs.taken()
    if container.counters or container.distributions or logs is not None:
        columns["route"].append(METRICS)
        columns["key"].append(b"")
        columns["step"].append(0)
        columns["data"].append(dumps((container, logs)))


def _boxed(chunk):
    from panes.window import windowed_value

    return map(windowed_value, zip(chunk.values, chunk.timestamps, chunk.windows, chunk.panes))
