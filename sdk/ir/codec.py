"""JSON form of the IR: structured data as tagged objects, user code and data as pickles."""

from __future__ import annotations

import base64
import collections
import dataclasses
import enum
import importlib
import io
import json
import pickle
import types

import cloudpickle

from panes.errors import ValidationError

# Modules whose dataclasses and enums are stored as structure, never pickled.
STRUCTURED_MODULES = (
    "panes.ir.model", "panes.utils.timestamp", "panes.window", "panes.trigger", "panes.evictor",
    "panes.watermark", "panes.windowing.strategy", "panes.io.text", "panes.io.parquet",
    "panes.io.base", "panes.testing.capture", "panes.testing.test_stream",
    "panes.transforms.group_by", "panes.transforms.timestamps",
)


def _code_reduce(code):
    """cloudpickle's reduction of a code object, with its file name kept (cloudpickle writes
    ``<dynamic-code>``), so that a user function's error names the user's file."""
    constructor, args = cloudpickle.cloudpickle._code_reduce(code)
    return constructor, tuple(code.co_filename if arg == "<dynamic-code>" else arg
                              for arg in args)


class _Pickler(cloudpickle.Pickler):
    dispatch_table = collections.ChainMap({types.CodeType: _code_reduce},
                                          cloudpickle.Pickler.dispatch_table)


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
    def of(cls, obj) -> "Pickled":
        try:
            payload = _dumps(obj)
        except Exception as error:  # cloudpickle raises many types
            raise ValidationError(
                f"cannot serialize {obj!r} ({type(error).__name__}: {error}); user functions and "
                f"their captured variables must be picklable: create locks, connections and "
                f"clients in DoFn.setup() instead of capturing them") from error
        return cls(base64.b64encode(payload).decode("ascii"))

    def load(self):
        return cloudpickle.loads(base64.b64decode(self.data))

    def __eq__(self, other):
        return isinstance(other, Pickled) and other.data == self.data

    def __hash__(self):
        return hash(self.data)

    def __repr__(self) -> str:
        return f"<pickled {len(self.data)} chars>"


def _structured_types() -> dict:
    types = {}
    for module_name in STRUCTURED_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module_name and (
                    dataclasses.is_dataclass(value) or issubclass(value, enum.Enum)):
                types[f"{module_name}.{value.__qualname__}"] = value
    return types


def is_structured(obj) -> bool:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}" in _registry()


_REGISTRY: dict | None = None


def _registry() -> dict:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _structured_types()
    return _REGISTRY


def encode(obj):
    """Turns IR values into JSON-ready data."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, Pickled):
        return {"$pickle": obj.data}
    if isinstance(obj, tuple):
        return {"$tuple": [encode(v) for v in obj]}
    if isinstance(obj, list):
        return [encode(v) for v in obj]
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return {"$dict": {k: encode(v) for k, v in obj.items()}}
    name = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if name in _registry():
        if isinstance(obj, enum.Enum):
            return {"$enum": name, "value": obj.value}
        return {"$type": name,
                "fields": {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    raise ValidationError(f"cannot store {obj!r} in the IR: wrap user values with Pickled.of")


def decode(data):
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "$pickle" in data:
        return Pickled(data["$pickle"])
    if "$tuple" in data:
        return tuple(decode(v) for v in data["$tuple"])
    if "$dict" in data:
        return {k: decode(v) for k, v in data["$dict"].items()}
    if "$enum" in data:
        return _lookup(data["$enum"])(data["value"])
    if "$type" in data:
        cls = _lookup(data["$type"])
        obj = cls.__new__(cls)
        for name, value in data["fields"].items():
            object.__setattr__(obj, name, decode(value))
        return obj
    raise ValidationError(f"unreadable IR value {data!r}")


def _lookup(name: str):
    try:
        return _registry()[name]
    except KeyError:
        raise ValidationError(
            f"the IR names an unknown type {name!r}; it was written by another panes version "
            f"or with a custom type that must be pickled") from None


def to_json(ir, indent: int | None = 1) -> str:
    return json.dumps(encode(ir), indent=indent)


def from_json(text: str):
    from panes.ir.model import IR_VERSION, PipelineIR

    data = json.loads(text)
    version = data.get("fields", {}).get("version") if isinstance(data, dict) else None
    if version != IR_VERSION:
        raise ValidationError(
            f"IR version {version!r} is not supported by this panes (version {IR_VERSION}); "
            f"recompile the pipeline with this version")
    ir = decode(data)
    if not isinstance(ir, PipelineIR):
        raise ValidationError("the JSON does not hold a panes pipeline IR")
    return ir


def lower(obj):
    """Makes a value IR-ready: structured data stays structure (recursively), plain JSON
    values stay as they are, anything else (functions, user objects) becomes ``Pickled``."""
    if obj is None or isinstance(obj, (bool, int, float, str, Pickled)):
        return obj
    if isinstance(obj, tuple):
        return tuple(lower(v) for v in obj)
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return {k: lower(v) for k, v in obj.items()}
    if is_structured(obj):
        if isinstance(obj, enum.Enum):
            return obj
        return _rebuild(obj, lower)
    return Pickled.of(obj)


def lift(obj):
    """Inverse of ``lower``: what a runner executes, with pickles loaded."""
    if isinstance(obj, Pickled):
        return obj.load()
    if isinstance(obj, tuple):
        return tuple(lift(v) for v in obj)
    if isinstance(obj, list):
        return [lift(v) for v in obj]
    if isinstance(obj, dict):
        return {k: lift(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and is_structured(obj):
        return _rebuild(obj, lift)
    return obj


def _rebuild(obj, convert):
    cls = type(obj)
    rebuilt = cls.__new__(cls)
    for f in dataclasses.fields(obj):
        object.__setattr__(rebuilt, f.name, convert(getattr(obj, f.name)))
    return rebuilt
