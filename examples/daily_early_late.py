"""Daily windows with hourly early results and late firings every N elements.

The Flink trigger-DSL proposal's motivating policy: "fire in daily windows with allowed
lateness of 12 hours, but give me early results every hour, and after the watermark passes the
end of the window, fire every 10 elements". Days are local days in UTC+8 (window offset −8 h).
A TestStream replays the event log — elements, processing-time hours, the watermark — so the
panes are exactly reproducible.

    python examples/daily_early_late.py
"""

from __future__ import annotations

import panes as beam
from panes.options.pipeline_options import PipelineOptions
from panes.testing import TestStream, materialize
from panes.trigger import ContinuousProcessingTimeTrigger, CountTrigger, EventTimeTrigger
from panes.window import FixedWindows, TimestampedValue

HOUR = 3600
DAY = 24 * HOUR
LATE_EVERY = 10


def event_log():
    """A day of sales: two hours of traffic, the end of the day, then late stragglers."""
    stream = TestStream().advance_processing_time(60)  # traffic starts a minute past the hour
    for hour in range(2):
        stream.add_elements(
            [TimestampedValue(("sales", 1), hour * HOUR + 60 * i) for i in range(30)]
        )
        stream.advance_processing_time(HOUR)
    stream.advance_watermark_to(DAY - 8 * HOUR + 60)  # past the end of the first local day
    for _ in range(2):
        stream.add_elements([TimestampedValue(("sales", 1), 5 * HOUR) for _ in range(LATE_EVERY)])
    return stream.advance_watermark_to_infinity()


def build(p):
    trigger = (
        EventTimeTrigger.afterEndOfWindow()
        .withEarlyTrigger(ContinuousProcessingTimeTrigger.of(HOUR))
        .withLateTrigger(CountTrigger.atLeast(LATE_EVERY))
    )
    return (
        p
        | "Sales" >> event_log()
        | "LocalDays"
        >> beam.WindowInto(
            FixedWindows(DAY, offset=-8 * HOUR), trigger=trigger, allowed_lateness=12 * HOUR
        )
        | "Total" >> beam.CombinePerKey(sum)
    )


def run(runner=None, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    out = materialize(build(p))
    p.run()
    return [
        (wv.pane_info.timing.value, wv.value[1])
        for wv in sorted(out.windowed_values, key=lambda wv: wv.pane_info.index)
    ]


if __name__ == "__main__":
    for timing, total in run(options=PipelineOptions()):
        print(f"{timing:>8}: {total} sales so far")
