"""PTransform: the unit of a pipeline, applied with ``|`` and labelled with ``>>``."""

from __future__ import annotations

import copy
import functools
import os

from panes.errors import PipelineConstructionError
from panes.pvalue import PBegin, PCollection, PValue
from panes.typehints.decorators import HINTS_ATTRIBUTE


class PTransform:
    """Turns input PValues into output PValues; composites override ``expand``."""

    label: str | None = None
    _input_type_hint = None
    _output_type_hint = None

    def __init__(self, label: str | None = None):
        self.label = label

    def default_label(self) -> str:
        return type(self).__name__

    def with_input_types(self, input_type_hint, *side_inputs_arg_hints, **side_input_kwarg_hints):
        """Declares the element type this transform takes; checked when it is applied."""
        self._input_type_hint = input_type_hint
        return self

    def with_output_types(self, type_hint):
        """Declares the element type of this transform's main output."""
        self._output_type_hint = type_hint
        return self

    def input_type_hint(self):
        """The element type this transform declares it takes, or None."""
        return self._input_type_hint

    def infer_output_type(self, input_type):
        """The element type of the main output of a primitive, given its input's (None:
        unknown); ``with_output_types`` overrides it."""
        return None

    def expand(self, input_or_inputs):
        raise NotImplementedError(f"{type(self).__name__} must implement expand()")

    def __rrshift__(self, label):
        """``'Label' >> transform``; an empty label keeps the transform's own (as in Beam)."""
        if not isinstance(label, str):
            raise PipelineConstructionError(
                f"a transform label must be a string, got {label!r}: "
                f"write 'MyLabel' >> {type(self).__name__}(...)"
            )
        if not label:
            return self
        labelled = copy.copy(self)
        labelled.label = label
        return labelled

    def __ror__(self, left):
        """``[pc1, pc2] | Flatten()`` and ``{"a": pc} | CoGroupByKey()`` land here (pipelines and
        PCollections apply what follows their own ``|``)."""
        return _pipeline_of(left, self).apply(self, left)

    def __or__(self, right):
        """``first | second``: one transform that applies both in turn (Beam's)."""
        if not isinstance(right, PTransform):
            raise PipelineConstructionError(
                f"cannot apply {right!r} after {self.default_label()}: only a transform follows "
                f"a transform's |, as in pcoll | first | second"
            )
        return _ChainedPTransform(self, right)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label or ''})"


class _ChainedPTransform(PTransform):
    """Transforms applied one after the other, labelled by theirs joined by ``|`` (Beam's)."""

    def __init__(self, *parts: PTransform):
        super().__init__("|".join(part.label or part.default_label() for part in parts))
        self.parts = parts

    def __or__(self, right):
        if not isinstance(right, PTransform):
            return super().__or__(right)
        return _ChainedPTransform(*self.parts, right)

    def expand(self, pvalue):
        for part in self.parts:
            pvalue = pvalue | part
        return pvalue


class PrimitiveTransform(PTransform):
    """A transform that maps to one IR node; runners execute only these.

    ``ir_kind`` names the node kind; ``ir_payload`` returns the node's data.
    """

    ir_kind = ""

    def ir_payload(self) -> dict:
        return {}


class SourceTransform(PrimitiveTransform):
    """A primitive that starts a pipeline from bounded data.

    Without a watermark strategy it is Beam batch: all records are one bundle and the watermark
    jumps to +inf at the end. ``with_watermarks`` makes it a replayable stream instead: each
    record is a bundle in arrival order, followed by the watermark the strategy derives.
    """

    watermark = None
    timestamp_fn = None
    arrival_fn = None

    def with_watermarks(self, strategy, timestamp_fn=None, arrival_fn=None):
        """Reads record at a time under ``strategy`` (a ``panes.watermark.WatermarkStrategy``);
        ``timestamp_fn(record)`` gives each record's event time and ``arrival_fn(record)`` its
        arrival in processing time (seconds, datetime, Timestamp), which drives the virtual
        processing-time clock and the source's idleness."""
        from panes.watermark import WatermarkStrategy

        if not isinstance(strategy, WatermarkStrategy):
            raise PipelineConstructionError(
                f"{self.default_label()}.with_watermarks needs a WatermarkStrategy, e.g. "
                f"WatermarkStrategy.for_bounded_out_of_orderness(5), got {strategy!r}"
            )
        for name, fn in (("timestamp_fn", timestamp_fn), ("arrival_fn", arrival_fn)):
            if fn is not None and not callable(fn):
                raise PipelineConstructionError(
                    f"{self.default_label()}.with_watermarks: {name} must be callable, got {fn!r}"
                )
        transform = copy.copy(self)
        transform.watermark = strategy
        transform.timestamp_fn = timestamp_fn
        transform.arrival_fn = arrival_fn
        return transform

    def source_timing(self) -> dict:
        """The IR of how the source is timed: its watermark strategy and functions."""
        from panes.ir.data import Pickled
        from panes.watermark import to_ir

        return {
            "watermark": None if self.watermark is None else to_ir(self.watermark),
            **{
                name: None if fn is None else Pickled.of(fn)
                for name, fn in (
                    ("timestamp_fn", self.timestamp_fn),
                    ("arrival_fn", self.arrival_fn),
                )
            },
        }


class _PTransformFnPTransform(PTransform):
    """The transform a ``ptransform_fn`` function makes: its expansion calls the function."""

    def __init__(self, fn, *args, **kwargs):
        super().__init__()
        self._fn, self._args, self._kwargs = fn, args, kwargs

    def default_label(self) -> str:
        if self._args:
            return f"{label_from_callable(self._fn)}({label_from_callable(self._args[0])})"
        return label_from_callable(self._fn)

    def expand(self, pcoll):
        return self._fn(pcoll, *self._args, **self._kwargs)


def ptransform_fn(fn):
    """Makes a function ``fn(pcoll, *args, **kwargs)`` into a factory of transforms, as
    Beam's decorator: ``pcoll | MyTransform(arg)``. Type hints decorating the factory are the
    transform's."""

    @functools.wraps(fn)
    def callable_ptransform_factory(*args, **kwargs):
        transform = _PTransformFnPTransform(fn, *args, **kwargs)
        hints = getattr(callable_ptransform_factory, HINTS_ATTRIBUTE, {})
        transform._input_type_hint = hints.get("input")
        transform._output_type_hint = hints.get("output")
        return transform

    return callable_ptransform_factory


def label_from_callable(fn) -> str:
    """Beam's default label part for a function: its ``default_label()``, its name, or for a
    lambda ``<lambda at file.py:line>`` (so that unlabelled lambdas do not collide)."""
    if hasattr(fn, "default_label"):
        return fn.default_label()
    name = getattr(fn, "__name__", None)
    if name == "<lambda>":
        code = fn.__code__
        return f"<lambda at {os.path.basename(code.co_filename)}:{code.co_firstlineno}>"
    return name or str(fn)


def _pipeline_of(left, transform):
    """The pipeline ``left | transform`` applies to (a pipeline's own ``|`` applies there)."""
    if isinstance(left, PValue):
        return left.pipeline
    if isinstance(left, (dict, list, tuple)) and not left and hasattr(transform, "pipeline"):
        if callable(getattr(transform.pipeline, "apply", None)):  # {} | CoGroupByKey(pipeline=p)
            return transform.pipeline
        raise PipelineConstructionError(
            f"{transform.default_label()} of no collections needs its pipeline: "
            f"{{}} | {transform.default_label()}(pipeline=p)"
        )
    if isinstance(left, dict):
        left = list(left.values())
    if isinstance(left, (list, tuple)) and left and all(isinstance(p, PCollection) for p in left):
        pipelines = {id(p.pipeline) for p in left}
        if len(pipelines) > 1:
            raise PipelineConstructionError(
                f"{transform.default_label()}: all inputs must belong to the same pipeline"
            )
        return left[0].pipeline
    raise PipelineConstructionError(
        f"{transform.default_label()} must be applied to a pipeline, a PCollection or a "
        f"list of PCollections, not {type(left).__name__}"
    )


def require_pcollection(transform: PTransform, pvalue, label: str) -> PCollection:
    """Checks that a transform that needs one input collection got one."""
    if isinstance(pvalue, PCollection):
        return pvalue
    what = "the pipeline itself" if isinstance(pvalue, PBegin) else type(pvalue).__name__
    raise PipelineConstructionError(
        f"{type(transform).__name__} '{label}' must be applied to a PCollection, not {what}; "
        f"start with p | Create(...) or a Read transform"
    )
