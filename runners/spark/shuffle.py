"""Shuffling ``(key, value)`` pairs by key, bucketed in panes' own partition loops.

PySpark's ``partitionBy`` runs a Python loop per pair (hash, bucket, batch) before it pickles,
and its reduce side merges outside the loops that pause the cycle collector. Here the map side
sorts pairs into a bucket per destination partition and ships each full bucket as one pickled
record, so Spark moves batches, and the reduce side unpickles them where its consumer runs.
"""

from __future__ import annotations

import pickle

from pyspark.rdd import portable_hash

from panes.runners.spark.serializer import dumps

BATCH = 1024  # pairs a bucket ships as one record
KEYS_REMEMBERED = 65536  # keys whose partition a map side remembers


def key_hash(key) -> int:
    """PySpark's ``portable_hash``, without its per-call environment check for the common
    string and int keys: Spark gives every Python worker the same PYTHONHASHSEED."""
    kind = type(key)
    return hash(key) if kind is str or kind is int else portable_hash(key)


class Buckets:
    """A map side's pairs, a bucket per partition; ``add_all(pairs)`` files ``(key, value)``
    pairs, and full buckets wait in ``drain()`` as ``(partition, pickled pairs)`` records, the
    rest in ``finish()``."""

    def __init__(self, partitions: int):
        out, buckets, partition_of = [], [[] for _ in range(partitions)], {}
        self._out, self._buckets = out, buckets

        def add_all(pairs):
            for pair in pairs:
                key = pair[0]
                partition = partition_of.get(key)
                if partition is None:
                    if len(partition_of) >= KEYS_REMEMBERED:
                        partition_of.clear()
                    partition = partition_of[key] = key_hash(key) % partitions
                bucket = buckets[partition]
                bucket.append(pair)
                if len(bucket) == BATCH:
                    out.append((partition, _pickled(bucket)))
                    bucket.clear()

        self.add_all = add_all

    def drain(self):
        yield from self._out
        self._out.clear()

    def finish(self):
        yield from self.drain()
        for partition, bucket in enumerate(self._buckets):
            if bucket:
                yield partition, _pickled(bucket)


def shuffled(batches, partitions: int):
    """The pairs of ``batches`` (``Buckets`` records), each in its key's partition."""
    return batches.partitionBy(partitions, _partition).flatMap(_unpickled)


def _pickled(pairs: list) -> bytes:
    return dumps(pairs)


def _partition(partition: int) -> int:
    return partition


def _unpickled(batch):
    return pickle.loads(batch[1])
