"""The runners every runner-agnostic test runs on (conformance, transforms, examples).

``PANES_TEST_RUNNERS=direct`` narrows a local run while iterating; CI runs them all.
``spark-streaming`` is the Spark runner under ``--streaming``: the conformance corpus (whose
inputs are event logs) runs on it too, in tests marked ``slow``; other runner-agnostic tests
run on ``RUNNERS`` only.
"""

import os

import panes as beam
from panes.options.pipeline_options import StandardOptions
from panes.runners.spark import SparkRunner

ALL = os.environ.get("PANES_TEST_RUNNERS", "direct,spark,spark-streaming").split(",")
STREAMING = "spark-streaming"
RUNNERS = [name for name in ALL if name != STREAMING]
STREAMING_RUNNERS = [name for name in ALL if name == STREAMING]


def pipeline(runner, **options) -> beam.Pipeline:
    """A pipeline on ``runner``: a runner name (``spark-streaming`` included) or object."""
    if runner == STREAMING:
        return beam.Pipeline(runner="spark", options={**options, "streaming": True})
    return beam.Pipeline(runner=runner, options=options or None)


def needs_spark(runner) -> bool:
    return runner in ("spark", STREAMING) or isinstance(runner, StreamingRunner)


class StreamingRunner:
    """The Spark runner under ``--streaming`` delivering ``steps`` event-log steps per
    micro-batch (``spark-streaming`` delivers one, as a user's run does)."""

    def __init__(self, steps: int):
        self.runner = SparkRunner(partitions=2, steps_per_micro_batch=steps)

    def run_pipeline(self, ir, options):
        options.view_as(StandardOptions).streaming = True
        return self.runner.run_pipeline(ir, options)
