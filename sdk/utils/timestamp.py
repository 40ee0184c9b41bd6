"""Beam's ``Timestamp`` and ``Duration`` (``apache_beam.utils.timestamp``): event time in seconds
with microsecond precision, as every public object of panes gives it.

They are views: panes keeps time as plain int microseconds inside (``panes.timestamp``), and
makes one of these only where user code looks. Arithmetic, comparisons (with each other and with
numbers of seconds), hashing and text are Beam's. Beam's sub-microsecond precisions and its
protobuf conversions are not in panes.
"""

from __future__ import annotations

import datetime
import re
import time
from dataclasses import dataclass

_MICROS = 1_000_000
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH_NAIVE = _EPOCH.replace(tzinfo=None)
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?"
    r"(?:([Zz])|([+-])(\d{2}):?(\d{2}))?"
)

__all__ = [
    "Timestamp",
    "Duration",
    "MIN_TIMESTAMP",
    "MAX_TIMESTAMP",
    "TIME_GRANULARITY",
    "TimestampTypes",
    "DurationTypes",
    "TimestampDurationTypes",
]


@dataclass(frozen=True, eq=False)
class _Ordered:
    """How Beam's Timestamp and Duration compare, with each other and with numbers of seconds
    (read as the type on the left), and their hash (Beam's: on nanoseconds)."""

    micros: int

    @classmethod
    def of(cls, seconds):
        raise NotImplementedError

    def _micros_of(self, other) -> int:
        """``other``'s micros: a Timestamp's or Duration's own, else as this type reads it."""
        return other.micros if isinstance(other, _Ordered) else type(self).of(other).micros

    def __eq__(self, other) -> bool:
        if isinstance(other, (_Ordered, int, float)):
            return self.micros == self._micros_of(other)
        return NotImplemented

    def __lt__(self, other: TimestampDurationTypes) -> bool:
        return self.micros < self._micros_of(other)

    def __gt__(self, other: TimestampDurationTypes) -> bool:
        return not (self < other or self == other)

    def __le__(self, other: TimestampDurationTypes) -> bool:
        return self < other or self == other

    def __ge__(self, other: TimestampDurationTypes) -> bool:
        return not self < other

    def __hash__(self) -> int:
        return hash(self.micros * 1000)


class Timestamp(_Ordered):
    """A point in event time: ``Timestamp(1.5)``, ``Timestamp(micros=1_500_000)``,
    ``Timestamp.of(datetime)``; numbers compare with it as seconds."""

    micros: int

    MICROS_PRECISION = 6
    NANOS_PRECISION = 9

    def __init__(
        self,
        seconds: int | float = 0,
        subseconds: int | float = 0,
        precision: int = MICROS_PRECISION,
        *,
        micros: int | float | None = None,
    ):
        for name, value in (("seconds", seconds), ("subseconds", subseconds)):
            if not isinstance(value, (int, float)):
                raise TypeError(f"Cannot interpret {value} {type(value)} as {name}.")
        if not isinstance(precision, int):
            raise TypeError(f"Cannot interpret {precision} {type(precision)} as precision.")
        if precision != self.MICROS_PRECISION:
            raise ValueError(
                f"panes keeps event time in microseconds: Timestamp precision "
                f"must be {self.MICROS_PRECISION}, got {precision}"
            )
        if micros is not None:
            if not isinstance(micros, (int, float)):
                raise TypeError(f"Cannot interpret {micros} {type(micros)} as micros.")
            if subseconds:
                raise ValueError(
                    f"micros and subseconds are mutually exclusive, got "
                    f"micros={micros}, subseconds={subseconds}."
                )
            subseconds = micros
        object.__setattr__(self, "micros", int(seconds * _MICROS) + int(subseconds))

    @staticmethod
    def of(seconds: TimestampTypes) -> Timestamp:
        """The Timestamp of a number of seconds or an aware UTC ``datetime``; a Timestamp is
        returned as it is."""
        if isinstance(seconds, Timestamp):
            return seconds
        if isinstance(seconds, (int, float)):
            return Timestamp(seconds)
        if isinstance(seconds, datetime.datetime):
            return Timestamp.from_utc_datetime(seconds)
        raise TypeError(f"Cannot interpret {seconds} {type(seconds)} as Timestamp.")

    @staticmethod
    def now() -> Timestamp:
        return Timestamp(seconds=time.time())

    @classmethod
    def from_utc_datetime(cls, dt: datetime.datetime) -> Timestamp:
        """The Timestamp of a ``datetime`` that carries a UTC time zone."""
        if dt.tzinfo is None:
            raise ValueError(
                f"dt has no timezone info (https://docs.python.org/3/library/"
                f"datetime.html#aware-and-naive-objects): {dt}"
            )
        if dt.utcoffset() != datetime.timedelta(0):
            raise ValueError(f"dt not in UTC: {dt}")
        delta = dt - _EPOCH
        return cls(seconds=delta.days * 86_400 + delta.seconds, micros=delta.microseconds)

    @classmethod
    def from_rfc3339(cls, rfc3339: str) -> Timestamp:
        """The Timestamp an RFC 3339 string names, in any time zone (a string without one is
        UTC), to the microsecond."""
        match = _RFC3339.fullmatch(rfc3339.strip())
        if match is None:
            raise ValueError(f"Could not parse RFC 3339 string '{rfc3339}'.")
        *fields, fraction, _, sign, hours, minutes = match.groups()
        if fraction and len(fraction) > cls.MICROS_PRECISION:
            raise ValueError(
                f"Could not parse RFC 3339 string '{rfc3339}': panes keeps event "
                f"time in microseconds, the string has finer fractional seconds."
            )
        offset = datetime.timedelta(hours=int(hours or 0), minutes=int(minutes or 0))
        try:
            year, month, day, hour, minute, second = map(int, fields)
            moment = datetime.datetime(
                year,
                month,
                day,
                hour,
                minute,
                second,
                tzinfo=datetime.timezone(-offset if sign == "-" else offset),
            )
        except ValueError as error:
            raise ValueError(
                f"Could not parse RFC 3339 string '{rfc3339}' due to error: '{error}'."
            ) from None
        micros = int((fraction or "0").ljust(cls.MICROS_PRECISION, "0"))
        return cls.from_utc_datetime(moment.astimezone(datetime.timezone.utc)) + Duration(
            micros=micros
        )

    def seconds(self) -> int:
        """Whole seconds since the epoch, rounded down."""
        return self.micros // _MICROS

    def subseconds(self) -> int:
        """The microseconds past ``seconds()``: at least 0, less than a million."""
        return self.micros % _MICROS

    def precision(self) -> int:
        return self.MICROS_PRECISION

    @property
    def nanos(self) -> int:
        return self.micros * 1000

    def predecessor(self) -> Timestamp:
        """The largest timestamp before this one."""
        return Timestamp(micros=self.micros - 1)

    def successor(self) -> Timestamp:
        """The smallest timestamp after this one."""
        return Timestamp(micros=self.micros + 1)

    def __repr__(self) -> str:
        return f"Timestamp({_seconds_text(self.micros)})"

    def to_utc_datetime(
        self, has_tz: bool = False, allow_lossy_conversion: bool = False
    ) -> datetime.datetime:
        """This time as a UTC ``datetime``, naive unless ``has_tz`` (as ``utcnow`` gives it)."""
        epoch = _EPOCH if has_tz else _EPOCH_NAIVE
        return epoch + datetime.timedelta(seconds=self.seconds(), microseconds=self.subseconds())

    def to_rfc3339(self) -> str:
        return self.to_utc_datetime().isoformat() + "Z"

    def __float__(self) -> float:
        return self.micros / _MICROS

    def __int__(self) -> int:
        return self.seconds()

    def __add__(self, other: DurationTypes) -> Timestamp:
        return Timestamp(micros=self.micros + Duration.of(other).micros)

    def __radd__(self, other: DurationTypes) -> Timestamp:
        return self + other

    def __sub__(self, other):
        """A Timestamp less a Timestamp is a Duration; less a Duration (or seconds), a
        Timestamp."""
        if isinstance(other, Timestamp):
            return Duration(micros=self.micros - other.micros)
        return Timestamp(micros=self.micros - Duration.of(other).micros)

    def __mod__(self, other: DurationTypes) -> Duration:
        return Duration(micros=self.micros % Duration.of(other).micros)


@dataclass(frozen=True, eq=False)
class Duration(_Ordered):
    """A span of time: ``Duration(60)``, ``Duration(micros=500)``; numbers compare with it as
    seconds."""

    micros: int

    def __init__(self, seconds: int | float = 0, micros: int | float = 0):
        object.__setattr__(self, "micros", int(seconds * _MICROS) + int(micros))

    @staticmethod
    def of(seconds: DurationTypes) -> Duration:
        """The Duration of a number of seconds or a ``timedelta``; a Duration is returned as
        it is."""
        if isinstance(seconds, Timestamp):
            raise TypeError(f"Cannot interpret {seconds} as Duration.")
        if isinstance(seconds, Duration):
            return seconds
        if isinstance(seconds, datetime.timedelta):
            return Duration(
                seconds=(seconds.days * 86_400 + seconds.seconds), micros=seconds.microseconds
            )
        return Duration(seconds)

    def __repr__(self) -> str:
        return f"Duration({_seconds_text(self.micros)})"

    def __float__(self) -> float:
        return self.micros / _MICROS

    def __neg__(self) -> Duration:
        return Duration(micros=-self.micros)

    def __add__(self, other: DurationTypes) -> Duration:
        if isinstance(other, Timestamp):
            return NotImplemented  # Timestamp.__radd__
        return Duration(micros=self.micros + Duration.of(other).micros)

    def __radd__(self, other: DurationTypes) -> Duration:
        return self + other

    def __sub__(self, other: DurationTypes) -> Duration:
        return Duration(micros=self.micros - Duration.of(other).micros)

    def __rsub__(self, other: DurationTypes) -> Duration:
        return -(self - other)

    def __mul__(self, other: DurationTypes) -> Duration:
        return Duration(micros=self.micros * Duration.of(other).micros // _MICROS)

    def __rmul__(self, other: DurationTypes) -> Duration:
        return self * other

    def __mod__(self, other: DurationTypes) -> Duration:
        return Duration(micros=self.micros % Duration.of(other).micros)


def _seconds_text(micros: int) -> str:
    """Seconds as Beam writes them: ``5``, ``-1.500000`` (all six digits once there is a
    fraction)."""
    sign = "-" if micros < 0 else ""
    whole, fraction = divmod(abs(micros), _MICROS)
    return f"{sign}{whole}.{fraction:06d}" if fraction else f"{sign}{whole}"


TimestampTypes = int | float | Timestamp
DurationTypes = int | float | Duration | datetime.timedelta
TimestampDurationTypes = int | float | Duration | Timestamp

# Beam's ends of time: whole milliseconds, as Java's Long.MIN_VALUE / 1000 and MAX_VALUE / 1000.
MIN_TIMESTAMP = Timestamp(micros=-9_223_372_036_854_775 * 1000)
MAX_TIMESTAMP = Timestamp(micros=9_223_372_036_854_775 * 1000)
TIME_GRANULARITY = Duration(micros=1)
