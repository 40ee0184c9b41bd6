"""Beam's trigger transcripts (``apache_beam/testing/data/trigger_transcripts.yaml``, read from
the installed package as ``tests/beam_files.py`` checks it), run two ways: against the bare
windowing engine step by step (the harness of Beam's ``trigger_test.py``: every ``expect``
right after its action), and as TestStream pipelines on every runner (all panes emitted before
the end of input, matched against all ``expect``s).

Times in transcripts are seconds; windows are ``[start, int(max_timestamp)]``. The harness
defaults to accumulating mode, as Beam's does. Transcripts with an ``error`` are negative
self-tests: the harness must reject them. ``broken_on: SwitchingDirectRunner`` entries mark Beam
Python's DirectRunner deviations from Java; panes follows Java and passes them.
"""

from __future__ import annotations

import re

import pytest
import yaml
from beam_files import beam_file
from runners_under_test import RUNNERS
from stepper import Stepper

import panes as beam
from panes import trigger as trigger_module
from panes import window as window_module
from panes.runners.eventlog import END_STEP
from panes.testing import TestStream, materialize
from panes.timestamp import MICROS_PER_SECOND
from panes.transforms.core import Windowing
from panes.trigger import AccumulationMode
from panes.window import (
    AssignContext,
    FixedWindows,
    TimestampCombiner,
    TimestampedValue,
    WindowedValue,
)
from panes.windowing.engine import MAIN
from panes.windowing.strategy import windowing_to_ir

KEY = "key"

# Transcripts panes cannot run, with the reason.
UNSUPPORTED = {
    "OUTPUT_AT_EARLIEST_TRANSFORMED": "Beam's deprecated custom output-time hook is not in panes",
}


def _load():
    with open(beam_file("testing/data/trigger_transcripts.yaml"), encoding="utf-8") as f:
        return [spec for spec in yaml.safe_load_all(f) if spec]


def _names(module, extra):
    names = {name: getattr(module, name) for name in dir(module) if not name.startswith("_")}
    names.update(extra)
    return names


WINDOW_FNS = _names(
    window_module,
    {
        # The custom timestamping hook is not invoked for these combiners: plain fixed windows.
        "CustomTimestampingFixedWindowsWindowFn": FixedWindows,
    },
)
TRIGGERS = _names(trigger_module, {"Default": trigger_module.DefaultTrigger})


def _parse(text: str, names: dict):
    """Parses ``Foo(arg, kw=arg)`` (recursively) and integer lists, as Beam's harness does."""
    text = text.strip()
    if text in names:
        return names[text]
    if text.startswith("["):
        return [int(x) for x in text[1:-1].split(",") if x.strip()]
    if "(" in text:
        callee = _parse(text[: text.index("(")], names)
        args, kwargs = [], {}
        for arg in _split_args(text[text.index("(") + 1 : -1]):
            if re.match(r"^\w+=", arg):
                name, value = arg.split("=", 1)
                kwargs[name] = _parse(value, names)
            elif arg:
                args.append(_parse(arg, names))
        return callee(*args, **kwargs)
    return int(text)


def _split_args(text: str) -> list:
    args, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
    args.append(text[start:].strip())
    return args


def _instance(value):
    return value() if isinstance(value, type) else value


def _windowing(spec) -> Windowing:
    return Windowing(
        window_fn=_instance(_parse(spec.get("window_fn", "GlobalWindows"), WINDOW_FNS)),
        trigger=_instance(_parse(spec.get("trigger_fn", "Default"), TRIGGERS)),
        accumulation_mode=AccumulationMode[spec.get("accumulation_mode", "accumulating").upper()],
        timestamp_combiner=TimestampCombiner[spec.get("timestamp_combiner", "OUTPUT_AT_EOW")],
        allowed_lateness=spec.get("allowed_lateness", 0),
    )


def _seconds(micros: int) -> int:
    return int(micros / MICROS_PER_SECOND)


def _info(wv) -> dict:
    (window,) = wv.windows
    return {
        "window": [_seconds(window.start_micros), _seconds(window.max_timestamp_micros)],
        "values": sorted(wv.value[1]),
        "timestamp": _seconds(wv.timestamp_micros),
        "index": wv.pane_info.index,
        "nonspeculative_index": wv.pane_info.nonspeculative_index,
        "early": wv.pane_info.timing.value == "EARLY",
        "late": wv.pane_info.timing.value == "LATE",
        "final": wv.pane_info.is_last,
    }


def run_transcript(spec) -> None:
    """Drives one transcript; raises AssertionError on a mismatch (Beam's messages)."""
    windowing = _windowing(spec)
    grouping = Stepper(windowing_to_ir(windowing))
    output: list = []
    for line in spec["transcript"]:
        ((action, params),) = line.items()
        if action != "expect":
            assert not output, f"Unexpected output: {output} before {action}: {params}"
        if action == "input":
            bundle = []
            for seconds in params:
                windows = windowing.window_fn.assign(AssignContext(seconds, seconds))
                bundle.append((KEY, WindowedValue(seconds, seconds, windows)))
            output = [_info(wv) for tag, wv in grouping.step(bundle) if tag == MAIN]
        elif action == "watermark":
            output += [
                _info(wv)
                for tag, wv in grouping.step(watermark=params * MICROS_PER_SECOND)
                if tag == MAIN
            ]
        elif action == "expect":
            for expected in params:
                match = next(
                    (c for c in output if all(c[k] == expected[k] for k in c if k in expected)),
                    None,
                )
                assert match is not None, f"Unmatched output {expected} in {output}"
                output.remove(match)
        # ``state`` lines are not checked: Beam's harness leaves them as a TODO, and this one
        # (garbage_collection) lists [0, 9] absent but [10, 19] as a tombstone although both
        # windows fired and closed alike.
    assert not output, f"Unexpected output: {output}"


SPECS = [spec for spec in _load() if spec.get("timestamp_combiner") not in UNSUPPORTED]


def test_only_the_unsupported_combiner_is_left_out():
    left_out = [spec for spec in _load() if spec not in SPECS]
    assert [spec["timestamp_combiner"] for spec in left_out] == ["OUTPUT_AT_EARLIEST_TRANSFORMED"]


@pytest.mark.parametrize("spec", SPECS, ids=[s["name"] for s in SPECS])
def test_transcript(spec):
    if "error" in spec:
        with pytest.raises(AssertionError, match=spec["error"]):
            run_transcript(spec)
    else:
        run_transcript(spec)


def run_transcript_pipeline(spec, runner) -> None:
    """The transcript as one pipeline: inputs and watermarks become a TestStream; every pane
    emitted before the end of input must match one ``expect`` entry, and each entry one pane."""
    windowing = _windowing(spec)
    stream, expected = TestStream(), []
    for line in spec["transcript"]:
        ((action, params),) = line.items()
        if action == "input":
            stream = stream.add_elements([TimestampedValue((KEY, t), t) for t in params])
        elif action == "watermark":
            stream = stream.advance_watermark_to(params)
        elif action == "expect":
            expected += params
    p = beam.Pipeline(runner=runner, options={"allow_unsafe_triggers": True})
    panes = materialize(
        p
        | stream
        | beam.WindowInto(
            windowing.window_fn,
            trigger=windowing.trigger,
            accumulation_mode=windowing.accumulation_mode,
            timestamp_combiner=windowing.timestamp_combiner,
            allowed_lateness=windowing.allowed_lateness,
        )
        | beam.GroupByKey()
    )
    p.run()
    output = [_info(wv) for wv, step in zip(panes.windowed_values, panes.steps) if step < END_STEP]
    for entry in expected:
        match = next((c for c in output if all(c[k] == entry[k] for k in c if k in entry)), None)
        assert match is not None, f"Unmatched output {entry} in {output}"
        output.remove(match)
    assert not output, f"Unexpected output: {output}"


PIPELINE_SPECS = [s for s in SPECS if "error" not in s]


@pytest.mark.parametrize("runner_name", RUNNERS)
@pytest.mark.parametrize("spec", PIPELINE_SPECS, ids=[s["name"] for s in PIPELINE_SPECS])
def test_transcript_as_a_pipeline(spec, runner_name, request):
    if runner_name == "spark":
        request.getfixturevalue("spark")
    run_transcript_pipeline(spec, runner_name)
