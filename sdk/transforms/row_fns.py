"""Row functions to and from their IR form (``panes.ir.rows``): the DoFns and CombineFn of
``GroupBy(...).aggregate_field(...)`` and ``WithTimestampField`` are kept as data; any other
function is pickled."""

from __future__ import annotations

import dataclasses
from functools import cache

from panes.ir import rows
from panes.ir.data import Pickled


@cache
def _pairs() -> tuple:
    """``(API class, IR class)`` of each row function; their fields are the same."""
    from panes.transforms import group_by, timestamps

    return (
        (group_by.KeyByFields, rows.KeyByFields),
        (group_by.FieldsToRow, rows.FieldsToRow),
        (timestamps.TimestampFromField, rows.TimestampFromField),
        (group_by.AggregateFieldsFn, rows.AggregateFields),
    )


def to_ir(fn):
    """A DoFn's or CombineFn's IR: its row function's data, or its pickle."""
    for api, ir in _pairs():
        if type(fn) is api:
            return ir(**{f.name: getattr(fn, f.name) for f in dataclasses.fields(ir)})
    return Pickled.of(fn)


def from_ir(fn: rows.RowFn):
    """The function a runner runs for an IR row function."""
    api = next(api for api, ir in _pairs() if type(fn) is ir)
    return api(**{f.name: getattr(fn, f.name) for f in dataclasses.fields(fn)})  # type: ignore[arg-type]
