"""How the Spark runner's workers pickle what they ship: C pickle first, cloudpickle if need be.

PySpark pickles data with cloudpickle, whose Python-level hook runs for every object that is not
a builtin — each window, pane and windowed value — and costs several times what the C pickler
takes. On a worker the C pickler can stand in: whatever it cannot pickle by reference (a lambda,
a class that reached the worker by value, such as a user's class from the driver's
``__main__``) fails its look-up there, and the batch goes to cloudpickle instead. On the driver
a ``__main__`` class would pickle by a reference workers cannot resolve, so this is for what
workers produce only; the driver's data keeps PySpark's serializer.
"""

from __future__ import annotations

import pickle
import struct
from functools import cache

from pyspark import cloudpickle
from pyspark.serializers import AutoBatchedSerializer, FramedSerializer


class WorkerSerializer(FramedSerializer):
    """Pickles with the C pickler, or with cloudpickle once the C pickler has failed."""

    def dumps(self, obj) -> bytes:
        return dumps(obj)

    def loads(self, obj, encoding="bytes"):
        return pickle.loads(obj, encoding=encoding)


_c_pickle_works = True  # per worker process: false once the C pickler met what it cannot do


def dumps(obj) -> bytes:
    global _c_pickle_works
    if _c_pickle_works:
        try:
            return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
        except Exception:
            _c_pickle_works = False
    return cloudpickle.dumps(obj, pickle.HIGHEST_PROTOCOL)


class DriverResultSerializer(WorkerSerializer):
    """``WorkerSerializer``'s pickles compressed (zstd): for the task results the driver
    collects, which cross the JVM twice and count against ``spark.driver.maxResultSize``.
    Columns of micros shrink to about half, and a task result under
    ``spark.task.maxDirectResultSize`` (1 MiB by default) comes back with the task's status
    instead of being fetched after it."""

    def dumps(self, obj) -> bytes:
        data = dumps(obj)
        return _LENGTH.pack(len(data)) + _zstd().compress(data, asbytes=True)

    def loads(self, obj, encoding="bytes"):
        (length,) = _LENGTH.unpack_from(obj)
        data = _zstd().decompress(memoryview(obj)[_LENGTH.size :], length, asbytes=True)
        return pickle.loads(data, encoding=encoding)


_LENGTH = struct.Struct("<Q")


@cache
def _zstd():
    import pyarrow

    return pyarrow.Codec("zstd", compression_level=1)


WORKER_OUTPUT = AutoBatchedSerializer(WorkerSerializer())
DRIVER_RESULT = AutoBatchedSerializer(DriverResultSerializer())


def worker_output(rdd, to_driver: bool = False):
    """``rdd`` (just made by a transformation, not yet named or run), its records pickled by
    ``WorkerSerializer``, compressed when they go ``to_driver`` (a ``collect``). PySpark keeps
    an RDD's serializer in ``_jrdd_deserializer``, the attribute its own ``_reserialize``
    sets."""
    rdd._jrdd_deserializer = DRIVER_RESULT if to_driver else WORKER_OUTPUT
    return rdd
