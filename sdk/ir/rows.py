"""Row functions in the IR: the functions of ``GroupBy(...).aggregate_field(...)`` and
``WithTimestampField``, kept as data (field names and built-in combiners) rather than pickles,
so that a planner can recognise a whole aggregation (the Spark runner lowers it to Spark SQL).
``panes.transforms.row_fns`` lowers the API's functions to these and back."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

from panes.ir.data import Family, NonEmpty

Fields = Annotated[tuple[str, ...], NonEmpty()]


class BuiltinCombine(enum.Enum):
    """The combiners ``aggregate_field`` takes, by what they compute."""

    SUM = "sum"
    COUNT = "count"
    MEAN = "mean"
    MIN = "min"
    MAX = "max"


@dataclass(frozen=True)
class FieldAggregation:
    """One ``aggregate_field``: combine the values of ``field`` into the output ``output_name``."""

    field: str
    combine: BuiltinCombine
    output_name: str


class RowFn(Family):
    """Base of the row functions."""

    FAMILY = "row function"


@dataclass(frozen=True)
class KeyByFields(RowFn):
    """A row as ``(key, values)``: the key fields' values, and ``value_fields``' (or the row)."""

    KIND = "key_by_fields"

    key_fields: Fields
    value_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldsToRow(RowFn):
    """``(key, outputs)`` as a row of the key fields and the named outputs."""

    KIND = "fields_to_row"

    key_fields: Fields
    output_names: Fields


@dataclass(frozen=True)
class TimestampFromField(RowFn):
    """The row at the event time its ``field`` holds."""

    KIND = "timestamp_from_field"

    field: str


@dataclass(frozen=True)
class AggregateFields(RowFn):
    """A CombineFn of one built-in combiner per aggregation."""

    KIND = "aggregate_fields"

    aggregations: Annotated[tuple[FieldAggregation, ...], NonEmpty()]
