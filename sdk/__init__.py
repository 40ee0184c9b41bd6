"""panes: Beam-style windowed pipelines, run in-process or on Apache Spark.

Beam's names and module paths: a Beam pipeline that uses only what panes has ports by
changing ``apache_beam`` to ``panes`` in its imports (see docs/porting.md).
"""

import panes.utils.windowed_value  # noqa: F401  (beam.utils.windowed_value, as in Beam)
from panes import (
    coders,
    io,
    metrics,
    options,
    pvalue,
    testing,
    transforms,
    trigger,
    typehints,
    utils,
    window,
)
from panes.metrics import Metrics
from panes.options import PipelineOptions
from panes.pipeline import Pipeline
from panes.pvalue import AsDict, AsIter, AsList, AsSingleton, PCollection, TaggedOutput
from panes.runners.runner import PipelineResult, PipelineState
from panes.transforms import *  # noqa: F403 - Beam exports its transforms at the top

__version__ = "0.1.0"
