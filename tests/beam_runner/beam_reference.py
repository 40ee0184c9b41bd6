"""Beam's own DirectRunner as the reference for a Beam pipeline run on panes' runners: the
pipeline runs on Beam first, its output collected in-process, then on panes' runner, which
must give the same elements (checked inside the pipeline, so that it holds on Spark too)."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import window

RUNNERS = {"direct": "panes.runners.beam.DirectRunner", "spark": "panes.runners.beam.SparkRunner"}
_collected: dict = {}


class _Collect(beam.DoFn):
    def __init__(self, key):
        self.key = key

    def process(self, element):
        _collected.setdefault(self.key, []).append(element)


def on_beam(build, flags=()) -> list:
    """What ``build(p)`` outputs on Beam's DirectRunner."""
    key = object()
    with beam.Pipeline(runner="DirectRunner", options=PipelineOptions(list(flags))) as p:
        build(p) | beam.ParDo(_Collect(id(key)))
    return _collected.pop(id(key), [])


def on_panes(build, runner: str, expected: list, flags=()) -> None:
    """Runs ``build(p)`` on panes' ``runner`` (direct, spark), asserting its output is
    ``expected``."""
    options = PipelineOptions([f"--runner={RUNNERS[runner]}", *flags])
    with beam.Pipeline(options=options) as p:
        assert_that(build(p), equal_to(expected))


def matches_beam(build, runner: str, flags=()) -> list:
    """Runs ``build`` on Beam's DirectRunner, then on panes' ``runner``; both give the same
    output, which is returned."""
    expected = on_beam(build, flags)
    on_panes(build, runner, expected, flags)
    return expected


class EveryTenSeconds(window.NonMergingWindowFn):
    """A user's own window function, as a Beam user writes one: ten-second windows."""

    def assign(self, context):
        start = context.timestamp - context.timestamp % 10
        return [window.IntervalWindow(start, start + 10)]

    def get_window_coder(self):
        return beam.coders.coders.IntervalWindowCoder()
