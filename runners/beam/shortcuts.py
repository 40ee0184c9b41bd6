"""The composites panes translates whole instead of walking into Beam's expansion of them:
Beam's URN-registered ``Create``, ``Read``, ``CombinePerKey`` and ``Reshuffle``, its
``WriteImpl`` when panes writes the sink, and ``ReadFromParquet`` and ``WriteToParquet``
(recognized by their parts, which keep their classes through the proto's round trip). Each
translation returns False when it cannot take this application (then Beam's expansion is
translated instead)."""

from __future__ import annotations

from apache_beam.io import iobase
from apache_beam.transforms import core as beam_core
from apache_beam.transforms import util as beam_util

from panes.runners.beam import grouping, sinks, sources
from panes.runners.beam.translation import Translation, main_input


def of(applied):
    """The shortcut for ``applied``, or None."""
    transform = applied.transform
    if isinstance(transform, beam_core.Create):
        return sources.translate_create
    if isinstance(transform, iobase.Read):
        return sources.translate_read
    if type(transform) is beam_core.CombinePerKey:
        return grouping.translate_combine_per_key
    if isinstance(transform, (beam_util.Reshuffle, beam_util.ReshufflePerKey)):
        return reshuffle
    if sinks.is_write(applied):
        return sinks.translate_write
    if sources.is_parquet_read(applied):
        return sources.translate_parquet_read
    if sinks.is_parquet_write(applied):
        return sinks.translate_parquet_write
    return None


def reshuffle(translation: Translation, applied) -> bool:
    """Reshuffling changes no element, window or timestamp: its output is its input."""
    (pcoll,) = applied.outputs.values()
    translation.alias(pcoll, main_input(translation, applied))
    return True
