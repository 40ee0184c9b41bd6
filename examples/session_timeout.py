"""User sessions closed by a timeout, with state and timers: a user's session ends once 10
minutes of event time pass without an event of theirs.

Each input line is an event ``user,seconds``. Per user, a stateful DoFn keeps the events not yet
in a closed session in an ordered list (events may come out of order) and sets an event-time
timer at the end of the first open session: its last event + the timeout. When the watermark
passes it, the session is closed and written as ``user start end events``; the timer then moves
to the next session's end. The sessions are those of ``Sessions(timeout)`` windows, found here
as they close.

    python examples/session_timeout.py --input 'events/*.csv' --output out/sessions
    python examples/session_timeout.py --runner spark --input ... --output ...

With ``--runner spark --streaming`` the input is a directory new files arrive in, read under a
watermark 1 minute behind the latest event.
"""

from __future__ import annotations

import argparse

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.options.pipeline_options import PipelineOptions
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import OrderedListStateSpec, TimerSpec, on_timer
from panes.watermark import WatermarkStrategy
from panes.window import TimestampedValue

TIMEOUT = 10 * 60
EVENTS = OrderedListStateSpec("events")
SESSION_END = TimerSpec("session_end", TimeDomain.WATERMARK)


def parse(line: str):
    user, seconds = line.split(",")
    return user, float(seconds)


def sessions(times: list) -> list:
    """Consecutive runs of ``times`` (sorted) with gaps under the timeout."""
    runs: list = []
    for time in times:
        if runs and time < runs[-1][-1] + TIMEOUT:
            runs[-1].append(time)
        else:
            runs.append([time])
    return runs


class CloseSessionsOnTimeout(beam.DoFn):
    """Keeps a user's open events; closes each session when the watermark passes its end."""

    def process(
        self,
        element,
        timestamp=beam.DoFn.TimestampParam,
        events=beam.DoFn.StateParam(EVENTS),
        session_end=beam.DoFn.TimerParam(SESSION_END),
    ):
        events.add((timestamp, element[1]))
        first = sessions([time for _, time in events.read()])[0]
        session_end.set(first[-1] + TIMEOUT)

    @on_timer(SESSION_END)
    def close(
        self,
        user=beam.DoFn.KeyParam,
        now=beam.DoFn.TimestampParam,
        events=beam.DoFn.StateParam(EVENTS),
        session_end=beam.DoFn.TimerParam(SESSION_END),
    ):
        open_sessions = sessions([time for _, time in events.read()])
        for session in open_sessions:
            end = session[-1] + TIMEOUT
            if end > now:
                session_end.set(end)  # the next session is still open
                return
            events.clear_range(session[0], end)
            yield f"{user} {session[0]:g} {end:g} {len(session)}"


def build(p, input_pattern: str, output_prefix: str, streaming: bool = False):
    read = ReadFromText(input_pattern)
    if streaming:
        read = read.with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(60),
            timestamp_fn=lambda line: parse(line)[1],
        )
    events = p | "Events" >> read | "Parse" >> beam.Map(parse)
    if not streaming:
        events = events | "Stamp" >> beam.Map(lambda event: TimestampedValue(event, event[1]))
    return (
        events
        | "CloseSessions" >> beam.ParDo(CloseSessionsOnTimeout())
        | "Write" >> WriteToText(output_prefix)
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    known, pipeline_args = parser.parse_known_args(argv)
    options = PipelineOptions(pipeline_args)
    with beam.Pipeline(options=options) as p:
        build(p, known.input, known.output, streaming=bool(options.streaming))


if __name__ == "__main__":
    main()
