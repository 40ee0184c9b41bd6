"""Coders, as Beam's ``apache_beam.coders.coders``: how a value becomes bytes and back.

panes carries values between processes with (cloud)pickle, so a coder matters where Beam
users rely on it to change behaviour: a registered key coder decides which keys group
together (keys are equal when their encodings are), and ``ReadFromText``/``WriteToText`` turn
lines into values and values into lines with one.
"""

from __future__ import annotations

import pickle
import struct

__all__ = [
    "Coder",
    "BytesCoder",
    "StrUtf8Coder",
    "ToBytesCoder",
    "VarIntCoder",
    "FloatCoder",
    "BooleanCoder",
    "PickleCoder",
    "FastPrimitivesCoder",
    "TupleCoder",
    "IntervalWindowCoder",
    "GlobalWindowCoder",
]


class Coder:
    """Subclass and implement ``encode(value) -> bytes`` and ``decode(bytes) -> value``;
    ``is_deterministic`` says whether equal values always encode to equal bytes (required of
    a key coder)."""

    def encode(self, value) -> bytes:
        raise NotImplementedError(f"{type(self).__name__} must implement encode()")

    def decode(self, encoded: bytes):
        raise NotImplementedError(f"{type(self).__name__} must implement decode()")

    def is_deterministic(self) -> bool:
        return False

    def as_deterministic_coder(self, step_label, error_message=None) -> Coder:
        if self.is_deterministic():
            return self
        raise ValueError(
            error_message or f"{self} cannot deterministically encode keys of {step_label}"
        )

    def estimate_size(self, value) -> int:
        return len(self.encode(value))

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class BytesCoder(Coder):
    """Bytes as they are."""

    def encode(self, value):
        return value

    def decode(self, encoded):
        return encoded

    def is_deterministic(self):
        return True


class StrUtf8Coder(Coder):
    """Strings as UTF-8 (``ReadFromText``'s default)."""

    def encode(self, value):
        return value.encode("utf-8")

    def decode(self, encoded):
        return encoded.decode("utf-8")

    def is_deterministic(self):
        return True


class ToBytesCoder(Coder):
    """Bytes as they are, anything else as ``str(value)`` in UTF-8 (``WriteToText``'s
    default); it cannot decode."""

    def encode(self, value):
        return value if isinstance(value, bytes) else str(value).encode("utf-8")

    def decode(self, encoded):
        raise NotImplementedError("ToBytesCoder cannot be used for decoding")

    def is_deterministic(self):
        return True


class VarIntCoder(Coder):
    """A 64-bit signed integer as a base-128 varint of its two's complement, as Beam's."""

    def encode(self, value):
        bits, out = value & 0xFFFFFFFFFFFFFFFF, bytearray()
        while bits > 0x7F:
            out.append((bits & 0x7F) | 0x80)
            bits >>= 7
        out.append(bits)
        return bytes(out)

    def decode(self, encoded):
        bits = 0
        for index, byte in enumerate(encoded):
            bits |= (byte & 0x7F) << (7 * index)
        return bits - (1 << 64) if bits >= 1 << 63 else bits

    def is_deterministic(self):
        return True


class FloatCoder(Coder):
    """A float as a big-endian IEEE 754 double, as Beam's."""

    def encode(self, value):
        return struct.pack(">d", value)

    def decode(self, encoded):
        return struct.unpack(">d", encoded)[0]

    def is_deterministic(self):
        return True


class BooleanCoder(Coder):
    def encode(self, value):
        return b"\x01" if value else b"\x00"

    def decode(self, encoded):
        return encoded == b"\x01"

    def is_deterministic(self):
        return True


class PickleCoder(Coder):
    """Any picklable value; not deterministic (equal values may pickle differently)."""

    def encode(self, value):
        return pickle.dumps(value)

    def decode(self, encoded):
        return pickle.loads(encoded)


class FastPrimitivesCoder(PickleCoder):
    """Beam's default coder for values of unknown type; here, pickle."""


class TupleCoder(Coder):
    """A tuple, each component with its coder, each encoding prefixed by its length."""

    def __init__(self, components):
        self._coders = tuple(components)

    def coders(self) -> tuple:
        return self._coders

    def encode(self, value):
        out = bytearray()
        for coder, component in zip(self._coders, value, strict=True):
            encoded = coder.encode(component)
            out += VarIntCoder().encode(len(encoded)) + encoded
        return bytes(out)

    def decode(self, encoded):
        values, position = [], 0
        for coder in self._coders:
            length, size = _varint_prefix(encoded, position)
            start = position + size
            values.append(coder.decode(encoded[start : start + length]))
            position = start + length
        return tuple(values)

    def is_deterministic(self):
        return all(coder.is_deterministic() for coder in self._coders)

    def __repr__(self):
        return f"TupleCoder({list(self._coders)!r})"


def _varint_prefix(encoded: bytes, position: int) -> tuple[int, int]:
    """(value, bytes used) of the varint at ``position``."""
    end = position
    while encoded[end] & 0x80:
        end += 1
    return VarIntCoder().decode(encoded[position : end + 1]), end + 1 - position


class IntervalWindowCoder(PickleCoder):
    """The coder ``WindowFn.get_window_coder`` returns for interval windows (panes ships
    windows with pickle; this names the coder Beam code returns)."""


class GlobalWindowCoder(PickleCoder):
    """The coder of the global window."""
