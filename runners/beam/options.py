"""panes' options on Beam's command line: ``PanesOptions`` registers the Spark runner's flags
with Beam's ``PipelineOptions`` (so ``--spark_master=spark://host:7077`` parses where a Beam
pipeline parses its flags), and ``panes_options`` hands them to panes' runners."""

from __future__ import annotations

from apache_beam.options import pipeline_options as beam_options

from panes.options.pipeline_options import PipelineOptions, add_spark_arguments

# panes' options read from Beam's, by the Beam options class that defines each.
_FROM_BEAM = {
    beam_options.StandardOptions: ("streaming",),
    beam_options.GoogleCloudOptions: ("job_name",),
    beam_options.WorkerOptions: (
        "default_sdk_harness_log_level",
        "sdk_harness_log_level_overrides",
    ),
}


class PanesOptions(beam_options.PipelineOptions):
    """The Spark runner's options: ``--spark_master``, ``--spark_partitions``,
    ``--spark_conf name=value``, ``--spark_log_level``, and for ``--streaming``
    ``--checkpoint_location``, ``--trigger_interval`` and ``--max_files_per_trigger``
    (docs/spark.md, docs/streaming.md)."""

    @classmethod
    def _add_argparse_args(cls, parser):
        add_spark_arguments(parser)


def panes_options(options: beam_options.PipelineOptions) -> PipelineOptions:
    """panes' options for a run of a Beam pipeline with Beam's ``options``."""
    values = options.view_as(PanesOptions).get_all_options(current_only=True)
    for view, names in _FROM_BEAM.items():
        values.update({name: getattr(options.view_as(view), name) for name in names})
    return PipelineOptions([], **values)
