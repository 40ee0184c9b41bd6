"""Beam's ``common_urns.constants``: time's ends in milliseconds, as Beam's portable model
states them (``constants.MAX_TIMESTAMP_MILLIS.constant``), derived from panes' own."""

from __future__ import annotations

from types import SimpleNamespace

from panes.timestamp import GLOBAL_WINDOW_END_MICROS, MAX_MICROS, MIN_MICROS


def _constant(millis: int) -> SimpleNamespace:
    return SimpleNamespace(constant=str(millis))


constants = SimpleNamespace(
    MIN_TIMESTAMP_MILLIS=_constant(-(-MIN_MICROS // 1000)),
    MAX_TIMESTAMP_MILLIS=_constant(MAX_MICROS // 1000),
    GLOBAL_WINDOW_MAX_TIMESTAMP_MILLIS=_constant(GLOBAL_WINDOW_END_MICROS // 1000),
)
