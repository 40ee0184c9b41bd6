"""Shuffling ``(key, value)`` pairs by key, bucketed in panes' own partition loops.

PySpark's ``partitionBy`` runs a Python loop per pair (hash, bucket, batch) before it pickles,
and its reduce side merges outside the loops that pause the cycle collector. Here the map side
sorts pairs into a bucket per destination partition, each bucket holding a list of values per
key, and ships each full bucket as one pickled record: Spark moves batches, and the reduce side
unpickles them where its consumer runs and takes each key's values as one list (unpickling a
value in a key's list costs less than half what a ``(key, value)`` pair does).
"""

from __future__ import annotations

import pickle

from pyspark.rdd import portable_hash

from panes.runners.spark.serializer import dumps

BATCH = 1024  # values a bucket ships as one record
KEYS_REMEMBERED = 65536  # keys whose partition a map side remembers


def key_hash(key) -> int:
    """PySpark's ``portable_hash``, without its per-call environment check for the common
    string and int keys: Spark gives every Python worker the same PYTHONHASHSEED."""
    kind = type(key)
    return hash(key) if kind is str or kind is int else portable_hash(key)


class Buckets:
    """A map side's pairs, a bucket per partition; ``add_all(keys, values)`` files pairs, and
    full buckets wait in ``drain()`` as ``(partition, pickled {key: [values]})`` records, the
    rest in ``finish()``."""

    def __init__(self, partitions: int):
        out: list = []
        buckets: list[dict] = [{} for _ in range(partitions)]
        partition_of: dict = {}
        sizes = [0] * partitions
        self._out, self._buckets = out, buckets

        def add_all(keys, values):
            for key, value in zip(keys, values):
                partition = partition_of.get(key)
                if partition is None:
                    if len(partition_of) >= KEYS_REMEMBERED:
                        partition_of.clear()
                    partition = partition_of[key] = key_hash(key) % partitions
                bucket = buckets[partition]
                try:
                    bucket[key].append(value)
                except KeyError:
                    bucket[key] = [value]
                sizes[partition] += 1
                if sizes[partition] == BATCH:
                    out.append((partition, dumps(bucket)))
                    buckets[partition], sizes[partition] = {}, 0

        self.add_all = add_all

    def drain(self):
        yield from self._out
        self._out.clear()

    def finish(self):
        yield from self.drain()
        for partition, bucket in enumerate(self._buckets):
            if bucket:
                yield partition, dumps(bucket)


def shuffled(batches, partitions: int, extra=None):
    """``(key, values)`` of ``batches`` (``Buckets`` records), each in its key's partition; a
    key's values may come in several such lists. ``extra``: ``(partition, item)`` records
    whose items join the partition's pairs as they are."""
    if extra is not None:
        batches = batches.union(extra)
    return batches.partitionBy(partitions, _partition).flatMap(_unpickled)


def _partition(partition: int) -> int:
    return partition


def _unpickled(batch):
    payload = batch[1]
    return pickle.loads(payload).items() if type(payload) is bytes else (payload,)
