"""``GroupBy``: schema-aware grouping of dict elements by named fields (Beam's ``beam.GroupBy``).

``GroupBy("key").aggregate_field("value", sum, "total")`` turns rows (dicts, as
``ReadFromParquet`` and ``ReadFromDataFrame`` give) into one row per key and window:
``{"key": ..., "total": ...}``. It expands to ordinary primitives — a Map to ``(key, values)``,
a ``CombinePerKey`` and a Map back to rows — so every runner runs it unchanged, and its output
equals the hand-written ``Map`` / ``CombinePerKey(sum)`` / ``Map`` pipeline. The field names
and combiners are data in the IR (``panes.ir.rows``), not pickles, so a planner can recognise the
whole aggregation (the Spark runner lowers it to Spark SQL, see docs/spark.md).
"""

from __future__ import annotations

import builtins
import copy
from dataclasses import dataclass
from functools import cached_property
from operator import itemgetter

from panes.errors import PipelineConstructionError
from panes.ir.rows import BuiltinCombine, FieldAggregation
from panes.transforms import combiners
from panes.transforms.combinefn import CombineFn
from panes.transforms.core import CombinePerKey, GroupByKey, ParDo
from panes.transforms.dofn import StructuredMapFn
from panes.transforms.ptransform import PTransform, require_pcollection

# What users pass -> the built-in it names; aggregate_field takes exactly these.
_BY_FUNCTION = {
    builtins.sum: BuiltinCombine.SUM,
    builtins.min: BuiltinCombine.MIN,
    builtins.max: BuiltinCombine.MAX,
}
_BY_COMBINE_FN = {
    combiners.SumFn: BuiltinCombine.SUM,
    combiners.CountFn: BuiltinCombine.COUNT,
    combiners.MeanFn: BuiltinCombine.MEAN,
    combiners.MinFn: BuiltinCombine.MIN,
    combiners.MaxFn: BuiltinCombine.MAX,
}
_COMBINE_FNS = {kind: fn() for fn, kind in _BY_COMBINE_FN.items()}
_ACCEPTED = "sum, min, max, combiners.CountFn(), combiners.MeanFn() (or SumFn(), MinFn(), MaxFn())"


@dataclass(frozen=True)
class KeyByFields(StructuredMapFn):
    """``(key, values)`` of a row: the key is the value of the one key field, or the tuple of
    the key fields' values; ``values`` the tuple of ``value_fields``' values, or the whole row
    when there are none."""

    key_fields: tuple
    value_fields: tuple = ()

    @property
    def fn(self):
        key_of = itemgetter(*self.key_fields)
        fields = self.value_fields
        if not fields:
            return _row_function(lambda row: (key_of(row), row))
        if len(fields) == 1:
            field = fields[0]
            return _row_function(lambda row: (key_of(row), (row[field],)))
        values_of = itemgetter(*fields)
        return _row_function(lambda row: (key_of(row), values_of(row)))


def _row_function(fn):
    """``fn`` over dict rows, failing with errors that name the missing field or the fix."""

    def over_rows(row):
        try:
            return fn(row)
        except KeyError as error:
            raise KeyError(f"the element has no field {error.args[0]!r}") from None
        except TypeError:
            if isinstance(row, dict):
                raise
            raise TypeError(
                f"GroupBy needs dict elements (rows, as ReadFromParquet gives), got "
                f"{type(row).__name__}; key other elements with Map and use "
                f"GroupByKey or CombinePerKey"
            ) from None

    return over_rows


@dataclass(frozen=True)
class AggregateFieldsFn(CombineFn):
    """Combines tuples of field values, one built-in combiner per ``FieldAggregation``, into
    the tuple of their outputs. Sum, mean, min and max need a value: a ``None`` fails with an
    error naming the field (count counts every row)."""

    aggregations: tuple

    @cached_property
    def _fns(self) -> tuple:
        return tuple(_COMBINE_FNS[a.combine] for a in self.aggregations)

    @cached_property
    def _adders(self) -> tuple:
        return tuple(_adder(a) for a in self.aggregations)

    def create_accumulator(self):
        return tuple(fn.create_accumulator() for fn in self._fns)

    def add_input(self, accumulator, element):
        return tuple(add(a, value) for add, a, value in zip(self._adders, accumulator, element))

    def merge_accumulators(self, accumulators):
        return tuple(
            fn.merge_accumulators(list(parts)) for fn, parts in zip(self._fns, zip(*accumulators))
        )

    def extract_output(self, accumulator):
        return tuple(fn.extract_output(a) for fn, a in zip(self._fns, accumulator))

    def default_label(self) -> str:
        return "AggregateFields"


def _adder(aggregation: FieldAggregation):
    add = _COMBINE_FNS[aggregation.combine].add_input
    if aggregation.combine is BuiltinCombine.COUNT:
        return add
    message = missing_value_message(aggregation)

    def add_value(accumulator, value):
        if value is None:
            raise ValueError(message)
        return add(accumulator, value)

    return add_value


def missing_value_message(aggregation: FieldAggregation) -> str:
    """The error for a ``None`` where ``aggregation`` needs a value (runners share it)."""
    return (
        f"field {aggregation.field!r} is None in a row aggregated with "
        f"{aggregation.combine.value} into {aggregation.output_name!r}; drop or fill "
        f"missing values first, e.g. | Filter(lambda row: row[{aggregation.field!r}] "
        f"is not None)"
    )


@dataclass(frozen=True)
class FieldsToRow(StructuredMapFn):
    """A row ``{key field: ..., output name: ...}`` from ``(key, outputs)``."""

    key_fields: tuple
    output_names: tuple

    @property
    def fn(self):
        names = (*self.key_fields, *self.output_names)
        if len(names) == 2:  # one key field, one output: the common case, kept lean
            key_name, output_name = names
            return lambda kv: {key_name: kv[0], output_name: kv[1][0]}
        if len(self.key_fields) == 1:
            return lambda kv: dict(zip(names, (kv[0], *kv[1])))
        return lambda kv: dict(zip(names, (*kv[0], *kv[1])))


class GroupBy(PTransform):
    """Groups rows (dicts) by the named key fields, per window. With ``aggregate_field`` calls,
    outputs one row per key and window holding the key fields and the aggregates; without,
    ``(key, [rows])`` with the key a field's value, or a tuple of them for several fields."""

    def __init__(self, *fields: str, label=None):
        super().__init__(label)
        if not fields:
            raise PipelineConstructionError(
                "GroupBy needs at least one key field name, e.g. GroupBy('key'); to combine "
                "every element use CombineGlobally"
            )
        for field in fields:
            if not isinstance(field, str) or not field:
                raise PipelineConstructionError(
                    f"GroupBy takes field names (non-empty strings), got {field!r}; to group by "
                    f"a computed key use Map(lambda row: (key(row), row)) | GroupByKey()"
                )
        if len(set(fields)) != len(fields):
            raise PipelineConstructionError(f"GroupBy{fields!r} names a key field twice")
        self.fields = tuple(fields)
        self.aggregations: tuple = ()

    def default_label(self) -> str:
        return f"GroupBy({','.join(self.fields)})"

    def aggregate_field(self, field: str, combine, output_name: str) -> GroupBy:
        """Also outputs ``output_name``: ``combine`` (sum, min, max, ``CountFn()``,
        ``MeanFn()``) over the values of ``field`` in the key's rows."""
        where = f"{self.default_label()}.aggregate_field({field!r}, ..., {output_name!r})"
        if not isinstance(field, str) or not field:
            raise PipelineConstructionError(
                f"{where}: the field to aggregate must be a field name (a non-empty string), "
                f"got {field!r}"
            )
        kind = _builtin_combine(combine, where)
        if not isinstance(output_name, str) or not output_name:
            raise PipelineConstructionError(
                f"{where}: the output name must be a non-empty string, got {output_name!r}"
            )
        taken = (*self.fields, *(a.output_name for a in self.aggregations))
        if output_name in taken:
            raise PipelineConstructionError(
                f"{where}: output name {output_name!r} is already a key field or output of "
                f"this GroupBy; give each output its own name"
            )
        transform = copy.copy(self)
        transform.aggregations = (*self.aggregations, FieldAggregation(field, kind, output_name))
        return transform

    def expand(self, pcoll):
        pcoll = require_pcollection(self, pcoll, self.label or self.default_label())
        if pcoll.element_kind == "kv":
            raise PipelineConstructionError(
                f"{self.default_label()} needs rows (dicts), but its input {pcoll} holds "
                f"(key, value) pairs; use GroupByKey or CombinePerKey for pairs"
            )
        if not self.aggregations:
            return (
                pcoll
                | "KeyByFields" >> ParDo(KeyByFields(self.fields))
                | "GroupByKey" >> GroupByKey()
            )
        fields = tuple(a.field for a in self.aggregations)
        names = tuple(a.output_name for a in self.aggregations)
        return (
            pcoll
            | "KeyByFields" >> ParDo(KeyByFields(self.fields, fields))
            | "AggregateFields" >> CombinePerKey(AggregateFieldsFn(self.aggregations))
            | "ToRows" >> ParDo(FieldsToRow(self.fields, names))
        )


def _builtin_combine(combine, where: str) -> BuiltinCombine:
    if isinstance(combine, type) and combine in _BY_COMBINE_FN:
        raise PipelineConstructionError(
            f"{where}: pass an instance, {combine.__name__}(), not the class"
        )
    kind = _BY_COMBINE_FN.get(type(combine)) or next(
        (kind for function, kind in _BY_FUNCTION.items() if combine is function), None
    )
    if kind is None:
        raise PipelineConstructionError(
            f"{where}: {combine!r} is not a built-in combiner; aggregate_field takes "
            f"{_ACCEPTED}. For another combiner key the rows with Map and use CombinePerKey"
        )
    return kind
