"""What the streaming runner refuses before it starts anything, with an error that names the
transform and the way out."""

import sys
from pathlib import Path

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.io.base import Sink, Write
from panes.io.text import ReadFromText

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
