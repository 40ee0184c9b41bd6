"""A team leaderboard over a stream of game events, on Spark Structured Streaming.

Events arrive as CSV files (``user,team,score,seconds``) in a directory. Each team's score is
summed in hourly event-time windows: an early pane every 3 events while the hour is open, the
on-time pane when the watermark (the latest event time seen minus 5 minutes) passes the end of
the hour, and a late pane for each straggler up to 2 hours late; later ones are dropped and
counted. Panes accumulate, so each one is the team's total so far. Every pane becomes one line
``team [start,end) TIMING index total`` in files published exactly once per micro-batch.

    python examples/streaming_leaderboard.py --input events/ --output scores/panes \\
        --checkpoint_location checkpoints/leaderboard [--trigger_interval=available_now]

Stop it with Ctrl-C; started again with the same checkpoint it resumes where it stopped.
"""

from __future__ import annotations

import argparse
import os

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows

HOUR, MINUTE = 3600, 60


def event_time(line: str) -> int:
    return int(line.split(",")[3])


def team_score(line: str):
    _, team, score, _ = line.split(",")
    return team, int(score)


class DescribePane(beam.DoFn):
    def process(self, team_total, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam):
        team, total = team_total
        start, end = int(window.start), int(window.end)
        yield f"{team} [{start},{end}) {pane.timing.value} {pane.index} {total}"


def build(p, input_directory: str, output_prefix: str):
    events = p | "Events" >> ReadFromText(os.path.join(input_directory, "*.csv")).with_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(5 * MINUTE), timestamp_fn=event_time
    )
    return (
        events
        | "TeamScore" >> beam.Map(team_score)
        | "Hourly"
        >> beam.WindowInto(
            FixedWindows(HOUR),
            trigger=AfterWatermark(early=AfterCount(3), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=2 * HOUR,
        )
        | "Total" >> beam.CombinePerKey(sum)
        | "Describe" >> beam.ParDo(DescribePane())
        | "Publish" >> WriteToText(output_prefix)
    )


def run(input_directory: str, output_prefix: str, pipeline_args: list):
    options = beam.PipelineOptions(
        ["--runner=spark", "--streaming", "--max_files_per_trigger=1", *pipeline_args]
    )
    p = beam.Pipeline(options=options)
    build(p, input_directory, output_prefix)
    result = p.run()
    try:
        result.wait_until_finish()
    except KeyboardInterrupt:
        result.cancel()
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, help="directory the event files arrive in")
    parser.add_argument("--output", required=True, help="prefix of the published pane files")
    known, rest = parser.parse_known_args()
    run(known.input, known.output, rest)
