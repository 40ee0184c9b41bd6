"""The time domains of timers (Beam's ``apache_beam.transforms.timeutil``)."""

from __future__ import annotations

__all__ = ["TimeDomain"]


class TimeDomain:
    """``WATERMARK``: event time, a timer fires once the input watermark is past it;
    ``REAL_TIME``: processing time, once the processing clock is past it."""

    WATERMARK = "WATERMARK"
    REAL_TIME = "REAL_TIME"

    @staticmethod
    def from_string(domain: str) -> str:
        if domain in (TimeDomain.WATERMARK, TimeDomain.REAL_TIME):
            return domain
        raise ValueError(
            f"unknown time domain {domain!r}: use TimeDomain.WATERMARK or TimeDomain.REAL_TIME"
        )

    @staticmethod
    def is_event_time(domain: str) -> bool:
        return TimeDomain.from_string(domain) == TimeDomain.WATERMARK
