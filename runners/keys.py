"""Keys of a keyed node's input: elements as ``(key, value)`` pairs, and the check that a key
can group (hashable, compared by value), with an error that names the transform and the fix."""

from __future__ import annotations

import enum
from itertools import chain
from operator import itemgetter

from panes.errors import UserCodeError


def key_value(label: str, kind: str, value) -> tuple:
    """``value`` as a ``(key, value)`` pair whose key can group, or a clear error naming the
    fix (see ``check_keys``)."""
    pair = _pair(label, kind, value)
    if type(pair[0]) not in _GROUPABLE:
        check_keys(label, kind, (pair,))
    return pair


def key_values(label: str, kind: str, values):
    """A chunk's ``values`` as ``(key, value)`` pairs (see ``key_value``): ``values`` itself
    when they all are."""
    if set(map(type, values)) != {tuple} or set(map(len, values)) != {2}:
        values = [_pair(label, kind, value) for value in values]
    if not set(map(type, map(itemgetter(0), values))) <= _GROUPABLE:
        check_keys(label, kind, values)
    return values


def _pair(label: str, kind: str, value) -> tuple:
    if type(value) is tuple and len(value) == 2:
        return value
    if not (isinstance(value, tuple) and len(value) == 2):
        raise UserCodeError(
            label,
            value,
            TypeError(
                f"{kind} needs (key, value) pairs, got {type(value).__name__}; key the elements "
                f"first, e.g. | Map(lambda x: (key_of(x), x)) or | WithKeys(...)"
            ),
        )
    return tuple(value)


# Key types known to group by value; tuples and frozensets group by their items, checked each time.
_BUILTIN = frozenset({str, int, float, bool, bytes, type(None)})
_GROUPABLE = set(_BUILTIN)
_REMEMBERED = 256
_CONTAINERS = (tuple, frozenset)


def check_keys(label: str, kind: str, pairs) -> None:
    """Fails, naming the transform, the key and the fix, when a key of ``pairs`` cannot group:
    it is not hashable, or it compares by identity (a class without ``__eq__``), so that equal
    keys would fall into as many groups as there are copies of them — and every copy a Spark
    worker unpickles is one. Keys, and the items of tuple and frozenset keys, are checked by
    type; types found fine are remembered."""
    keys = list(map(itemgetter(0), pairs))
    while keys:
        types, containers = set(map(type, keys)), set()
        for key_type in types - _GROUPABLE:
            problem = _ungroupable(key_type)
            if problem:
                key = next(key for key in keys if type(key) is key_type)
                element = next(pair for pair in pairs if _holds(pair[0], key))
                raise UserCodeError(
                    label, element, TypeError(f"{kind} cannot group by the key {key!r}: {problem}")
                )
            if issubclass(key_type, _CONTAINERS):
                containers.add(key_type)
            else:
                if len(_GROUPABLE) >= _REMEMBERED:  # classes a worker unpickles anew
                    _GROUPABLE.intersection_update(_BUILTIN)
                _GROUPABLE.add(key_type)
        if not containers:
            return
        nested = keys if types == containers else [key for key in keys if type(key) in containers]
        keys = list(chain.from_iterable(nested))


def _ungroupable(key_type) -> str:
    """Why keys of ``key_type`` cannot group, with the fix ('' when they can)."""
    name = key_type.__name__
    if key_type.__hash__ is None:
        return (
            f"a {name} is not hashable; key by a hashable value instead, e.g. tuple(key) "
            f"for a list, or a frozen dataclass"
        )
    if key_type.__eq__ is object.__eq__ and not issubclass(key_type, (type, enum.Enum)):
        return (
            f"a {name} compares by identity, so equal {name} keys would not group "
            f"together; give {name} __eq__ and __hash__ (e.g. "
            f"@dataclasses.dataclass(frozen=True)), or key by a value such as a tuple of "
            f"its fields"
        )
    return ""


def _holds(key, item) -> bool:
    """Whether ``item`` is ``key`` or, at any depth, an item of a tuple or frozenset key."""
    return key is item or (isinstance(key, _CONTAINERS) and any(_holds(k, item) for k in key))
