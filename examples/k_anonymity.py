"""Fire at the end of a window only if it holds at least 5 elements (k-anonymity).

The Flink trigger-DSL proposal's example ``All(EventTimeTrigger.afterEndOfWindow(),
CountTrigger.atLeast(5))``: a visit count per zip code and hour is published only when at least
five visits make it up. Windows that never reach five are purged at clean-up without output, as
Flink does, and counted in the ``purged_unfired`` metric so nothing disappears unnoticed.

    python examples/k_anonymity.py
"""

from __future__ import annotations

import panes as beam
from panes.options.pipeline_options import PipelineOptions
from panes.testing import materialize
from panes.trigger import All, CountTrigger, EventTimeTrigger
from panes.window import FixedWindows, TimestampedValue

K = 5
HOUR = 3600
VISITS = (
    [("10115", 60 * i) for i in range(7)]  # 7 visits in hour 0: published
    + [("20095", 60 * i) for i in range(3)]  # 3 visits in hour 0: withheld
    + [("20095", HOUR + 60 * i) for i in range(5)]
)  # 5 visits in hour 1: published


def build(p, visits=VISITS):
    return (
        p
        | "Visits" >> beam.Create([TimestampedValue((zip_code, 1), t) for zip_code, t in visits])
        | "Hourly"
        >> beam.WindowInto(
            FixedWindows(HOUR),
            trigger=All(EventTimeTrigger.afterEndOfWindow(), CountTrigger.atLeast(K)),
        )
        | "Count" >> beam.CombinePerKey(sum)
    )


def run(visits=VISITS, runner=None, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    out = materialize(build(p, visits))
    result = p.run()
    published = sorted(
        (zip_code, int(wv.windows[0].start) // HOUR, count)
        for wv in out.windowed_values
        for zip_code, count in [wv.value]
    )
    return published, result.metrics().counter("purged_unfired")


if __name__ == "__main__":
    published, withheld = run(options=PipelineOptions())
    for zip_code, hour, count in published:
        print(f"zip {zip_code} hour {hour}: {count} visits")
    print(f"{withheld} visits withheld (fewer than {K} in their window)")
