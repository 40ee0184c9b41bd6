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
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
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
_ROW = b"R"  # a bucket's row, laid out by column (``Bucket``)
_ENTRY = b"E"  # the keys one call changed, an entry of a bucket's log, laid out as a row is
_OLDER_ROW = b"C"  # a row laid out by column with 64-bit lengths, before ``_ROW``
# How large a bucket's log may grow against its row, in bytes and in the row's keys it changes,
# before the row is rewritten; and how many entries it may have, each read at every call.
_LOG_SHARE = 0.5
_LOG_ENTRIES = 64
_HEADER = struct.Struct("<QQ")  # the number of a bucket's keys, and the size of their pickle
_TIMES = numpy.dtype("<i8")  # a bucket's wake-ups (ms) and due times (µs)
_LENGTHS = numpy.dtype("<u4")  # the lengths of its keys' pickles
_OLDER_LENGTHS = numpy.dtype("<u8")  # as ``_OLDER_ROW`` has them
_UNSET = int(numpy.iinfo(_TIMES).max)  # a wake-up or due time a key does not have
_NO_TIMES, _NO_ENDS = numpy.empty(0, _TIMES), numpy.empty(0, numpy.uint64)


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


class _Columns(NamedTuple):
    """Keys by column, as a bucket's row and each entry of its log lay them out: their names,
    their Spark wake-ups and processing-time due times (``_UNSET``: none), and, two per key,
    where its pickled state and its pickled first position end in ``body`` (both empty: a key
    a log entry removes)."""

    keys: list
    wakes: numpy.ndarray
    dues: numpy.ndarray
    ends: numpy.ndarray
    body: memoryview

    def pickles(self, index: int) -> tuple:
        """The key's pickled state and pickled first position."""
        ends = self.ends
        start = int(ends[2 * index - 1]) if index else 0
        middle, end = int(ends[2 * index]), int(ends[2 * index + 1])
        return self.body[start:middle], self.body[middle:end]

    def stored(self, index: int):
        """The key's ``(pickled state, first position)``; None for a key removed."""
        state, first = self.pickles(index)
        return (bytes(state), pickle.loads(first)) if first else None

    def removed(self) -> numpy.ndarray:
        """Which of the keys are removed: their first position is empty."""
        return self.lengths()[:, 1] == 0

    def lengths(self) -> numpy.ndarray:
        """The lengths of the keys' pickles, a row of two per key."""
        return numpy.diff(self.ends, prepend=self.ends.dtype.type(0)).reshape(-1, 2)


def _columns_of(blob: bytes) -> _Columns:
    """The keys of a row or a log entry laid out by column."""
    payload = _decompressed(blob)
    count, keys_size = _HEADER.unpack_from(payload)
    at = _HEADER.size + keys_size
    keys = pickle.loads(memoryview(payload)[_HEADER.size : at])
    wakes = numpy.frombuffer(payload, _TIMES, count, at)
    dues = numpy.frombuffer(payload, _TIMES, count, at + 8 * count)
    lengths = _OLDER_LENGTHS if blob[:1] == _OLDER_ROW else _LENGTHS
    ends = numpy.cumsum(
        numpy.frombuffer(payload, lengths, 2 * count, at + 16 * count), dtype=numpy.uint64
    )
    body = memoryview(payload)[at + (16 + 2 * lengths.itemsize) * count :]
    if len(body) != (int(ends[-1]) if count else 0):
        raise ValueError("a key bucket's state row is corrupt: its lengths miss its bytes")
    return _Columns(keys, wakes, dues, ends, body)


def _encoded(marker: bytes, keys: list, wakes, dues, lengths, parts) -> bytes:
    """Keys by column, compressed behind ``marker``: ``lengths`` are their pickles' (two per
    key), ``parts`` the pickles."""
    pickled_keys = pickle.dumps(keys, pickle.HIGHEST_PROTOCOL)
    payload = b"".join(
        [
            _HEADER.pack(len(keys), len(pickled_keys)),
            pickled_keys,
            wakes.tobytes(),
            dues.tobytes(),
            lengths.tobytes(),
            *parts,
        ]
    )
    return _compressed(marker, payload)


def _records(changes: dict) -> list:
    """A call's changes, key -> ``(state, first, wake, due)`` or None (removed), as ``(key,
    pickled state, pickled first position, wake, due)`` records (empty pickles, no times:
    removed)."""
    records = []
    for key, stored in changes.items():
        if stored is None:
            records.append((key, b"", b"", None, None))
        else:
            state, first, wake, due = stored
            records.append((key, state, pickle.dumps(first, pickle.HIGHEST_PROTOCOL), wake, due))
    return records


def _by_column(records: list) -> tuple:
    """``_records`` as the columns ``_encoded`` takes."""
    return (
        [r[0] for r in records],
        _times(r[3] for r in records),
        _times(r[4] for r in records),
        numpy.array([len(r[i]) for r in records for i in (1, 2)], _LENGTHS),
        [part for r in records for part in r[1:3]],
    )


def _columns_from(changes: dict) -> _Columns:
    """Keys given as a dict, key -> ``(state, first, wake, due)`` or None (removed), by column:
    how an older panes stored a row, and an entry of its log."""
    keys, wakes, dues, lengths, parts = _by_column(_records(changes))
    ends = numpy.cumsum(lengths, dtype=numpy.uint64)
    return _Columns(keys, wakes, dues, ends, memoryview(b"".join(parts)))


_NO_COLUMNS = _Columns([], _NO_TIMES, _NO_TIMES, _NO_ENDS, memoryview(b""))


class Bucket:
    """A key bucket's keys as its state row and log keep them: per key, its pickled state, its
    first position, its Spark wake-up and its processing-time due.

    The row is laid out by column — the keys, the wake-ups, the due times, the lengths of each
    key's two pickles, then the pickles — so loading a bucket unpickles only its keys' names,
    and rewriting it copies the pickles of the keys a call left alone, run by run
    (benchmarks/README.md, *Streaming bucket rows by column*). A call that changes a few of
    many keys appends just those, laid out the same way, to the bucket's log instead, until the
    log reaches half the row's size or changes half its keys, or ``_LOG_ENTRIES``, and the row
    is rewritten with it: most calls write about the keys they changed, however many the
    bucket holds, and keys removed leave the row soon (*Streaming bucket logs*); loading the
    log, like the row, unpickles only its keys' names (*Streaming bucket logs by column*)."""

    def __init__(self, row: _Columns = _NO_COLUMNS, log: Sequence[_Columns] = (), sizes=(0, 0)):
        """The keys of ``row`` and of the ``log``'s entries after it (oldest first), and the
        sizes of the row and the log as stored (a row of size 0 is rewritten at the call's end,
        whatever it changed)."""
        self._row, self._log = row, log
        self._index = dict(zip(row.keys, range(len(row.keys))))
        self._row_size, self._log_size = sizes
        self._changed: dict = {}  # key -> its (state, first, wake, due) by this call; None: removed
        # The log's entries end to end: each key at its latest place in them.
        self._log_keys = [key for entry in log for key in entry.keys]
        self._latest = dict(zip(self._log_keys, range(len(self._log_keys))))
        self._log_starts = [0, *accumulate(len(entry.keys) for entry in log)]
        columns = [(entry.wakes, entry.dues, entry.removed()) for entry in log] or [
            (_NO_TIMES, _NO_TIMES, numpy.empty(0, bool))
        ]
        self._log_wakes, self._log_dues, removed = map(numpy.concatenate, zip(*columns))
        self._log_kept = numpy.zeros(len(self._log_keys), bool)  # the latest place of a held key
        self._log_kept[numpy.fromiter(self._latest.values(), int, len(self._latest))] = True
        self._log_kept &= ~removed
        self._row_kept = _left(self._index, self._latest)

    @classmethod
    def load(cls, row: bytes, log: Sequence[bytes] = ()) -> Bucket:
        """The bucket ``write`` stored as ``row`` and the ``log`` of changes after it; the row
        may be one stored by a panes from before the columns, rewritten at the first call, and
        the log's entries ones from before their columns."""
        entries = [
            _columns_of(changes)
            if changes[:1] == _ENTRY
            else _columns_from(pickle.loads(_decompressed(changes)))
            for changes in log
        ]
        if row[:1] not in (_ROW, _OLDER_ROW):  # a dict, rewritten at the call's end
            return cls(_columns_from(load_row(row)), entries)
        return cls(_columns_of(row), entries, (len(row), sum(map(len, log))))

    def get(self, key: bytes):
        """The key's ``(pickled state, first position)``; None for a key the bucket lacks."""
        if key in self._changed:
            stored = self._changed[key]
            return None if stored is None else stored[:2]
        place = self._latest.get(key)
        if place is not None:
            entry = bisect_right(self._log_starts, place) - 1
            return self._log[entry].stored(place - self._log_starts[entry])
        index = self._index.get(key)
        return None if index is None else self._row.stored(index)

    def set(self, key: bytes, stored) -> None:
        """Gives the key ``(pickled state, first position, wake-up, due)``; None removes it."""
        self._changed[key] = stored

    def due(self, watermark: int, processing_now, skip) -> list:
        """The keys, sorted, whose Spark wake-up the ``watermark`` (ms) has reached or whose
        processing-time timer is due by ``processing_now`` (None: none is), but for ``skip``:
        of the keys as loaded, before a call changes any."""
        row, now = self._row, (watermark, processing_now)
        in_row = _reached(row.wakes, row.dues, *now) & self._row_kept
        in_log = _reached(self._log_wakes, self._log_dues, *now) & self._log_kept
        keys = [*map(row.keys.__getitem__, numpy.flatnonzero(in_row).tolist())]
        keys += map(self._log_keys.__getitem__, numpy.flatnonzero(in_log).tolist())
        return sorted(key for key in keys if key not in skip)

    def write(self) -> Write:
        """The bucket as changed: its changes for the log while the log stays under
        ``_LOG_SHARE`` of the row's bytes and keys and within ``_LOG_ENTRIES``, else the row
        rewritten whole: so the keys the log removed or replaced stay less than half the row."""
        records = _records(self._changed)
        row_kept = self._row_kept & _left(self._index, self._changed)
        log_kept = self._log_kept & _left(self._latest, self._changed, len(self._log_keys))
        new = [record for record in records if record[2]]
        row, log_wakes, log_dues = self._row, self._log_wakes, self._log_dues
        wakes = [row.wakes[row_kept], log_wakes[log_kept], _times(r[3] for r in new)]
        dues = [row.dues[row_kept], log_dues[log_kept], _times(r[4] for r in new)]
        if not sum(map(len, wakes)):
            return Write(None, None, None, None)
        earliest, first_due = _earliest(*wakes), _earliest(*dues)
        shadowed = len(row.keys) - numpy.count_nonzero(row_kept)
        if (
            self._row_size
            and len(self._log) < _LOG_ENTRIES
            and shadowed < _LOG_SHARE * len(row.keys)
        ):
            logged = _encoded(_ENTRY, *_by_column(records))
            if self._log_size + len(logged) <= _LOG_SHARE * self._row_size:
                return Write(None, logged, earliest, first_due)
        added = sorted(self._logged(log_kept) + new, key=itemgetter(0))
        return Write(self._rewritten(added, row_kept), None, earliest, first_due)

    def _logged(self, kept: numpy.ndarray) -> list:
        """The records of the log's ``kept`` keys (a mask of its places), as ``_records`` gives
        them."""
        places = numpy.flatnonzero(kept)
        entries = (numpy.searchsorted(self._log_starts, places, "right") - 1).tolist()
        times = zip(self._log_wakes[places].tolist(), self._log_dues[places].tolist())
        records = []
        for place, entry, (wake, due) in zip(places.tolist(), entries, times):
            state, first = self._log[entry].pickles(place - self._log_starts[entry])
            records.append((self._log_keys[place], state, first, _time(wake), _time(due)))
        return records

    def _rewritten(self, added: list, kept: numpy.ndarray) -> bytes:
        """The row with the row's ``kept`` keys, their pickles copied in runs, and the ``added``
        records after them."""
        row = self._row
        keys, wakes, dues, lengths, parts = _by_column(added)
        return _encoded(
            _ROW,
            [*map(row.keys.__getitem__, numpy.flatnonzero(kept).tolist()), *keys],
            numpy.concatenate([row.wakes[kept], wakes]),
            numpy.concatenate([row.dues[kept], dues]),
            numpy.concatenate([row.lengths()[kept].astype(_LENGTHS).ravel(), lengths]),
            [*self._kept_runs(kept), *parts],
        )

    def _kept_runs(self, keep) -> list:
        """The pickles of the kept keys, as runs of the body between the keys left out."""
        ends, body, runs, start = self._row.ends, self._row.body, [], 0
        for left_out in [*numpy.flatnonzero(~keep).tolist(), len(self._row.keys)]:
            if left_out > start:
                first = int(ends[2 * start - 1]) if start else 0
                runs.append(body[first : int(ends[2 * left_out - 1])])
            start = left_out + 1
        return runs


def _time(time: int) -> int | None:
    """A wake-up or due time of a column (None: ``_UNSET``)."""
    return None if time == _UNSET else time


def _times(times) -> numpy.ndarray:
    """A column of wake-ups or due times (None: ``_UNSET``)."""
    return numpy.array([_UNSET if time is None else time for time in times], _TIMES)


def _left(index: dict, changes, size: int | None = None) -> numpy.ndarray:
    """Which of the ``size`` places (``len(index)``) that ``index`` gives keys ``changes``
    leaves alone."""
    left = numpy.ones(len(index) if size is None else size, bool)
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
