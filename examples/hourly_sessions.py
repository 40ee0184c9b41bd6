"""Sessionized user activity, a production batch job: gzipped JSON-lines logs in, one Parquet
row per user session out, with the hour the session started.

Each input line is an event such as
``{"user": "u17", "time": "2026-11-24T10:15:03Z", "action": "view", "bytes": 5120}``. Events
of a user closer than ``--gap_minutes`` apart form a session (``Sessions``); a session's row
holds its user, start and end, the hour it started, its event and distinct action counts and
its bytes. Lines that are not such events are counted and written, as they were, to
``<output>-rejected-*`` instead of failing the job.

    python examples/hourly_sessions.py --input 'logs/*.json.gz' --output out/sessions
    python examples/hourly_sessions.py --runner spark --spark_master spark://host:7077 \\
        --input 'hdfs:///logs/2026-11-24/*.json.gz' --output 's3a://bucket/sessions/2026-11-24'

On Spark the executors read the logs and write the Parquet shards; the driver only plans,
lists the files and publishes the shards (``<output>.SUCCESS`` last).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json

import pyarrow as pa

import panes as beam
from panes.metrics import Metrics
from panes.options.pipeline_options import PipelineOptions
from panes.window import Sessions, TimestampedValue

SCHEMA = pa.schema(
    [
        ("user", pa.string()),
        ("hour", pa.string()),
        ("start", pa.timestamp("us", tz="UTC")),
        ("end", pa.timestamp("us", tz="UTC")),
        ("events", pa.int64()),
        ("actions", pa.int64()),
        ("bytes", pa.int64()),
    ]
)


class ParseEvent(beam.DoFn):
    """A log line as ``(user, (action, bytes))`` at the event's time; any other line goes to
    the ``rejected`` output, counted."""

    def process(self, line):
        try:
            event = json.loads(line)
            time = dt.datetime.fromisoformat(event["time"].replace("Z", "+00:00"))
            yield TimestampedValue(
                (str(event["user"]), (event["action"], int(event["bytes"]))), time
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            Metrics.counter("hourly_sessions", "rejected_lines").inc()
            yield beam.TaggedOutput("rejected", line)


class SessionTotals(beam.CombineFn):
    """Events, distinct actions and bytes of a session."""

    def create_accumulator(self):
        return 0, set(), 0

    def add_input(self, totals, event):
        events, actions, size = totals
        action, bytes_ = event
        actions.add(action)
        return events + 1, actions, size + bytes_

    def merge_accumulators(self, accumulators):
        events, actions, size = 0, set(), 0
        for more_events, more_actions, more_size in accumulators:
            events, size = events + more_events, size + more_size
            actions |= more_actions
        return events, actions, size

    def extract_output(self, totals):
        events, actions, size = totals
        return events, len(actions), size


def session_row(user_totals, window=beam.DoFn.WindowParam):
    """The session's Parquet row: its window is the session."""
    user, (events, actions, size) = user_totals
    start, end = window.start.to_utc_datetime(has_tz=True), window.end.to_utc_datetime(has_tz=True)
    return {
        "user": user,
        "hour": start.strftime("%Y-%m-%dT%H:00"),
        "start": start,
        "end": end,
        "events": events,
        "actions": actions,
        "bytes": size,
    }


def build(p, input_pattern: str, output: str, gap_minutes: float = 30):
    parsed = (
        p
        | "ReadLogs" >> beam.io.ReadFromText(input_pattern)
        | "Parse" >> beam.ParDo(ParseEvent()).with_outputs("rejected", main="events")
    )
    sessions = (
        parsed.events
        | "Sessions" >> beam.WindowInto(Sessions(gap_minutes * 60))
        | "Totals" >> beam.CombinePerKey(SessionTotals())
        | "Rows" >> beam.Map(session_row)
    )
    sessions | "WriteSessions" >> beam.io.WriteToParquet(output, SCHEMA, codec="snappy")
    parsed.rejected | "WriteRejected" >> beam.io.WriteToText(output + "-rejected", ".txt")
    return sessions


def main(argv=None):
    """Its own flags, and pipeline options (``--runner``, ``--spark_master``, ...) from the
    rest, as Beam's examples take them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", required=True, help="path or pattern of the logs (any URI)")
    parser.add_argument("--output", required=True, help="prefix of the Parquet shards")
    parser.add_argument("--gap_minutes", type=float, default=30)
    args, pipeline_args = parser.parse_known_args(argv)
    p = beam.Pipeline(options=PipelineOptions(pipeline_args))
    build(p, args.input, args.output, args.gap_minutes)
    result = p.run()
    rejected = result.metrics().counter("rejected_lines")
    print(f"wrote {args.output}-*.parquet; {rejected} line(s) rejected")


if __name__ == "__main__":
    main()
