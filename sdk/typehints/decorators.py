"""Type-hint decorators, as Beam's ``apache_beam.typehints.decorators``, and the check of a
pipeline's element types when it is built.

``@with_input_types(int)`` / ``@with_output_types(str)`` on a function or a DoFn class, Python
annotations (``def fn(x: int) -> str``), and ``transform.with_input_types(...)`` /
``.with_output_types(...)`` all declare element types. A transform applied to a collection
whose known element type contradicts its declared input type fails with Beam's error; with
``--no_pipeline_type_check`` nothing is checked."""

from __future__ import annotations

import inspect
import typing

from panes.errors import PipelineConstructionError
from panes.typehints.typehints import is_consistent_with

__all__ = ["with_input_types", "with_output_types", "TypeCheckError"]

# Where a function or class keeps the hints its decorators give (Beam's attribute name).
HINTS_ATTRIBUTE = "_type_hints"


class TypeCheckError(PipelineConstructionError):
    """A declared type hint contradicts the elements a transform is applied to."""


def with_input_types(*arg_hints, **kwarg_hints):
    """Declares the element type a function or DoFn takes: the first hint, or the hint named
    like its first parameter."""

    def annotate(fn):
        hint = arg_hints[0] if arg_hints else kwarg_hints.get(_first_parameter(fn))
        _set_hints(fn, input=hint)
        return fn

    return annotate


def with_output_types(*return_type_hint, **kwargs):
    """Declares what a function returns (for a DoFn class or a FlatMap function, the type of
    each element it emits)."""
    if len(return_type_hint) != 1 or kwargs:
        raise TypeCheckError(
            f"with_output_types takes one type hint, e.g. with_output_types(int), got "
            f"{return_type_hint or kwargs!r}"
        )

    def annotate(fn):
        _set_hints(fn, output=return_type_hint[0])
        return fn

    return annotate


def _set_hints(fn, **hints) -> None:
    given = {kind: hint for kind, hint in hints.items() if hint is not None}
    merged = {**getattr(fn, HINTS_ATTRIBUTE, {}), **given}
    try:
        setattr(fn, HINTS_ATTRIBUTE, merged)
    except (AttributeError, TypeError):
        raise TypeCheckError(
            f"cannot attach type hints to {fn!r}; give them to the transform: "
            f"Map(fn).with_output_types(...)"
        ) from None


def _first_parameter(fn):
    target = fn.process if isinstance(fn, type) and hasattr(fn, "process") else fn
    try:
        names = [n for n in inspect.signature(target).parameters if n != "self"]
    except (TypeError, ValueError):
        return None
    return names[0] if names else None


def declared_hints(fn) -> tuple:
    """``(input, output)`` element-type hints of a function or DoFn (or None each): from its
    decorators, else its annotations. A DoFn's ``process`` returns an iterable of its output
    elements, so its annotated return type is unwrapped."""
    from panes.typehints.typehints import iterable_element_type

    hints = getattr(fn, HINTS_ATTRIBUTE, None) or getattr(type(fn), HINTS_ATTRIBUTE, None) or {}
    if hints:
        return hints.get("input"), hints.get("output")
    is_dofn = hasattr(fn, "process") and not inspect.isroutine(fn)
    target = fn.process if is_dofn else fn
    try:
        annotations = typing.get_type_hints(target)
        parameters = [n for n in inspect.signature(target).parameters if n != "self"]
    except Exception:  # a builtin, a callable object or unresolvable names: no hints
        return None, None
    element = annotations.get(parameters[0]) if parameters else None
    output = annotations.get("return")
    if is_dofn and output is not None:
        output = iterable_element_type(output)
    return element, output


def check_input_type(transform, label: str, pcoll, hint) -> None:
    """Raises Beam's error when ``pcoll``'s element type contradicts ``hint``."""
    if hint is None:
        return
    actual = pcoll.element_type
    if actual is None or is_consistent_with(actual, hint):
        return
    producer = pcoll.producer.full_label if pcoll.producer else "<unknown>"
    raise TypeCheckError(
        f"The transform '{label}' requires PCollections of type '{hint}' but was applied to "
        f"a PCollection of type '{actual}' (produced by the transform '{producer}'). "
    )
