"""JSON form of the IR, read and checked against the IR's own annotations.

Encoding follows each field's annotation: IR dataclasses become objects of their fields (a
family member adds its ``kind``), tuples become lists, enums their value, pickles
``{"$pickle": "<base64>"}``; a ``Value`` field tags tuples and dicts (``$tuple``, ``$dict``).
Decoding checks every field against its annotation — type, range, no unknown or missing
field, known kinds — and an error names the node or collection and the field's path.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import types
import typing
from functools import cache

from panes.errors import ValidationError
from panes.ir.data import INT64_MAX, INT64_MIN, AtLeast, Below, Family, NonEmpty, Pickled, Value


class _Invalid(Exception):
    """A value that does not fit its annotation, at ``path`` inside the value being read."""

    def __init__(self, path: tuple, problem: str):
        super().__init__(problem)
        self.path, self.problem = path, problem

    def error(self, where: str) -> ValidationError:
        at = _path_text(self.path)
        return ValidationError(f"{where}{', field ' + at if at else ''}: {self.problem}")


def _path_text(path: tuple) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


# -- annotations ----------------------------------------------------------------------------------


@cache
def field_hints(cls) -> dict:
    """``{field name: annotation}`` of an IR dataclass, constraints included."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _unwrap(hint) -> tuple:
    """``(base annotation, constraints)``."""
    if typing.get_origin(hint) is typing.Annotated:
        base, *constraints = typing.get_args(hint)
        return base, tuple(constraints)
    return hint, ()


def _optional(hint):
    """The annotation inside ``Optional[...]``, or None when ``hint`` is not optional."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if type(None) in args:
            rest = [arg for arg in args if arg is not type(None)]
            return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007 - built at run time
    return None


def _is_family(hint) -> bool:
    return isinstance(hint, type) and issubclass(hint, Family) and "FAMILY" in hint.__dict__


# -- encoding -------------------------------------------------------------------------------------


def encode(value, hint):
    """JSON-ready data for ``value`` as its annotation ``hint`` describes it. A value that
    does not fit is written as it is, for ``decode`` to refuse with its path."""
    base, _ = _unwrap(hint)
    inner = _optional(base)
    if value is None:
        return None
    if inner is not None:
        return encode(value, inner)
    if base is Value:
        return encode_value(value)
    if isinstance(value, Pickled):
        return {"$pickle": value.data}
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {"kind": value.KIND} if isinstance(value, Family) else {}
        hints = field_hints(type(value))
        for name, field_hint in hints.items():
            data[name] = encode(getattr(value, name), field_hint)
        return data
    origin, args = typing.get_origin(base), typing.get_args(base)
    if origin is tuple and isinstance(value, (tuple, list)):
        return [encode(item, args[0]) for item in value]
    if origin is dict and isinstance(value, dict):
        return {key: encode(item, args[1]) for key, item in value.items()}
    return value


def encode_value(value):
    """A ``Value`` field's data: JSON values as they are, tuples and dicts tagged."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Pickled):
        return {"$pickle": value.data}
    if isinstance(value, tuple):
        return {"$tuple": [encode_value(item) for item in value]}
    if isinstance(value, list):
        return [encode_value(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"$dict": {key: encode_value(item) for key, item in value.items()}}
    raise ValidationError(f"cannot store {value!r} in the IR: wrap user values with Pickled.of")


# -- decoding -------------------------------------------------------------------------------------


def decode(data, hint, path: tuple = ()):
    """The value of annotation ``hint`` that ``data`` (JSON) holds; raises ``_Invalid``."""
    base, constraints = _unwrap(hint)
    inner = _optional(base)
    if inner is not None:
        return None if data is None else decode(data, inner, path)
    value = _decode_base(data, base, path)
    for constraint in constraints:
        _check(constraint, value, path)
    return value


def _decode_base(data, base, path):
    if base is Value:
        return _decode_value(data, path)
    if base is Pickled:
        if isinstance(data, dict) and set(data) == {"$pickle"} and isinstance(data["$pickle"], str):
            return Pickled(data["$pickle"])
        raise _Invalid(path, f"expected pickled user code ({{'$pickle': ...}}), got {_shown(data)}")
    if base is bool:
        if isinstance(data, bool):
            return data
        raise _Invalid(path, f"expected true or false, got {_shown(data)}")
    if base is int:
        if isinstance(data, int) and not isinstance(data, bool):
            if not INT64_MIN <= data <= INT64_MAX:
                raise _Invalid(path, f"{data} is outside the int64 range")
            return data
        raise _Invalid(path, f"expected an integer, got {_shown(data)}")
    if base is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
        raise _Invalid(path, f"expected a number, got {_shown(data)}")
    if base is str:
        if isinstance(data, str):
            return data
        raise _Invalid(path, f"expected a string, got {_shown(data)}")
    if isinstance(base, type) and issubclass(base, enum.Enum):
        try:
            return base(data)
        except (ValueError, TypeError):
            known = ", ".join(repr(member.value) for member in base)
            raise _Invalid(path, f"expected one of {known}, got {_shown(data)}") from None
    if _is_family(base):
        return _decode_member(data, base, path)
    if dataclasses.is_dataclass(base):
        return decode_fields(data, base, path)
    origin, args = typing.get_origin(base), typing.get_args(base)
    if origin is typing.Literal:
        if data in args and type(data) is type(args[0]):
            return data
        raise _Invalid(path, f"expected one of {', '.join(map(repr, args))}, got {_shown(data)}")
    if origin is tuple:
        if not isinstance(data, list):
            raise _Invalid(path, f"expected a list, got {_shown(data)}")
        return tuple(decode(item, args[0], (*path, index)) for index, item in enumerate(data))
    if origin is dict:
        if not isinstance(data, dict):
            raise _Invalid(path, f"expected an object, got {_shown(data)}")
        return {key: decode(item, args[1], (*path, key)) for key, item in data.items()}
    if origin in (typing.Union, types.UnionType):
        return _decode_union(data, args, path)
    raise TypeError(f"the IR annotation {base!r} has no JSON form")


def _decode_union(data, options, path):
    """``Pickled | SomeFamily``: told apart by their JSON shape."""
    pickled = isinstance(data, dict) and "$pickle" in data
    for option in options:
        if (option is Pickled) == pickled:
            return decode(data, option, path)
    names = " or ".join(_name(option) for option in options)
    raise _Invalid(path, f"expected {names}, got {_shown(data)}")


def _decode_member(data, family, path):
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise _Invalid(
            path, f"expected a {family.FAMILY} (an object with a 'kind'), got {_shown(data)}"
        )
    cls = family.members.get(data["kind"])
    if cls is None:
        known = ", ".join(sorted(family.members))
        raise _Invalid(
            path, f"unknown {family.FAMILY} kind {data['kind']!r}; this panes knows {known}"
        )
    return decode_fields({k: v for k, v in data.items() if k != "kind"}, cls, path)


def decode_fields(data, cls, path: tuple = ()):
    """An IR dataclass ``cls`` from a JSON object: every field checked, none unknown, missing
    ones only where a default exists."""
    return cls(**_fields(data, field_hints(cls), cls.__name__, _defaults(cls), path))


def _fields(data, hints: dict, name: str, defaults: dict, path: tuple) -> dict:
    if not isinstance(data, dict):
        raise _Invalid(path, f"expected a {name} object, got {_shown(data)}")
    unknown = [key for key in data if key not in hints]
    if unknown:
        raise _Invalid(
            (*path, unknown[0]),
            f"unknown field {unknown[0]!r}; {name} has {', '.join(hints) or 'no fields'}",
        )
    values = {}
    for field, hint in hints.items():
        if field in data:
            values[field] = decode(data[field], hint, (*path, field))
        elif field in defaults:
            values[field] = defaults[field]
        elif _optional(_unwrap(hint)[0]) is not None:
            values[field] = None
        else:
            raise _Invalid((*path, field), f"missing field {field!r} of {name}")
    _check_siblings(values, hints, path)
    return values


def _defaults(cls) -> dict:
    defaults = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory()
    return defaults


def _check(constraint, value, path) -> None:
    if isinstance(constraint, AtLeast) and value < constraint.low:
        raise _Invalid(path, f"must be at least {constraint.low}, got {value}")
    if isinstance(constraint, NonEmpty) and not value:
        raise _Invalid(path, "must not be empty")


def _check_siblings(values: dict, hints: dict, path) -> None:
    for name, hint in hints.items():
        for constraint in _unwrap(hint)[1]:
            if isinstance(constraint, Below) and values[name] >= values[constraint.field]:
                raise _Invalid(
                    (*path, name),
                    f"must be less than {constraint.field} "
                    f"({values[constraint.field]}), got {values[name]}",
                )


def _decode_value(data, path):
    if isinstance(data, list):
        return [_decode_value(item, (*path, index)) for index, item in enumerate(data)]
    if not isinstance(data, dict):
        return data
    if len(data) == 1:
        tag, content = next(iter(data.items()))
        if tag == "$pickle" and isinstance(content, str):
            return Pickled(content)
        if tag == "$tuple" and isinstance(content, list):
            return tuple(_decode_value(item, (*path, index)) for index, item in enumerate(content))
        if tag == "$dict" and isinstance(content, dict):
            return {key: _decode_value(item, (*path, key)) for key, item in content.items()}
    raise _Invalid(path, f"expected a plain value ($pickle, $tuple or $dict), got {_shown(data)}")


def _name(hint) -> str:
    if _is_family(hint):
        return f"a {hint.FAMILY}"
    return getattr(hint, "__name__", repr(hint))


def _shown(data) -> str:
    if isinstance(data, str):
        return f"the string {data!r}"
    text = json.dumps(data) if not isinstance(data, float) else repr(data)
    return text if len(text) <= 60 else text[:57] + "..."


# -- pipelines ------------------------------------------------------------------------------------


def read(data, hint, where: str):
    """``decode`` for one part of a pipeline, its errors naming ``where``."""
    try:
        return decode(data, hint)
    except _Invalid as invalid:
        raise invalid.error(where) from None


def read_fields(data, hints: dict, name: str, where: str, path: tuple = ()) -> dict:
    """A JSON object of the fields ``hints`` describes (a node's payload), checked as a
    dataclass's are, its errors naming ``where``."""
    try:
        return _fields(data, hints, name, {}, path)
    except _Invalid as invalid:
        raise invalid.error(where) from None


def lower_value(obj):
    """A user value made fit for a ``Value`` field: JSON values, tuples and string-keyed dicts
    of them stay as they are, anything else (functions, user objects, a NaN or an infinity,
    which JSON has not) is pickled."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return Pickled.of(obj)
    if obj is None or isinstance(obj, (bool, int, float, str, Pickled)):
        return obj
    if isinstance(obj, tuple):
        return tuple(lower_value(v) for v in obj)
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return {k: lower_value(v) for k, v in obj.items()}
    return Pickled.of(obj)
