"""Lifts IR payloads back to what a runner executes: the reverse of compilation for the parts
compiled to IR data of their own (pickles, row functions, sources and sinks)."""

from __future__ import annotations

from panes.io import kinds
from panes.ir.data import Pickled
from panes.ir.io import Sink, Source
from panes.ir.rows import RowFn
from panes.transforms import row_fns


def lift(obj):
    """A payload as a runner executes it: pickles loaded, row functions made functions and
    sources and sinks the API objects that read and write (in tuples, lists and dicts too);
    other IR data stays as it is."""
    if isinstance(obj, Pickled):
        return obj.load()
    if isinstance(obj, RowFn):
        return row_fns.from_ir(obj)
    if isinstance(obj, (Source, Sink)):
        return kinds.from_ir(obj)
    if isinstance(obj, tuple):
        return tuple(lift(v) for v in obj)
    if isinstance(obj, list):
        return [lift(v) for v in obj]
    if isinstance(obj, dict):
        return {k: lift(v) for k, v in obj.items()}
    return obj
