"""The rows the streaming query carries between its stages, and what they hold.

Every stage after the sources speaks one schema, ``ROW_SCHEMA``: ``route`` names where a row
goes (a grouping or a write node, ``metrics``), ``key`` the grouping key it is shuffled by
(pickled; for a write, just a bucket that spreads the rows), ``step`` the event-log step of its
first element, and ``data`` a pickled list — a grouping's ``(position, value, timestamp,
windows, pane)`` records, a write's ``(position, WindowedValue)`` pairs, or a metrics
container. Elements of one key travel together, so Spark moves few, large rows.
"""

from __future__ import annotations

import pickle

from panes.runners.replay import key_values
from panes.runners.spark.serializer import dumps

ROW_SCHEMA = "route string, key binary, step long, data binary"
METRICS = "metrics"
TAIL = "tail"  # rows bound for the groupings after groupings (``tail``)
IN, HOLD = "in", "hold"  # a tail row's entries: inputs of its groupings, changes of holds
TICK = "tick"  # rows that only carry the watermark column
_COLUMNS = ("route", "key", "step", "data")


def load(data: bytes):
    return pickle.loads(data)


class Outbox:
    """Collects what leaves a push graph (``routing.Router``) as rows, per route and key."""

    def __init__(self, ir, bucket: bytes = b"", tail_ids=frozenset()):
        self.ir, self.bucket, self.tail_ids = ir, bucket, tail_ids
        self._rows: dict = {}
        self._keys: dict = {}  # key -> its pickle, for the keys of this outbox

    def exit(self, node, chunk) -> None:
        """``routing.Router``'s exit: groupings get keyed records, writes positioned values, and
        the tail's groupings their records, unkeyed (``tail``)."""
        if node.id in self.tail_ids:
            self._records(TAIL, b"").append((IN, node.id, list(zip(*chunk))))
            return
        if node.kind == "write":
            records = self._records(node.id, self.bucket)
            records.extend(zip(chunk.positions, _boxed(chunk)))
            return
        pairs = key_values(node.id, node.kind, chunk.values)
        pickled, route = self._keys, node.id
        for (key, value), position, timestamp, windows, pane in zip(
                pairs, chunk.positions, chunk.timestamps, chunk.windows, chunk.panes):
            key_bytes = pickled.get(key) if type(key) in (str, int, bytes) else None
            if key_bytes is None:
                key_bytes = pickled[key] = pickle.dumps(key, pickle.HIGHEST_PROTOCOL)
            self._records(route, key_bytes).append((position, value, timestamp, windows, pane))

    def add(self, route: str, key: bytes, records: list) -> None:
        self._records(route, key).extend(records)

    def _records(self, route: str, key: bytes) -> list:
        records = self._rows.get((route, key))
        if records is None:
            records = self._rows[(route, key)] = []
        return records

    def drain(self) -> dict:
        """The rows collected since the last drain, as columns."""
        columns = {name: [] for name in _COLUMNS}
        for (route, key), records in self._rows.items():
            columns["route"].append(route)
            columns["key"].append(key)
            position = records[0][0] if records else None
            columns["step"].append(position[0] if isinstance(position, tuple) else 0)
            columns["data"].append(dumps(records))
        self._rows.clear()
        if len(self._keys) > 65536:
            self._keys.clear()
        return columns

    def __bool__(self) -> bool:
        return bool(self._rows)


def metrics_columns(container) -> dict:
    return {"route": [METRICS], "key": [b""], "step": [0], "data": [dumps(container)]}


def _boxed(chunk):
    from panes.window import WindowedValue

    return map(WindowedValue, chunk.values, chunk.timestamps, chunk.windows, chunk.panes)
