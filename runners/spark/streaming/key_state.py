"""A keyed node's keys as the streaming runner keeps them between micro-batches: each key's
state (the windowing engine's ``KeyState``, or a stateful DoFn's ``StatefulKeyState``: plain
data) pickled, and a key bucket's keys in one state row of Spark's state store, compressed.

A bucket's pickles repeat their classes' names and much of their values, so zstd shrinks a row
about tenfold for less time than RocksDB takes to write what it saves (benchmarks/README.md,
*Streaming state rows compressed*)."""

from __future__ import annotations

import pickle
import struct

import pyarrow
from pyspark import cloudpickle

_ZSTD = b"Z"  # a pickle starts with its protocol opcode, 0x80
_SIZE = struct.Struct("<Q")
_CODEC = pyarrow.Codec("zstd", compression_level=1)


def load_state(blob: bytes):
    """A key's state as ``dump_state`` stored it."""
    return pickle.loads(blob)


def dump_state(state) -> bytes:
    """A key's state as bytes for Spark's state store."""
    try:
        return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return cloudpickle.dumps(state, pickle.HIGHEST_PROTOCOL)


def dump_row(value) -> bytes:
    """A state row's value (a bucket's keys, the tail's state) pickled and compressed."""
    pickled = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    return _ZSTD + _SIZE.pack(len(pickled)) + _CODEC.compress(pickled, asbytes=True)


def load_row(blob: bytes):
    """The value ``dump_row`` stored, or a plain pickle (a checkpoint's rows from before
    compression)."""
    if blob[:1] != _ZSTD:
        return pickle.loads(blob)
    (size,) = _SIZE.unpack_from(blob, 1)
    return pickle.loads(_CODEC.decompress(memoryview(blob)[1 + _SIZE.size :], size, asbytes=True))
