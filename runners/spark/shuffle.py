"""Shuffling keyed records by key, bucketed in panes' own partition loops, in columns.

PySpark's ``partitionBy`` runs a Python loop per pair (hash, bucket, batch) before it pickles,
and its reduce side merges outside the loops that pause the cycle collector. Here the map side
notes each record's destination partition in one loop, gathers each partition's share of the
columns at C speed, and ships a bucket of at least ``BATCH`` records as one pickled record of
columns: keys, positions and the rest. Columns of plain values cost a fraction of what a tuple
per record does to pickle and unpickle (the pickler memoizes every tuple), and positions of one
length ship as one column per component. The reduce side unpickles them where its consumer
runs, rebuilds the records at C speed and takes each key's records of a bucket as one list.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from operator import itemgetter

from pyspark.rdd import portable_hash

from panes.runners.spark.positions import by_position
from panes.runners.spark.serializer import dumps

BATCH = 1024  # records a bucket ships at least as one pickled record
KEYS_REMEMBERED = 65536  # keys whose partition a map side remembers


def key_hash(key) -> int:
    """PySpark's ``portable_hash``, without its per-call environment check for the common
    string and int keys: Spark gives every Python worker the same PYTHONHASHSEED."""
    kind = type(key)
    return hash(key) if kind is str or kind is int else portable_hash(key)


class Buckets:
    """A map side's records, a bucket per partition: ``add_all(keys, positions, *columns)``
    files the records ``(position, *column values)`` under their keys, and full buckets wait
    in ``drain()`` as ``(partition, pickled columns)`` records, the rest in ``finish()``.
    ``ordered``: whether each key's records are added in position order (else the reduce
    side sorts each key's records of a bucket)."""

    def __init__(self, partitions: int, ordered: bool = False):
        self._ordered = ordered
        self._out: list = []
        self._buckets: list = [None] * partitions
        self._partition_of: dict = {}
        self._partitions = partitions

    def add_all(self, keys, positions, *columns) -> None:
        # Columns read by index, built whole first (a FlatMap's ``Expanded`` finds an entry by
        # bisection).
        indexable = [
            column if type(column) in _INDEXABLE else list(column)
            for column in (keys, positions, *columns)
        ]
        for partition, chosen in enumerate(self._chosen(indexable[0])):
            if not chosen:
                continue
            bucket = self._buckets[partition]
            if bucket is None:
                bucket = self._buckets[partition] = [[] for _ in indexable]
            gather = _gatherer(chosen)
            for pending, column in zip(bucket, indexable):
                pending.extend(gather(column))
            if len(bucket[0]) >= BATCH:
                self._out.append((partition, _pickled(bucket, self._ordered)))
                self._buckets[partition] = None

    def _chosen(self, keys) -> list:
        """For each partition, the indices of ``keys`` it receives."""
        partitions, partition_of = self._partitions, self._partition_of
        chosen: list = [[] for _ in range(partitions)]
        appends = [indices.append for indices in chosen]
        for index, key in enumerate(keys):
            partition = partition_of.get(key)
            if partition is None:
                if len(partition_of) >= KEYS_REMEMBERED:
                    partition_of.clear()
                partition = partition_of[key] = key_hash(key) % partitions
            appends[partition](index)
        return chosen

    def drain(self):
        yield from self._out
        self._out.clear()

    def finish(self):
        yield from self.drain()
        for partition, bucket in enumerate(self._buckets):
            if bucket is not None:
                yield partition, _pickled(bucket, self._ordered)


_INDEXABLE = (list, tuple)


def _gatherer(indices: list) -> Callable:
    """``itemgetter(*indices)``, giving a tuple for one index too."""
    if len(indices) > 1:
        return itemgetter(*indices)
    (index,) = indices
    return lambda column: (column[index],)


def _pickled(bucket: list, ordered: bool) -> bytes:
    keys, positions, *columns = bucket
    if len(set(map(len, positions))) == 1 and positions[0]:
        positions = tuple(zip(*positions))  # one column per component
    return dumps((ordered, keys, positions, *columns))


def shuffled(batches, partitions: int, extra=None):
    """``(key, records)`` of ``batches`` (``Buckets`` records), each in its key's partition; a
    key's records may come in several such lists, each in position order. ``extra``:
    ``(partition, item)`` records whose items join the partition's pairs as they are."""
    if extra is not None:
        batches = batches.union(extra)
    return batches.partitionBy(partitions, _partition).flatMap(_unpickled)


def _partition(partition: int) -> int:
    return partition


def _unpickled(batch):
    payload = batch[1]
    if type(payload) is not bytes:
        return (payload,)
    ordered, keys, positions, *columns = pickle.loads(payload)
    if type(positions) is tuple:
        positions = zip(*positions)
    groups: dict = {}
    for key, record in zip(keys, zip(positions, *columns)):
        group = groups.get(key)
        if group is None:
            groups[key] = [record]
        else:
            group.append(record)
    if not ordered:
        for group in groups.values():
            group.sort(key=by_position)
    return groups.items()
