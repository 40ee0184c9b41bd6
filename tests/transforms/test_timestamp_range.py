"""A timestamp outside Beam's range (int64 microseconds) fails where it is made, naming the
transform and the element, on every runner — it has no window it could be judged in."""

import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.testing import materialize
from panes.utils.timestamp import MAX_TIMESTAMP, Timestamp
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, TimestampedValue

BEYOND = 1e16  # seconds: 1e22 microseconds


class StampOne(beam.DoFn):
    def process(self, element):
        yield TimestampedValue(element, BEYOND if element == 2 else element)


@pytest.mark.parametrize(
    "make, label",
    [
        (
            lambda p: (
                p
                | beam.Create([1, 2, 3])
                | "Stamp" >> beam.Map(lambda x: TimestampedValue(x, -BEYOND if x == 2 else x))
            ),
            "Stamp",
        ),
        (lambda p: p | beam.Create([1, 2, 3]) | "Stamp" >> beam.ParDo(StampOne()), "Stamp"),
        (
            lambda p: (
                p
                | "Stamp"
                >> beam.Create(
                    [
                        TimestampedValue(1, 1),
                        TimestampedValue(2, Timestamp(micros=MAX_TIMESTAMP.micros + 1)),
                    ]
                )
            ),
            "Stamp",
        ),
    ],
    ids=["Map", "ParDo", "Create"],
)
def test_a_timestamp_beyond_beams_range_names_the_transform_and_element(runner, make, label):
    p = beam.Pipeline(runner=runner)
    make(p) | beam.WindowInto(FixedWindows(60)) | beam.combiners.Count.Globally().without_defaults()
    with pytest.raises(UserCodeError, match="outside Beam's range") as caught:
        p.run()
    assert caught.value.label == label
    assert caught.value.element == 2


def test_a_source_timestamp_function_beyond_the_range_names_the_read(runner, tmp_path):
    (tmp_path / "in.txt").write_text("1\n2\n3\n")
    p = beam.Pipeline(runner=runner)
    read = beam.io.ReadFromText(str(tmp_path / "in.txt")).with_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(0),
        timestamp_fn=lambda line: 10**13 if line == "2" else int(line),
    )
    materialize(p | "ReadTimes" >> read)
    with pytest.raises(UserCodeError, match="outside Beam's range") as caught:
        p.run()
    assert caught.value.label == "ReadTimes" and caught.value.element == "2"


def test_the_edges_of_the_range_are_accepted(runner):
    p = beam.Pipeline(runner=runner)
    out = materialize(
        p
        | beam.Create(
            [
                TimestampedValue("last", Timestamp(micros=MAX_TIMESTAMP.micros - 1)),
                TimestampedValue("first", -9.2e12),
            ]
        )
    )
    p.run()
    assert sorted(out.values) == ["first", "last"]
