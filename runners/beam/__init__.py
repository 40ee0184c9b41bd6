"""Apache Beam pipelines, unchanged, on panes' runners (the ``beam`` extra):
``--runner=panes.runners.beam.DirectRunner`` or ``--runner=panes.runners.beam.SparkRunner``.
docs/beam-runner.md says what translates and how panes differs."""

from panes.runners.beam.options import PanesOptions
from panes.runners.beam.runner import DirectRunner, SparkRunner

__all__ = ["DirectRunner", "PanesOptions", "SparkRunner"]
