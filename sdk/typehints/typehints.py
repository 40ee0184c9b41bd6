"""Beam's type-hint names (``apache_beam.typehints.typehints``) as ``typing`` types, and the
consistency rule (PEP 483/484) a pipeline is checked with when it is built."""

from __future__ import annotations

import collections.abc
import typing

Any = typing.Any
Union = typing.Union
Optional = typing.Optional
Tuple = tuple
List = list
Dict = dict
Set = set
FrozenSet = frozenset
Collection = typing.Collection
Sequence = typing.Sequence
Iterable = typing.Iterable
Iterator = typing.Iterator
Generator = typing.Generator
TypeVariable = typing.TypeVar


class _KV:
    """``KV[K, V]``: a key-value pair, i.e. ``Tuple[K, V]``."""

    def __getitem__(self, key_and_value):
        key, value = key_and_value
        return tuple[key, value]

    def __repr__(self) -> str:
        return "KV"


KV = _KV()

__all__ = [
    "Any",
    "Union",
    "Optional",
    "Tuple",
    "List",
    "KV",
    "Dict",
    "Set",
    "FrozenSet",
    "Collection",
    "Sequence",
    "Iterable",
    "Iterator",
    "Generator",
    "TypeVariable",
]

_NONE = type(None)


def _origin_and_args(hint):
    """``(container class, element types)``; a bare ``list`` is ``(list, ())``."""
    origin = typing.get_origin(hint)
    if origin is None:
        return (hint, ()) if isinstance(hint, type) else (None, ())
    return origin, typing.get_args(hint)


def _union_members(hint):
    if hint is None:
        return (_NONE,)
    if typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return None


def is_consistent_with(sub, base) -> bool:
    """Whether values of type ``sub`` may flow where ``base`` is expected: roughly
    ``issubclass``, with ``Any`` consistent with everything, ints as floats, unions, and
    container element types compared pairwise. What cannot be judged counts as consistent."""
    if sub == base or sub is typing.Any or base is typing.Any:
        return True
    if isinstance(sub, typing.TypeVar) or isinstance(base, typing.TypeVar):
        return True
    if sub is int and base in (float, complex) or sub is float and base is complex:
        return True
    members = _union_members(sub)
    if members is not None and (sub is None or len(members) > 1):
        return all(is_consistent_with(member, base) for member in members)
    members = _union_members(base)
    if members is not None:
        return any(is_consistent_with(sub, member) for member in members)
    sub_origin, sub_args = _origin_and_args(sub)
    base_origin, base_args = _origin_and_args(base)
    if not isinstance(sub_origin, type) or not isinstance(base_origin, type):
        return True
    if not issubclass(sub_origin, base_origin):
        return False
    if not sub_args or not base_args:
        return True
    if base_origin is tuple:
        return _tuples_consistent(sub_args, base_args)
    if issubclass(base_origin, collections.abc.Mapping) and len(base_args) == 2:
        return all(map(is_consistent_with, sub_args[:2], base_args))
    return is_consistent_with(_element_type(sub_origin, sub_args), base_args[0])


def _tuples_consistent(sub_args, base_args) -> bool:
    if len(base_args) == 2 and base_args[1] is Ellipsis:
        elements = sub_args[:1] if len(sub_args) == 2 and sub_args[1] is Ellipsis else sub_args
        return all(is_consistent_with(element, base_args[0]) for element in elements)
    if len(sub_args) == 2 and sub_args[1] is Ellipsis:
        return all(is_consistent_with(sub_args[0], element) for element in base_args)
    return len(sub_args) == len(base_args) and all(map(is_consistent_with, sub_args, base_args))


def _element_type(origin, args):
    """What iterating a container of ``origin[args]`` gives."""
    if origin is tuple:
        elements = [a for a in args if a is not Ellipsis]
        return typing.Union[tuple(elements)] if elements else typing.Any
    return args[0]


def instance_to_type(value):
    """The type hint of a value, as Beam infers a ``Create``'s element type: containers with
    their element types, several types as a Union."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple[tuple(instance_to_type(v) for v in value)] if value else tuple[()]
    for container, hint in ((list, list), (set, set), (frozenset, frozenset)):
        if type(value) is container:
            return hint[union_of(instance_to_type(v) for v in value)]
    if type(value) is dict:
        return dict[
            union_of(instance_to_type(k) for k in value),
            union_of(instance_to_type(v) for v in value.values()),
        ]
    return type(value)


def union_of(hints) -> object:
    """One hint for several: ``Any`` for none, the hint itself for one, else their Union."""
    distinct = list(dict.fromkeys(hints))
    if not distinct:
        return typing.Any
    return distinct[0] if len(distinct) == 1 else typing.Union[tuple(distinct)]


def key_value_types(hint):
    """``(key type, value type)`` of a ``Tuple[K, V]`` hint, else ``(Any, Any)``."""
    origin, args = _origin_and_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is not Ellipsis:
        return args
    return typing.Any, typing.Any


def iterable_element_type(hint):
    """``T`` for a hint of an iterable of ``T`` (what FlatMap emits), else ``Any``."""
    origin, args = _origin_and_args(hint)
    if (
        isinstance(origin, type)
        and issubclass(origin, collections.abc.Iterable)
        and args
        and origin not in (str, bytes)
    ):
        return _element_type(origin, args)
    return typing.Any
