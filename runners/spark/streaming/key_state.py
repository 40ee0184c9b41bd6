"""A keyed node's keys as the streaming runner keeps them between micro-batches: each key's
state (the windowing engine's ``KeyState``, the counting engine's lists with its windows and
panes as builtins, or a stateful DoFn's ``StatefulKeyState``: plain data) pickled, and a key
bucket's keys in one state row of Spark's state store with a log of the keys each call changed
since (``Bucket``), compressed; the tail's state in one row, pickled and compressed
(``dump_row``).

A bucket's pickles repeat their classes' names and much of their values, so zstd shrinks a row
about tenfold for less time than RocksDB takes to write what it saves (benchmarks/README.md,
*Streaming state rows compressed*)."""

from __future__ import annotations

import pickle
import struct
from collections.abc import Sequence
from operator import itemgetter
from typing import NamedTuple

import numpy
import pyarrow
from pyspark import cloudpickle

from panes.windowing.counting import CountingKeyState

_ZSTD = b"Z"  # a pickle starts with its protocol opcode, 0x80
_PLAIN = b"K"  # a counting engine's key state as plain data
_SIZE = struct.Struct("<Q")
_CODEC = pyarrow.Codec("zstd", compression_level=1)
_COLUMNS = b"C"  # a bucket laid out by column (``Bucket``)
_CHANGES = b"D"  # the keys one call changed, an entry of a bucket's log
# How large a bucket's log may grow against its row, in bytes and in the row's keys it changes,
# before the row is rewritten; and how many entries it may have, each read at every call.
_LOG_SHARE = 0.5
_LOG_ENTRIES = 64
_HEADER = struct.Struct("<QQ")  # the number of a bucket's keys, and the size of their pickle
_TIMES = numpy.dtype("<i8")  # a bucket's wake-ups (ms) and due times (µs)
_LENGTHS = numpy.dtype("<u8")  # the lengths of its keys' pickles
_UNSET = int(numpy.iinfo(_TIMES).max)  # a wake-up or due time a key does not have
_NO_TIMES, _NO_LENGTHS = numpy.empty(0, _TIMES), numpy.empty(0, _LENGTHS)


def load_state(blob: bytes):
    """A key's state as ``dump_state`` stored it."""
    if blob[:1] == _PLAIN:
        return CountingKeyState.of_plain(pickle.loads(memoryview(blob)[1:]))
    return pickle.loads(blob)


def dump_state(state) -> bytes:
    """A key's state as bytes for Spark's state store: a counting engine's as its plain data
    (``CountingKeyState.plain``), behind a marker, which a panes from before it cannot read."""
    if type(state) is CountingKeyState:
        state, marker = state.plain(), _PLAIN
    else:
        marker = b""
    try:
        return marker + pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return marker + cloudpickle.dumps(state, pickle.HIGHEST_PROTOCOL)


def dump_row(value) -> bytes:
    """A state row's value (the tail's state) pickled and compressed."""
    return _compressed(_ZSTD, pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def load_row(blob: bytes):
    """The value ``dump_row`` stored, or a plain pickle (a checkpoint's rows from before
    compression); also a key bucket's row from before ``Bucket``."""
    return pickle.loads(_decompressed(blob) if blob[:1] == _ZSTD else blob)


def _compressed(marker: bytes, payload: bytes) -> bytes:
    """A row's ``payload`` compressed, behind the ``marker`` of its layout and its size."""
    return marker + _SIZE.pack(len(payload)) + _CODEC.compress(payload, asbytes=True)


def _decompressed(blob: bytes) -> bytes:
    """The payload of a row ``_compressed`` wrote."""
    (size,) = _SIZE.unpack_from(blob, 1)
    return _CODEC.decompress(memoryview(blob)[1 + _SIZE.size :], size, asbytes=True)


class Write(NamedTuple):
    """What a call leaves of a bucket: its ``row`` rewritten whole, or the ``changes`` to
    append to its log (the other None; both None: no key is left), and the earliest Spark
    wake-up and processing-time due of its keys (None: none)."""

    row: bytes | None
    changes: bytes | None
    earliest: int | None
    first_due: int | None


class Bucket:
    """A key bucket's keys as its state row and log keep them: per key, its pickled state, its
    first position, its Spark wake-up and its processing-time due.

    The row is laid out by column — the keys, the wake-ups, the due times, the lengths of each
    key's two pickles, then the pickles — so loading a bucket unpickles only its keys' names,
    and rewriting it copies the pickles of the keys a call left alone, run by run
    (benchmarks/README.md, *Streaming bucket rows by column*). A call that changes a few of
    many keys appends just those to the bucket's log instead, until the log reaches half the
    row's size or changes half its keys, or ``_LOG_ENTRIES``, and the row is rewritten with it:
    most calls write about the keys they changed, however many the bucket holds, and keys
    removed leave the row soon (*Streaming bucket logs*)."""

    def __init__(self, keys=(), wakes=_NO_TIMES, dues=_NO_TIMES, ends=_NO_LENGTHS, body=b""):
        """``keys`` with their ``wakes`` and ``dues`` (``_UNSET``: none) and, two per key, where
        its pickled state and its pickled first position end in ``body``."""
        self._keys = list(keys)
        self._index = dict(zip(self._keys, range(len(self._keys))))
        self._wakes, self._dues, self._ends = wakes, dues, ends
        self._body = memoryview(body)
        self._changed: dict = {}  # key -> its (state, first, wake, due) by this call; None: removed
        self._row_size = 0  # 0: the row is rewritten at the call's end, whatever it changed
        self._log({}, ())

    def _log(self, logged: dict, log: Sequence[bytes]) -> None:
        """Takes the changes ``logged`` since the row (``log``'s entries) and what a call needs
        of them: the row's keys they leave alone, the times of the keys they hold."""
        self._logged, self._log_size, self._log_entries = logged, sum(map(len, log)), len(log)
        self._row_kept = _left(self._index, self._logged)
        held = [(key, stored) for key, stored in self._logged.items() if stored is not None]
        self._log_keys = [key for key, _ in held]
        self._log_index = dict(zip(self._log_keys, range(len(held))))
        self._log_wakes = _times(stored[2] for _, stored in held)
        self._log_dues = _times(stored[3] for _, stored in held)

    @classmethod
    def load(cls, row: bytes, log: Sequence[bytes] = ()) -> Bucket:
        """The bucket ``write`` stored as ``row`` and the ``log`` of changes after it; the row
        may be one stored by a panes from before the columns, rewritten at the first call."""
        if row[:1] != _COLUMNS:
            bucket = cls._of(load_row(row))
        else:
            bucket = cls._columns_of(row)
            bucket._row_size = len(row)
        logged: dict = {}
        for changes in log:
            logged.update(pickle.loads(_decompressed(changes)))
        bucket._log(logged, log)
        return bucket

    @classmethod
    def _columns_of(cls, row: bytes) -> Bucket:
        """The bucket of a row laid out by column."""
        payload = _decompressed(row)
        count, keys_size = _HEADER.unpack_from(payload)
        at = _HEADER.size + keys_size
        keys = pickle.loads(memoryview(payload)[_HEADER.size : at])
        wakes = numpy.frombuffer(payload, _TIMES, count, at)
        dues = numpy.frombuffer(payload, _TIMES, count, at + 8 * count)
        ends = numpy.cumsum(numpy.frombuffer(payload, _LENGTHS, 2 * count, at + 16 * count))
        body = memoryview(payload)[at + 32 * count :]
        if len(body) != (int(ends[-1]) if count else 0):
            raise ValueError("a key bucket's state row is corrupt: its lengths miss its bytes")
        return cls(keys, wakes, dues, ends, body)

    @classmethod
    def _of(cls, keys: dict) -> Bucket:
        """The bucket of an older row, a dict of its keys' ``(state, first, wake, due)``,
        written by column once and read back."""
        bucket = cls()
        bucket._changed = dict(keys)
        row = bucket.write().row
        return cls() if row is None else cls._columns_of(row)

    def get(self, key: bytes):
        """The key's ``(pickled state, first position)``; None for a key the bucket lacks."""
        for changes in (self._changed, self._logged):
            if key in changes:
                stored = changes[key]
                return None if stored is None else stored[:2]
        index = self._index.get(key)
        if index is None:
            return None
        start = int(self._ends[2 * index - 1]) if index else 0
        middle, end = int(self._ends[2 * index]), int(self._ends[2 * index + 1])
        return bytes(self._body[start:middle]), pickle.loads(self._body[middle:end])

    def set(self, key: bytes, stored) -> None:
        """Gives the key ``(pickled state, first position, wake-up, due)``; None removes it."""
        self._changed[key] = stored

    def due(self, watermark: int, processing_now, skip) -> list:
        """The keys, sorted, whose Spark wake-up the ``watermark`` (ms) has reached or whose
        processing-time timer is due by ``processing_now`` (None: none is), but for ``skip``:
        of the keys as loaded, before a call changes any."""
        now = watermark, processing_now
        in_row = _reached(self._wakes, self._dues, *now) & self._row_kept
        in_log = _reached(self._log_wakes, self._log_dues, *now)
        keys = [*map(self._keys.__getitem__, numpy.flatnonzero(in_row).tolist())]
        keys += map(self._log_keys.__getitem__, numpy.flatnonzero(in_log).tolist())
        return sorted(key for key in keys if key not in skip)

    def write(self) -> Write:
        """The bucket as changed: its changes for the log while the log stays under
        ``_LOG_SHARE`` of the row's bytes and keys and within ``_LOG_ENTRIES``, else the row
        rewritten whole: so the keys the log removed or replaced stay less than half the row."""
        changed = self._changed
        row_kept = self._row_kept & _left(self._index, changed)
        log_kept = _left(self._log_index, changed)
        new = [stored for stored in changed.values() if stored is not None]
        wakes = [self._wakes[row_kept], self._log_wakes[log_kept], _times(s[2] for s in new)]
        dues = [self._dues[row_kept], self._log_dues[log_kept], _times(s[3] for s in new)]
        if not sum(map(len, wakes)):
            return Write(None, None, None, None)
        earliest, first_due = _earliest(*wakes), _earliest(*dues)
        shadowed = len(self._keys) - numpy.count_nonzero(row_kept)
        if (
            self._row_size
            and self._log_entries < _LOG_ENTRIES
            and shadowed < _LOG_SHARE * len(self._keys)
        ):
            logged = _compressed(_CHANGES, pickle.dumps(changed, pickle.HIGHEST_PROTOCOL))
            if self._log_size + len(logged) <= _LOG_SHARE * self._row_size:
                return Write(None, logged, earliest, first_due)
        row = self._rewritten({**self._logged, **changed}, row_kept)
        return Write(row, None, earliest, first_due)

    def _rewritten(self, changes: dict, kept: numpy.ndarray) -> bytes:
        """The row with ``changes`` (the log's and the call's) made: the pickles of the row's
        ``kept`` keys, those the changes leave alone, copied in runs, the changed keys' after."""
        added = sorted(
            ((key, stored) for key, stored in changes.items() if stored is not None),
            key=itemgetter(0),
        )
        wakes = numpy.concatenate([self._wakes[kept], _times(s[2] for _, s in added)])
        dues = numpy.concatenate([self._dues[kept], _times(s[3] for _, s in added)])
        keys = [*map(self._keys.__getitem__, numpy.flatnonzero(kept).tolist())]
        keys += [key for key, _ in added]
        pickles = [
            (stored[0], pickle.dumps(stored[1], pickle.HIGHEST_PROTOCOL)) for _, stored in added
        ]
        lengths = numpy.diff(self._ends, prepend=_LENGTHS.type(0)).reshape(-1, 2)[kept]
        lengths = numpy.concatenate(
            [lengths.ravel(), numpy.array([len(p) for pair in pickles for p in pair], _LENGTHS)]
        )
        pickled_keys = pickle.dumps(keys, pickle.HIGHEST_PROTOCOL)
        payload = b"".join(
            [
                _HEADER.pack(len(keys), len(pickled_keys)),
                pickled_keys,
                wakes.tobytes(),
                dues.tobytes(),
                lengths.tobytes(),
                *self._kept_runs(kept),
                *(part for pair in pickles for part in pair),
            ]
        )
        return _compressed(_COLUMNS, payload)

    def _kept_runs(self, keep) -> list:
        """The pickles of the kept keys, as runs of the body between the keys left out."""
        ends, body, runs, start = self._ends, self._body, [], 0
        for left_out in [*numpy.flatnonzero(~keep).tolist(), len(self._keys)]:
            if left_out > start:
                first = int(ends[2 * start - 1]) if start else 0
                runs.append(body[first : int(ends[2 * left_out - 1])])
            start = left_out + 1
        return runs


def _times(times) -> numpy.ndarray:
    """A column of wake-ups or due times (None: ``_UNSET``)."""
    return numpy.array([_UNSET if time is None else time for time in times], _TIMES)


def _left(index: dict, changes: dict) -> numpy.ndarray:
    """Which of the keys ``index`` places ``changes`` leaves alone."""
    left = numpy.ones(len(index), bool)
    left[numpy.array([index[key] for key in changes if key in index], int)] = False
    return left


def _reached(wakes, dues, watermark: int, processing_now) -> numpy.ndarray:
    """Which of the keys of ``wakes`` and ``dues`` the ``watermark`` or ``processing_now``
    (None: none is) has reached."""
    reached = wakes <= watermark
    if processing_now is not None:
        reached |= dues <= processing_now
    return reached


def _earliest(*columns: numpy.ndarray):
    """The earliest of columns of times; None when none is set."""
    earliest = min((int(times.min()) for times in columns if len(times)), default=_UNSET)
    return None if earliest == _UNSET else earliest
