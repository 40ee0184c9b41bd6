"""panes' runners as Beam ``PipelineRunner``s: ``--runner=panes.runners.beam.DirectRunner`` or
``--runner=panes.runners.beam.SparkRunner`` (``--streaming``: Structured Streaming) run a Beam
pipeline unchanged. The pipeline is translated into panes' IR (``translate``), checked, and
run by panes' runner of that name."""

from __future__ import annotations

from apache_beam.runners import runner as beam_runner

from panes.compiler.validate import validate
from panes.runners import create_runner
from panes.runners.beam.options import panes_options
from panes.runners.beam.result import PipelineResult, beam_errors
from panes.runners.beam.translate import translate


class _PanesRunner(beam_runner.PipelineRunner):
    """Runs a Beam pipeline on panes' runner ``name``."""

    name = ""

    def run_pipeline(self, pipeline, options) -> PipelineResult:
        # Beam judged the pipeline's triggers when it built it (--allow_unsafe_triggers).
        ir = validate(translate(pipeline), allow_unsafe_triggers=True)
        with beam_errors():
            result = create_runner(self.name).run_pipeline(ir, panes_options(options))
        return PipelineResult(result)


class DirectRunner(_PanesRunner):
    """panes' direct runner: in-process, the reference for every other runner's output."""

    name = "direct"


class SparkRunner(_PanesRunner):
    """panes' Spark runner: batch with exact trigger semantics, or ``--streaming`` as a Spark
    Structured Streaming query; ``--spark_master`` names the cluster."""

    name = "spark"
