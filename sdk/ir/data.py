"""What IR values are made of: frozen dataclasses whose field annotations say what each field
holds — JSON scalars, int64 microseconds, enums, pickles of user code, other IR values — and
bound its range, so that one codec encodes, decodes and checks every one of them.

A *family* (triggers, window functions, evictors, sources, sinks, row functions) is a base
class whose members are told apart by their ``KIND``, written into their JSON form.
"""

from __future__ import annotations

import base64
import collections
import io
import pickle
import types
from dataclasses import dataclass
from typing import Annotated, ClassVar

import cloudpickle

from panes.errors import ValidationError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class AtLeast:
    """A number field's lower bound."""

    low: int


@dataclass(frozen=True)
class Below:
    """A number field's upper bound: less than the value of the named sibling field."""

    field: str


@dataclass(frozen=True)
class NonEmpty:
    """A tuple field holds at least one item, a string at least one character."""


# Times and durations are int64 microseconds, as in Beam.
Micros = Annotated[int, AtLeast(INT64_MIN)]
Duration = Annotated[int, AtLeast(0)]  # a span of time, in µs
PositiveDuration = Annotated[int, AtLeast(1)]
Count = Annotated[int, AtLeast(1)]


class Value:
    """The annotation of a field holding plain user data (a transform's extra arguments, a
    side input's default): JSON values as they are, tuples and string-keyed dicts tagged,
    anything else pickled."""


def _code_reduce(code):
    """cloudpickle's reduction of a code object, with its file name kept (cloudpickle writes
    ``<dynamic-code>``), so that a user function's error names the user's file."""
    constructor, args = cloudpickle.cloudpickle._code_reduce(code)
    return constructor, tuple(code.co_filename if arg == "<dynamic-code>" else arg for arg in args)


class _Pickler(cloudpickle.Pickler):
    dispatch_table = collections.ChainMap(
        {types.CodeType: _code_reduce}, cloudpickle.Pickler.dispatch_table
    )


def _dumps(obj) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)
    return buffer.getvalue()


class Pickled:
    """User code or data carried opaquely: cloudpickled once, compared by its bytes."""

    __slots__ = ("data",)

    def __init__(self, data: str):
        self.data = data

    @classmethod
    def of(cls, obj) -> Pickled:
        try:
            payload = _dumps(obj)
        except Exception as error:  # cloudpickle raises many types
            raise ValidationError(
                f"cannot serialize {obj!r} ({type(error).__name__}: {error}); user functions and "
                f"their captured variables must be picklable: create locks, connections and "
                f"clients in DoFn.setup() instead of capturing them"
            ) from error
        return cls(base64.b64encode(payload).decode("ascii"))

    def load(self):
        return cloudpickle.loads(base64.b64decode(self.data))

    def __eq__(self, other):
        return isinstance(other, Pickled) and other.data == self.data

    def __hash__(self):
        return hash(self.data)

    def __repr__(self) -> str:
        return f"<pickled {len(self.data)} chars>"


class Family:
    """Base of a family of IR dataclasses, each member named by its ``KIND``. A family's root
    sets ``FAMILY`` (its name in errors); members register as they are defined."""

    FAMILY: ClassVar[str] = ""
    KIND: ClassVar[str] = ""
    members: ClassVar[dict]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "FAMILY" in cls.__dict__:
            cls.members = {}
        elif "KIND" in cls.__dict__:
            if cls.KIND in cls.members:
                raise TypeError(f"two {cls.FAMILY} kinds named {cls.KIND!r}")
            cls.members[cls.KIND] = cls
