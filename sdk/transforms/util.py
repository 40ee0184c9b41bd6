"""Composite transforms over keys, values and strings, as in Beam's ``transforms.util``."""

from __future__ import annotations

import re
import threading
import uuid

from panes.pvalue import PCollection
from panes.timestamp import Timestamp, to_micros
from panes.transforms.core import (  # noqa: F401 - Reshuffle is Beam's util name too
    CombinePerKey,
    Create,
    FlatMap,
    Flatten,
    GroupByKey,
    Map,
    MapTuple,
    ParDo,
    Reshuffle,
)
from panes.transforms.dofn import DoFn
from panes.transforms.ptransform import PTransform, ptransform_fn
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import BagStateSpec, CombiningValueStateSpec, TimerSpec, on_timer
from panes.typehints.decorators import with_input_types, with_output_types
from panes.utils.sharded_key import ShardedKey


def Keys(label="Keys"):  # noqa: N802 - Beam's name
    """The key of each ``(key, value)`` pair."""
    return label >> Map(lambda kv: kv[0])


def Values(label="Values"):  # noqa: N802
    """The value of each ``(key, value)`` pair."""
    return label >> Map(lambda kv: kv[1])


def KvSwap(label="KvSwap"):  # noqa: N802
    """``(value, key)`` for each ``(key, value)`` pair."""
    return label >> Map(lambda kv: (kv[1], kv[0]))


def WithKeys(key, label="WithKeys"):  # noqa: N802
    """``(key, element)`` pairs: ``key`` is a constant or a function of the element."""
    if callable(key):
        return label >> Map(lambda element: (key(element), element))
    return label >> Map(lambda element: (key, element))


class Distinct(PTransform):
    """Each distinct element once per window."""

    def expand(self, pcoll):
        return (
            pcoll
            | "PairWithNone" >> Map(lambda element: (element, None))
            | "OnePerElement" >> CombinePerKey(lambda values: None)
            | "Elements" >> Map(lambda kv: kv[0])
        )


class CoGroupByKey(PTransform):
    """Groups several collections of ``(key, value)`` pairs by key, per window. From a dict
    ``{tag: pcoll}`` each output is ``(key, {tag: [values], ...})``; from a tuple or list of
    collections, ``(key, ([values of the first], [of the second], ...))``. ``pipeline`` is
    needed only when there are no inputs."""

    def __init__(self, *, pipeline=None, label=None):
        super().__init__(label)
        self.pipeline = pipeline

    def expand(self, pcolls):
        if isinstance(pcolls, PCollection):
            pcolls = (pcolls,)
        tags = list(pcolls) if isinstance(pcolls, dict) else list(range(len(pcolls)))
        inputs = list(pcolls.values()) if isinstance(pcolls, dict) else list(pcolls)
        if not inputs:
            inputs, tags = [self.pipeline | "Empty" >> Create([])], [0]
        tagged = [
            pcoll | f"Tag[{tag}]" >> MapTuple(lambda key, value, t=index: (key, (t, value)))
            for index, (tag, pcoll) in enumerate(zip(tags, inputs))
        ]
        count, as_dict = len(inputs), isinstance(pcolls, dict)

        def collect(key, tagged_values):
            grouped = [[] for _ in range(count)]
            for index, value in tagged_values:
                grouped[index].append(value)
            return key, dict(zip(tags, grouped)) if as_dict else tuple(grouped)

        return (
            tagged
            | "Flatten" >> Flatten()
            | "GroupByKey" >> GroupByKey()
            | "CollectValues" >> MapTuple(collect)
        )


class Regex:
    """Beam's regular-expression transforms over strings; ``regex`` is a pattern string or a
    compiled pattern, groups are numbers or names."""

    ALL = "__regex_all_groups"

    @staticmethod
    @with_input_types(str)
    @with_output_types(str)
    @ptransform_fn
    def matches(pcoll, regex, group=0):
        """The ``group`` of each element whose beginning matches."""
        return _each(pcoll, regex, lambda r, element: _group_of(r.match(element), group))

    @staticmethod
    @with_input_types(str)
    @ptransform_fn
    def all_matches(pcoll, regex):
        """All groups (0 first) of each element whose beginning matches."""

        def groups(r, element):
            match = r.match(element)
            return [[match.group(i) for i in range(match.lastindex + 1)]] if match else []

        return _each(pcoll, regex, groups)

    @staticmethod
    @with_input_types(str)
    @ptransform_fn
    def matches_kv(pcoll, regex, keyGroup, valueGroup=0):  # noqa: N803 - Beam's names
        """``(keyGroup, valueGroup)`` of each element whose beginning matches."""
        return _each(
            pcoll,
            regex,
            lambda r, element: [
                (m.group(keyGroup), m.group(valueGroup)) for m in [r.match(element)] if m
            ],
        )

    @staticmethod
    @with_input_types(str)
    @with_output_types(str)
    @ptransform_fn
    def find(pcoll, regex, group=0):
        """The ``group`` of the first match anywhere in each element."""
        return _each(pcoll, regex, lambda r, element: _group_of(r.search(element), group))

    @staticmethod
    @with_input_types(str)
    @ptransform_fn
    def find_all(pcoll, regex, group=0, outputEmpty=True):  # noqa: N803
        """For each element, the list of every match's ``group`` (with ``Regex.ALL``,
        ``(match, first group)`` pairs); empty matches only with ``outputEmpty``."""

        def found(r, element):
            matches = r.finditer(element)
            if group == Regex.ALL:
                return [
                    [(m.group(), m.groups()[0]) for m in matches if outputEmpty or m.groups()[0]]
                ]
            return [[m.group(group) for m in matches if outputEmpty or m.group(group)]]

        return _each(pcoll, regex, found)

    @staticmethod
    @with_input_types(str)
    @ptransform_fn
    def find_kv(pcoll, regex, keyGroup, valueGroup=0):  # noqa: N803
        """``(keyGroup, valueGroup)`` of every match anywhere in each element."""
        return _each(
            pcoll,
            regex,
            lambda r, element: [
                (m.group(keyGroup), m.group(valueGroup)) for m in r.finditer(element)
            ],
        )

    @staticmethod
    @with_input_types(str)
    @with_output_types(str)
    @ptransform_fn
    def replace_all(pcoll, regex, replacement):
        """Each element with every match replaced."""
        return _each(pcoll, regex, lambda r, element: [r.sub(replacement, element)])

    @staticmethod
    @with_input_types(str)
    @with_output_types(str)
    @ptransform_fn
    def replace_first(pcoll, regex, replacement):
        """Each element with its first match replaced."""
        return _each(pcoll, regex, lambda r, element: [r.sub(replacement, element, 1)])

    @staticmethod
    @with_input_types(str)
    @ptransform_fn
    def split(pcoll, regex, outputEmpty=False):  # noqa: N803
        """Each element split at the matches, as a list (without empty parts by default)."""
        return _each(
            pcoll,
            regex,
            lambda r, element: [[part for part in r.split(element) if outputEmpty or part]],
        )


def _each(pcoll, regex, outputs):
    """The outputs ``outputs(compiled regex, element)`` of every element."""
    compiled = re.compile(regex)
    return pcoll | FlatMap(lambda element: outputs(compiled, element))


def _group_of(match, group) -> list:
    return [match.group(group)] if match else []


class ToString:
    """Elements as strings, as Beam's ``ToString.Element()``, ``Iterables()`` and ``Kvs()``."""

    @staticmethod
    def Element():  # noqa: N802
        """``str(element)``."""
        return "ElementToString" >> Map(str)

    @staticmethod
    def Iterables(delimiter=None):  # noqa: N802
        """The items of each iterable element (a key-value pair, say) as strings, joined by
        ``delimiter`` (default ``,``)."""
        delimiter = "," if delimiter is None else delimiter
        return "IterablesToString" >> Map(lambda items: delimiter.join(map(str, items)))

    Kvs = Iterables


class GroupIntoBatches(PTransform):
    """Batches each key's values, per window, into lists of at most ``batch_size``: a batch
    goes out when it is full, when its window ends (with the remainder), and — given
    ``max_buffering_duration_secs`` — once it has waited that long in processing time since
    its first value. Built as Beam builds it, on a stateful DoFn: a bag of the values, a
    count, an event-time timer at the window's end and a processing-time timer."""

    def __init__(self, batch_size: int, max_buffering_duration_secs=None, label=None):
        super().__init__(label)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"GroupIntoBatches: batch_size must be at least 1, got {batch_size!r}")
        buffering = to_micros(max_buffering_duration_secs or 0)
        if buffering < 0:
            raise ValueError(
                f"GroupIntoBatches: max_buffering_duration_secs must not be negative, got "
                f"{max_buffering_duration_secs!r}"
            )
        self.batch_size, self.buffering = batch_size, buffering

    def expand(self, pcoll):
        return pcoll | ParDo(_BatchingDoFn(self.batch_size, self.buffering))

    class WithShardedKey(PTransform):
        """``GroupIntoBatches`` with each key sharded per worker thread (``ShardedKey``), so
        that a hot key batches in parallel; the outputs are keyed by the sharded keys."""

        def __init__(self, batch_size: int, max_buffering_duration_secs=None, label=None):
            super().__init__(label)
            self.batching = GroupIntoBatches(batch_size, max_buffering_duration_secs)

        def expand(self, pcoll):
            return (
                pcoll
                | "ShardKeys" >> Map(lambda kv: (ShardedKey(kv[0], _shard_id()), kv[1]))
                | "Batch" >> self.batching
            )


_VALUES = BagStateSpec("values")
_COUNT = CombiningValueStateSpec("count", sum)
_WINDOW_END = TimerSpec("window_end", TimeDomain.WATERMARK)
_BUFFERING_END = TimerSpec("buffering_end", TimeDomain.REAL_TIME)


class _BatchingDoFn(DoFn):
    """GroupIntoBatches' DoFn: buffers each key's values, flushes a full batch, and the rest
    when the window ends or the buffering time is up."""

    def __init__(self, batch_size: int, buffering: int):
        self.batch_size, self.buffering = batch_size, buffering

    def process(
        self,
        element,
        window=DoFn.WindowParam,
        values=DoFn.StateParam(_VALUES),
        count=DoFn.StateParam(_COUNT),
        window_end=DoFn.TimerParam(_WINDOW_END),
        buffering_end=DoFn.TimerParam(_BUFFERING_END),
    ):
        window_end.set(window.max_timestamp())
        values.add(element[1])
        count.add(1)
        size = count.read()
        if size == 1 and self.buffering:
            buffering_end.set(Timestamp(micros=buffering_end.now().micros + self.buffering))
        if size >= self.batch_size:
            yield from _flush(element[0], values, count, buffering_end)

    @on_timer(_WINDOW_END)
    @on_timer(_BUFFERING_END)
    def flush(
        self,
        key=DoFn.KeyParam,
        values=DoFn.StateParam(_VALUES),
        count=DoFn.StateParam(_COUNT),
        buffering_end=DoFn.TimerParam(_BUFFERING_END),
    ):
        """At the window's end, or once the batch has waited its buffering time."""
        yield from _flush(key, values, count, buffering_end)


def _flush(key, values, count, buffering_end):
    batch = values.read()
    if batch:
        values.clear()
        count.clear()
        buffering_end.clear()
        yield key, batch


_SHARD_PREFIX = uuid.uuid4().bytes


def _shard_id() -> bytes:
    """This worker thread's shard: the process's id and the thread's, as Beam makes it."""
    return _SHARD_PREFIX + threading.get_ident().to_bytes(8, "big")
