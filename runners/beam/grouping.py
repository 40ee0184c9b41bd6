"""Beam's groupings as panes': ``GroupByKey`` and ``CombinePerKey`` (with Beam's CombineFn run
as panes' combiner). Keys whose type has a coder of the user's own are grouped by their
encoding, as Beam groups by the key coder's bytes: encoded before the grouping, decoded
after."""

from __future__ import annotations

import builtins

from apache_beam.coders import registry as beam_coders
from apache_beam.transforms import core as beam_core
from apache_beam.typehints import typehints as beam_typehints

from panes.ir.data import Pickled
from panes.runners.beam.dofns import FastBeamFn
from panes.runners.beam.translation import MAIN, Translation, downstream, main_input
from panes.transforms.combinefn import CallableWrapperCombineFn, CombineFn, MaxFn, MinFn, SumFn

# Beam's CombinePerKey(sum) and friends: panes' own combiners do the same, in C.
_BUILTINS: dict = {builtins.sum: SumFn, builtins.min: MinFn, builtins.max: MaxFn}


def translate_group_by_key(translation: Translation, applied) -> None:
    _grouping(translation, applied, "group_by_key", {"late_output": None})


def translate_combine_per_key(translation: Translation, applied) -> bool:
    """``CombinePerKey`` as one combine_per_key node (Beam's CombineFn as panes' combiner)."""
    transform = applied.transform
    fn = combine_fn(transform.fn, transform.args, transform.kwargs)
    _grouping(
        translation,
        applied,
        "combine_per_key",
        {"combine_fn": Pickled.of(fn), "late_output": None},
    )
    return True


def combine_fn(fn, args=(), kwargs=None) -> CombineFn:
    """panes' combiner for a Beam CombineFn and its extra arguments."""
    wrapped = getattr(fn, "_fn", None)
    if isinstance(fn, beam_core.CallableWrapperCombineFn) and not args and not kwargs:
        builtin = _BUILTINS.get(wrapped)
        return builtin() if builtin is not None else CallableWrapperCombineFn(wrapped)
    return BeamCombineFn(fn, tuple(args), dict(kwargs or {}))


def _grouping(translation: Translation, applied, kind: str, payload: dict) -> None:
    label = applied.full_label
    source = main_input(translation, applied)
    (pcoll,) = applied.outputs.values()
    coder = _custom_key_coder(applied)
    if coder is not None:
        source = _keys_mapped(translation, f"{label}/EncodeKeys", source, _Encode(coder))
    strategy = translation.strategy(source)
    node_id = f"{label}/{kind}" if coder is not None else label
    output = translation.add(
        node_id, kind, (source,), {MAIN: (None, downstream(strategy))}, payload
    )[MAIN]
    if coder is not None:
        output = _keys_mapped(translation, f"{label}/DecodeKeys", output, _Decode(coder))
    translation.alias(pcoll, output)


def _keys_mapped(translation: Translation, label: str, source: str, fn) -> str:
    return translation.par_do(label, source, FastBeamFn(fn, "map", label))


def _custom_key_coder(applied):
    """The key coder when the user registered one for the key type, else None."""
    (pcoll,) = applied.main_inputs.values()
    element_type = pcoll.element_type
    if not isinstance(element_type, beam_typehints.TupleConstraint):
        return None
    if len(element_type.tuple_types) != 2:
        return None
    coder = beam_coders.get_coder(element_type.tuple_types[0])
    return None if type(coder).__module__.startswith("apache_beam.coders.") else coder


class _Encode:
    def __init__(self, coder):
        self.coder = coder

    def __call__(self, kv):
        return self.coder.encode(kv[0]), kv[1]


class _Decode(_Encode):
    def __call__(self, kv):
        return self.coder.decode(kv[0]), kv[1]


class BeamCombineFn(CombineFn):
    """A Beam CombineFn as panes' combiner, with the transform's extra arguments passed to
    every method as Beam passes them. Set up (Beam's ``setup``) wherever it is unpickled,
    before it combines. A CombineFn with a ``compact`` of its own has its accumulators
    compacted whenever they are pickled (between Spark's tasks), as Beam compacts them before
    encoding them: such accumulators may not survive a pickle otherwise (``Top``'s)."""

    def __init__(self, fn, args: tuple, kwargs: dict):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.compacts = type(fn).compact is not beam_core.CombineFn.compact

    def __getstate__(self):
        return self.fn, self.args, self.kwargs, self.compacts

    def __setstate__(self, state):
        self.fn, self.args, self.kwargs, self.compacts = state
        self.fn.setup(*self.args, **self.kwargs)
        if not (self.args or self.kwargs or self.compacts):  # groupings call it per element
            self.add_input = self.fn.add_input

    def create_accumulator(self):
        return self._wrapped(self.fn.create_accumulator(*self.args, **self.kwargs))

    def add_input(self, accumulator, element):
        if self.compacts:
            accumulator.value = self.fn.add_input(
                accumulator.value, element, *self.args, **self.kwargs
            )
            accumulator.compact = self._compact  # once unpickled, it has none
            return accumulator
        return self.fn.add_input(accumulator, element, *self.args, **self.kwargs)

    def merge_accumulators(self, accumulators):
        if self.compacts:
            accumulators = [accumulator.value for accumulator in accumulators]
        return self._wrapped(self.fn.merge_accumulators(accumulators, *self.args, **self.kwargs))

    def extract_output(self, accumulator):
        if self.compacts:
            accumulator = accumulator.value
        return self.fn.extract_output(accumulator, *self.args, **self.kwargs)

    def _wrapped(self, accumulator):
        return _Compacting(accumulator, self._compact) if self.compacts else accumulator

    def _compact(self, accumulator):
        return self.fn.compact(accumulator, *self.args, **self.kwargs)

    def default_label(self) -> str:
        return type(self.fn).__name__


class _Compacting:
    """An accumulator that is compacted when it is pickled (``compact``: None once
    unpickled, until its combiner adds to it: it is compact until then)."""

    __slots__ = ("value", "compact")

    def __init__(self, value, compact=None):
        self.value, self.compact = value, compact

    def __reduce__(self):
        return _Compacting, (self.value if self.compact is None else self.compact(self.value),)
