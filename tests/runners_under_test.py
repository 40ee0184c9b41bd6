"""The runners every runner-agnostic test runs on (conformance, transforms, examples).

``PANES_TEST_RUNNERS=direct`` narrows a local run while iterating; CI runs them all.
``spark-streaming`` is the Spark runner under ``--streaming``: the conformance corpus (whose
inputs are event logs) runs on it too, in tests marked ``slow``; other runner-agnostic tests
run on ``RUNNERS`` only.
"""

import os

import panes as beam

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
    return runner in ("spark", STREAMING)
