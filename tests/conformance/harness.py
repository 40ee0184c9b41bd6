"""The conformance harness: builds a scenario's pipeline, runs it on a runner, and turns its
outputs into canonical rows that every runner (and Apache Beam) must reproduce.

A scenario (YAML) names its windowing as panes expressions — ``window: FixedWindows(10)``,
``trigger: AfterWatermark(early=AfterCount(2))``, ``evictor: CountEvictor(2)`` — and its input
as an event log of ``add`` (one bundle of ``[key, value, seconds]``, or ``[key, value]`` for a
plain element, which TestStream stamps with the current watermark), ``watermark`` (seconds),
``clock`` (advance processing time by seconds) and ``infinity``; or as a bounded ``source``
read record at a time under a ``watermark`` strategy. ``aggregate`` is ``list`` (GroupByKey,
values sorted), ``sum``, ``count`` or ``mean``; ``stateful`` names a stateful DoFn of
``stateful_dofns.py`` to run instead of a grouping. A ``then`` block adds a second grouping over
``(rekey, value)`` of the first one's outputs. ``rewindow_from`` windows the input by another
window function before ``window`` applies (re-windowing). ``before`` names a step of
``steps.py`` applied to the input before windowing, ``after`` one applied to the grouping's
main output (its outputs are the rows).

A row reads ``key: value [start, end) @timestamp TIMING index/nonspeculative first last`` with
times in seconds; ``late`` rows are elements sent to the late-data output.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import stateful_dofns
import yaml
from combine_fns import combine_fns
from runners_under_test import pipeline
from steps import step

import panes as beam
from panes import evictor as evictor_module
from panes import trigger as trigger_module
from panes import watermark as watermark_module
from panes import window as window_module
from panes.runners.eventlog import END_STEP
from panes.testing import TestStream, materialize
from panes.timestamp import GLOBAL_WINDOW_MAX_MICROS, MAX_MICROS, MIN_MICROS
from panes.transforms import userstate
from panes.transforms.combiners import CountFn, MeanFn
from panes.transforms.timeutil import TimeDomain
from panes.trigger import AccumulationMode
from panes.window import GlobalWindow, TimestampCombiner, TimestampedValue

HERE = Path(__file__).parent
S = 1_000_000


# -- test window functions a scenario can name ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EvenOddWindows(window_module.NonMergingWindowFn):
    """A custom window function: even seconds to [0, 1000), odd seconds to [1000, 2000)."""

    def assign(self, context):
        start = 0 if context.timestamp.seconds() % 2 == 0 else 1000
        return [window_module.IntervalWindow(start, start + 1000)]


@dataclasses.dataclass(frozen=True)
class TouchingSessions(window_module.WindowFn):
    """A custom merging window function: windows [t, t + 2s) merge when they overlap or touch."""

    def assign(self, context):
        return [window_module.IntervalWindow(context.timestamp, context.timestamp + 2)]

    def merge(self, merge_context):
        windows = sorted(merge_context.windows, key=lambda w: w.start)
        group = [windows[0]] if windows else []
        for window in windows[1:]:
            if window.start <= max(w.end for w in group):
                group.append(window)
                continue
            _merge(merge_context, group)
            group = [window]
        if group:
            _merge(merge_context, group)


def _merge(merge_context, group):
    if len(group) > 1:
        merge_context.merge(
            group,
            window_module.IntervalWindow(min(w.start for w in group), max(w.end for w in group)),
        )


NAMES = {
    **{
        n: getattr(m, n)
        for m in (window_module, trigger_module, evictor_module, watermark_module)
        for n in dir(m)
        if not n.startswith("_")
    },
    "EvenOddWindows": EvenOddWindows,
    "TouchingSessions": TouchingSessions,
}


def evaluate(expression):
    """A panes object from its expression in a scenario (window fn, trigger, evictor, ...)."""
    return None if expression is None else eval(str(expression), {"__builtins__": {}}, NAMES)


# -- scenarios ----------------------------------------------------------------------------------

AGGREGATES = {"sum": sum, "count": CountFn(), "mean": MeanFn(), **combine_fns(beam)}


def load_scenarios() -> list[dict]:
    scenarios = []
    for path in sorted((HERE / "scenarios").glob("*.yaml")):
        for scenario in yaml.safe_load(path.read_text()):
            scenario["file"] = path.stem
            scenarios.append(scenario)
    return scenarios


def scenario_id(scenario) -> str:
    return f"{scenario['file']}/{scenario['name']}"


def windowing(spec: dict) -> dict:
    """WindowInto's arguments from a scenario (or ``then`` block)."""
    combiner = spec.get("combiner")
    return {
        "windowfn": evaluate(spec.get("window", "GlobalWindows()")),
        "trigger": evaluate(spec.get("trigger")),
        "accumulation_mode": AccumulationMode[spec.get("accumulation", "discarding").upper()],
        "allowed_lateness": spec.get("lateness", 0),
        "timestamp_combiner": None
        if combiner is None
        else {
            "end_of_window": TimestampCombiner.OUTPUT_AT_EOW,
            "earliest": TimestampCombiner.OUTPUT_AT_EARLIEST,
            "latest": TimestampCombiner.OUTPUT_AT_LATEST,
        }[combiner],
        "evictor": evaluate(spec.get("evictor")),
        "allow_unsafe_triggers": bool(spec.get("allow_unsafe")),
    }


def test_stream(events: list, reverse_bundles=False, single_elements=False) -> TestStream:
    stream = TestStream()
    for event in events:
        ((kind, data),) = event.items()
        if kind == "add":
            elements = [TimestampedValue((k, v), t[0]) if t else (k, v) for k, v, *t in data]
            if reverse_bundles:
                elements.reverse()
            for bundle in [[e] for e in elements] if single_elements else [elements]:
                stream = stream.add_elements(bundle)
        elif kind == "watermark":
            stream = stream.advance_watermark_to(data)
        elif kind == "clock":
            stream = stream.advance_processing_time(data)
        elif kind == "infinity":
            stream = stream.advance_watermark_to_infinity()
        else:
            raise ValueError(f"unknown event {kind!r}")
    return stream


def _input(p, scenario, label, from_file=None, **variant):
    if "source" in scenario:
        source = scenario["source"]
        records = [tuple(r) for r in source["records"]]
        read = _read_from_file if from_file is not None else _create
        return read(p, source, records, label, from_file) | f"{label}Pairs" >> beam.Map(
            lambda r: TimestampedValue((r[0], r[1]), r[2])
        )
    return p | label >> test_stream(scenario["events"], **variant)


def _create(p, source, records, label, _):
    """The source's records created, read record at a time under its watermark strategy."""
    create = beam.Create(records)
    arrivals = source.get("arrivals")
    if "watermark" in source:
        arrival_of = dict(zip(records, arrivals)) if arrivals else None
        create = create.with_watermarks(
            evaluate(source["watermark"]),
            timestamp_fn=lambda r: r[2],
            arrival_fn=(lambda r: arrival_of[r]) if arrivals else None,
        )
    return p | label >> create


def _read_from_file(p, source, records, label, folder: Path):
    """The source's records as JSON lines in a file under ``folder``, read by ``ReadFromText``
    under the source's watermark strategy (on Spark, by Spark's reader, in place)."""
    path = folder / f"{label}.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    read = beam.io.ReadFromText(str(path)).with_watermarks(
        evaluate(source["watermark"]), timestamp_fn=lambda line: json.loads(line)[2]
    )
    return p | label >> read | f"{label}Records" >> beam.Map(lambda line: tuple(json.loads(line)))


STATEFUL = stateful_dofns.dofns(beam, userstate, TimeDomain)


def _grouping(spec):
    if "stateful" in spec:
        return beam.ParDo(STATEFUL[spec["stateful"]]())
    aggregate = spec.get("aggregate", "list")
    grouping = (
        beam.GroupByKey() if aggregate == "list" else beam.CombinePerKey(AGGREGATES[aggregate])
    )
    return grouping.with_late_output("late") if spec.get("late_output") else grouping


def run_scenario(scenario: dict, runner, **variant) -> dict:
    """Runs a scenario on ``runner``; returns canonical ``rows``, ``late`` rows, ``then`` rows and
    the windowing core's counters."""
    p = pipeline(runner)
    inputs = [_input(p, scenario, "Input", **variant)]
    if "events2" in scenario:
        inputs.append(_input(p, {"events": scenario["events2"]}, "Input2", **variant))
    elements = inputs[0] if len(inputs) == 1 else tuple(inputs) | beam.Flatten()
    if "before" in scenario:
        elements |= "Before" >> step(scenario["before"])
    if "rewindow_from" in scenario:
        elements |= "FirstWindows" >> beam.WindowInto(evaluate(scenario["rewindow_from"]))
    grouped = elements | beam.WindowInto(**windowing(scenario)) | "Group" >> _grouping(scenario)
    main = grouped.main if scenario.get("late_output") else grouped
    if "after" in scenario:
        main |= "After" >> step(scenario["after"])
    handles = {"rows": materialize(main, "Rows")}
    if scenario.get("late_output"):
        handles["late"] = materialize(grouped.late, "Late")
    if "then" in scenario:
        then = scenario["then"]
        rekey = then.get("rekey", "all")
        second = (
            main
            | "Rekey" >> beam.Map(lambda kv: (rekey, kv[1]))
            | "Rewindow" >> beam.WindowInto(**windowing(then))
            | "Regroup" >> _grouping(then)
        )
        handles["then"] = materialize(second, "Then")
    result = p.run()
    outcome = {
        name: sorted(row(wv, late=name == "late") for wv in handle.windowed_values)
        for name, handle in handles.items()
    }
    outcome["steps"] = handles["rows"].steps
    outcome["rows_before_end"] = sorted(
        row(wv)
        for wv, step in zip(handles["rows"].windowed_values, handles["rows"].steps)
        if step < END_STEP
    )
    outcome["counters"] = {
        name: result.metrics().counter(name)
        for name in ("dropped_late", "dropped_closed", "purged_unfired")
        if result.metrics().counter(name)
    }
    return outcome


# -- canonical rows -----------------------------------------------------------------------------


def seconds(micros: int) -> str:
    if micros <= MIN_MICROS:
        return "-inf"
    if micros >= GLOBAL_WINDOW_MAX_MICROS:
        return "end" if micros < MAX_MICROS else "+inf"
    return f"{micros / S:.6f}".rstrip("0").rstrip(".")


def window_text(window) -> str:
    if isinstance(window, GlobalWindow):
        return "global"
    return f"[{seconds(window.start_micros)}, {seconds(window.end_micros)})"


def value_text(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in sorted(value, key=repr)) + "]"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:g}"
    return str(value)


def row(wv, late=False) -> str:
    key, value = wv.value
    (window,) = wv.windows if len(wv.windows) == 1 else (wv.windows[0],)
    text = f"{key}: {value_text(value)} {window_text(window)} @{seconds(wv.timestamp_micros)}"
    if late:
        return text
    pane = wv.pane_info
    flags = "".join([" first" if pane.is_first else "", " last" if pane.is_last else ""])
    return f"{text} {pane.timing.value} {pane.index}/{pane.nonspeculative_index}{flags}"
