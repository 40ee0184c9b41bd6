"""What the streaming runner refuses before it starts anything, with an error that names the
transform and the way out: among it what would wait for good on unbounded input."""

import sys
from pathlib import Path

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.io.base import Sink, Write
from panes.io.text import ReadFromText
from panes.runners.spark.streaming.runner import check_groupings
from panes.trigger import AccumulationMode, AfterProcessingTime, Repeatedly
from panes.window import GlobalWindows

sys.path.insert(0, str(Path(__file__).parent))
import streaming_files_pipeline as files_pipeline  # noqa: E402


def _streaming():
    return beam.Pipeline(runner="spark", options={"streaming": True})


def test_a_streaming_file_sink_needs_a_checkpoint_location(tmp_path):
    p = _streaming()
    files_pipeline.build(p, str(tmp_path), str(tmp_path / "out"))
    with pytest.raises(PipelineConstructionError, match="--checkpoint_location"):
        p.run()


def test_an_event_log_and_an_unbounded_source_do_not_mix(tmp_path):
    p = _streaming()
    (
        (p | "Files" >> ReadFromText(str(tmp_path / "*.txt")), p | "Log" >> beam.Create(["x"]))
        | beam.Flatten()
    )
    with pytest.raises(PipelineConstructionError, match="Files against Log"):
        p.run()


class ListSink(Sink):
    def write_records(self, records):
        return []


def test_a_sink_that_cannot_publish_exactly_once_is_refused():
    p = _streaming()
    p | beam.Create([1]) | "Keep" >> Write(ListSink())
    with pytest.raises(PipelineConstructionError, match="'Keep' writes to ListSink"):
        p.run()


@pytest.mark.parametrize(
    "windowing",
    [beam.WindowInto(GlobalWindows()), None],
    ids=["global window", "no windowing"],
)
def test_a_grouping_that_would_never_fire_on_unbounded_input_is_refused(tmp_path, windowing):
    """As Beam refuses a GroupByKey of an unbounded PCollection in the global window with
    the default trigger: Beam's word count, its file read watched under --streaming."""
    p = _streaming()
    words = p | ReadFromText(str(tmp_path / "*.txt")) | beam.Map(lambda word: (word, 1))
    if windowing is not None:
        words = words | windowing
    words | "Count" >> beam.CombinePerKey(sum)
    with pytest.raises(PipelineConstructionError) as refused:
        p.run()
    assert str(refused.value).startswith(
        "'Count' groups unbounded input in the global window with the default trigger"
    )
    assert "or run in batch, without --streaming" in str(refused.value)


def test_a_grouping_in_the_global_window_with_a_trigger_is_not_refused(tmp_path):
    p = _streaming()
    (
        p
        | ReadFromText(str(tmp_path / "*.txt"))
        | beam.Map(lambda word: (word, 1))
        | beam.WindowInto(
            GlobalWindows(),
            trigger=Repeatedly(AfterProcessingTime(10)),
            accumulation_mode=AccumulationMode.DISCARDING,
        )
        | "Count" >> beam.CombinePerKey(sum)
    )
    check_groupings(p.to_ir())


def test_allow_unsafe_triggers_lets_such_a_grouping_run_with_a_warning(tmp_path, caplog):
    p = beam.Pipeline(runner="spark", options={"streaming": True, "allow_unsafe_triggers": True})
    (
        p
        | ReadFromText(str(tmp_path / "*.txt"))
        | beam.Map(lambda w: (w, 1))
        | "Count" >> (beam.CombinePerKey(sum))
    )
    check_groupings(p.to_ir(), allow_unsafe_triggers=True)
    assert "'Count' groups unbounded input in the global window" in caplog.text
    assert "allowed by --allow_unsafe_triggers" in caplog.text
