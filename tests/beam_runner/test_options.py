"""panes' Spark options on Beam's command line: registered with Beam's PipelineOptions, and
handed to panes' runners."""

import pytest

beam_options = pytest.importorskip(
    "apache_beam.options.pipeline_options",
    reason="Beam's pipelines need apache-beam: pip install 'panes[beam]'",
)

from panes.runners.beam import PanesOptions  # noqa: E402
from panes.runners.beam.options import panes_options  # noqa: E402


def test_the_spark_options_parse_on_beams_command_line():
    options = beam_options.PipelineOptions(
        [
            "--runner=panes.runners.beam.SparkRunner",
            "--spark_master=spark://host:7077",
            "--spark_partitions=8",
            "--spark_conf",
            "spark.executor.memory=4g",
            "--spark_conf=spark.ui.enabled=false",
            "--streaming",
            "--checkpoint_location=/data/checkpoints",
            "--trigger_interval=10",
            "--job_name=scores",
            "--default_sdk_harness_log_level=WARNING",
            '--sdk_harness_log_level_overrides={"my.module": "DEBUG"}',
        ]
    )
    assert options.view_as(PanesOptions).spark_master == "spark://host:7077"
    assert options.get_all_options()["spark_partitions"] == 8  # known to Beam's parser
    panes = panes_options(options)
    assert (panes.spark_master, panes.spark_partitions) == ("spark://host:7077", 8)
    assert panes.spark_conf == {"spark.executor.memory": "4g", "spark.ui.enabled": "false"}
    assert (panes.streaming, panes.checkpoint_location) == (True, "/data/checkpoints")
    assert (panes.trigger_interval, panes.job_name) == ("10", "scores")
    assert panes.default_sdk_harness_log_level == "WARNING"  # Beam's own flags, for the workers
    assert panes.sdk_harness_log_level_overrides == {"my.module": "DEBUG"}


def test_without_flags_the_defaults_are_panes_own():
    panes = panes_options(beam_options.PipelineOptions([]))
    assert (panes.spark_master, panes.spark_partitions, panes.streaming) == (None, None, False)
    assert panes.spark_session is None
