"""Runs a conformance scenario on Apache Beam's own DirectRunner and returns its panes as the
harness's canonical rows: Beam is a third oracle wherever it defines the behaviour."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.testing.test_stream import TestStream
from apache_beam.transforms import trigger as beam_trigger
from apache_beam.transforms import userstate
from apache_beam.transforms import window as beam_window
from apache_beam.transforms.combiners import CountCombineFn, MeanCombineFn
from apache_beam.transforms.timeutil import TimeDomain
from apache_beam.utils.timestamp import Duration
from combine_fns import combine_fns
from harness import row
from stateful_dofns import dofns

NAMES = {
    **{
        n: getattr(m, n)
        for m in (beam_window, beam_trigger)
        for n in dir(m)
        if not n.startswith("_")
    }
}
COMBINERS = {
    "end_of_window": beam_window.TimestampCombiner.OUTPUT_AT_EOW,
    "earliest": beam_window.TimestampCombiner.OUTPUT_AT_EARLIEST,
    "latest": beam_window.TimestampCombiner.OUTPUT_AT_LATEST,
}
AGGREGATES = {
    "sum": sum,
    "count": CountCombineFn(),
    "mean": MeanCombineFn(),
    **combine_fns(beam),
}
STATEFUL = dofns(beam, userstate, TimeDomain)
_collected: dict = {}


class _Pane:
    """Adapts a Beam output to what ``harness.row`` reads."""

    def __init__(self, value, timestamp, window, pane):
        self.value = value
        self.timestamp_micros = timestamp.micros  # Beam's ends of time are panes' too
        self.windows = (_window(window),)
        self.pane_info = _PaneInfo(pane)


class _PaneInfo:
    def __init__(self, pane):
        self.is_first, self.is_last = pane.is_first, pane.is_last
        self.index, self.nonspeculative_index = pane.index, pane.nonspeculative_index
        self.timing = type(
            "Timing",
            (),
            {"value": {0: "EARLY", 1: "ON_TIME", 2: "LATE"}.get(pane.timing, "UNKNOWN")},
        )


def _window(window):
    from panes.window import GLOBAL_WINDOW, interval_window

    if isinstance(window, beam_window.GlobalWindow):
        return GLOBAL_WINDOW
    return interval_window((window.start.micros, window.end.micros))


class _Collect(beam.DoFn):
    def __init__(self, key):
        self.key = key

    def process(
        self,
        element,
        timestamp=beam.DoFn.TimestampParam,
        window=beam.DoFn.WindowParam,
        pane=beam.DoFn.PaneInfoParam,
    ):
        key, value = element
        value = sorted(value) if isinstance(value, list) else value
        _collected.setdefault(self.key, []).append(
            row(_Pane((key, value), timestamp, window, pane))
        )


def _stream(events):
    stream = TestStream()
    for event in events:
        ((kind, data),) = event.items()
        if kind == "add":
            stream = stream.add_elements(
                [beam_window.TimestampedValue((k, v), t[0]) if t else (k, v) for k, v, *t in data]
            )
        elif kind == "watermark":
            stream = stream.advance_watermark_to(data)
        elif kind == "clock":
            stream = stream.advance_processing_time(data)
        elif kind == "infinity":
            stream = stream.advance_watermark_to_infinity()
    return stream.advance_watermark_to_infinity()


def _evaluate(expression):
    """A Beam window function or trigger from its expression in a scenario."""
    return eval(expression, {"__builtins__": {}}, NAMES)


def run_on_beam(scenario: dict) -> list[str]:
    key = scenario["name"]
    _collected.pop(key, None)
    flags = ["--streaming"] + (["--allow_unsafe_triggers"] if scenario.get("allow_unsafe") else [])
    options = beam.options.pipeline_options.PipelineOptions(flags)
    trigger = scenario.get("trigger")
    with beam.Pipeline(runner="DirectRunner", options=options) as p:
        elements = p | _stream(scenario["events"])
        if "rewindow_from" in scenario:
            elements |= "FirstWindows" >> beam.WindowInto(_evaluate(scenario["rewindow_from"]))
        windowed = elements | beam.WindowInto(
            _evaluate(scenario.get("window", "GlobalWindows()")),
            trigger=_evaluate(trigger) if trigger else None,
            accumulation_mode=getattr(
                beam_trigger.AccumulationMode, scenario.get("accumulation", "discarding").upper()
            ),
            timestamp_combiner=COMBINERS[scenario.get("combiner", "end_of_window")],
            allowed_lateness=Duration(seconds=scenario.get("lateness", 0)),
        )
        aggregate = scenario.get("aggregate", "list")
        if "stateful" in scenario:
            grouping = beam.ParDo(STATEFUL[scenario["stateful"]]())
        elif aggregate == "list":
            grouping = beam.GroupByKey()
        else:
            grouping = beam.CombinePerKey(AGGREGATES[aggregate])
        grouped = windowed | grouping
        grouped | beam.ParDo(_Collect(key))
    return sorted(_collected.pop(key, []))
