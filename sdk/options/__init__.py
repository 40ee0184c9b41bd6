"""Pipeline options, as Beam's ``apache_beam.options``."""

from panes.options.pipeline_options import (
    DebugOptions,
    DirectOptions,
    GoogleCloudOptions,
    PipelineOptions,
    SetupOptions,
    SparkRunnerOptions,
    StandardOptions,
    TestOptions,
    TypeOptions,
    WorkerOptions,
)
