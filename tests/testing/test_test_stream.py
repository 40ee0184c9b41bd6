"""TestStream: the timestamps its elements get, as Beam's TestStream gives them."""

import panes as beam
from panes.testing import TestStream, materialize
from panes.utils.timestamp import MIN_TIMESTAMP, Timestamp
from panes.window import TimestampedValue


def test_plain_elements_take_the_watermark_as_it_stands_when_added(runner):
    stream = (
        TestStream()
        .add_elements(["before any advance"])
        .advance_watermark_to(12)
        .add_elements(["at 12", TimestampedValue("keeps 7", 7)])
        .add_elements(["given 3"], event_timestamp=3)
    )
    p = beam.Pipeline(runner=runner)
    out = materialize(p | stream)
    p.run()
    assert sorted((wv.value, wv.timestamp) for wv in out.windowed_values) == sorted(
        [
            ("before any advance", MIN_TIMESTAMP),
            ("at 12", Timestamp(12)),
            ("keeps 7", Timestamp(7)),
            ("given 3", Timestamp(3)),
        ]
    )
