"""User code that only the executors can import — a module shipped with ``addPyFile`` (as
``spark-submit --py-files`` ships it), not on the driver's path — runs in a streaming stateful
stage: Spark's start of the query, in a Python process of the driver, does not load it."""

import sys
import zipfile

import panes as beam
from panes.testing import TestStream, materialize
from panes.window import FixedWindows, TimestampedValue

SHIPPED = """
import panes as beam


class Tally(beam.CombineFn):
    def create_accumulator(self):
        return 0

    def add_input(self, total, value):
        return total + value

    def merge_accumulators(self, totals):
        return sum(totals)

    def extract_output(self, total):
        return ("tally", total)
"""


def test_a_combiner_from_a_shipped_module_runs_on_streaming(spark, tmp_path):
    archive = tmp_path / "shipped_tally.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("shipped_tally.py", SHIPPED)
    sys.path.insert(0, str(archive))
    try:
        from shipped_tally import Tally
    finally:
        sys.path.remove(str(archive))
    spark.sparkContext.addPyFile(str(archive))
    p = beam.Pipeline(runner="spark", options={"streaming": True})
    events = (
        TestStream()
        .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("a", 2), 2)])
        .advance_watermark_to(12)
        .add_elements([TimestampedValue(("a", 4), 14)])
    )
    tallies = p | events | beam.WindowInto(FixedWindows(10)) | beam.CombinePerKey(Tally())
    outputs = materialize(tallies, "Tallies")
    p.run().wait_until_finish()
    assert sorted(wv.value for wv in outputs.windowed_values) == [
        ("a", ("tally", 3)),
        ("a", ("tally", 4)),
    ]
