"""A keyed node's keys as the streaming runner keeps them between micro-batches: each key's
state (the windowing engine's ``KeyState``, or a stateful DoFn's ``StatefulKeyState``: plain
data) pickled into Spark's state store."""

from __future__ import annotations

import pickle

from pyspark import cloudpickle


def load_state(blob: bytes):
    """A key's state as ``dump_state`` stored it."""
    return pickle.loads(blob)


def dump_state(state) -> bytes:
    """A key's state as bytes for Spark's state store."""
    try:
        return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return cloudpickle.dumps(state, pickle.HIGHEST_PROTOCOL)
