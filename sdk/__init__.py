"""panes: Beam-style windowed pipelines, run in-process or on Apache Spark.

Port a Beam pipeline by changing ``import apache_beam as beam`` to ``import panes as beam``.
"""

from panes import io, testing, trigger, window
from panes.metrics import Metrics
from panes.options import PipelineOptions
from panes.pipeline import Pipeline
from panes.runners.runner import PipelineResult, PipelineState
from panes.pvalue import AsDict, AsIter, AsList, AsSingleton, PCollection, TaggedOutput
from panes.transforms import combiners
from panes.transforms.combinefn import CombineFn
from panes.transforms.core import (
    CombineGlobally, CombinePerKey, CombineValues, Create, Filter, FlatMap, Flatten, GroupByKey,
    Map, MapTuple, ParDo, Partition, Reshuffle, WindowInto,
)
from panes.transforms.dofn import DoFn
from panes.transforms.group_by import GroupBy
from panes.transforms.ptransform import PTransform
from panes.transforms.timestamps import WithTimestampField
from panes.transforms.util import Distinct, Keys, KvSwap, Values, WithKeys

__version__ = "0.1.0"
