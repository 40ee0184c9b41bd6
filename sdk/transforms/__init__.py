"""Transforms: the primitives, the core composites and the combiners (Beam's
``apache_beam.transforms``)."""

from panes.transforms import combiners, trigger, window
from panes.transforms.combinefn import CombineFn
from panes.transforms.core import (
    CombineGlobally,
    CombinePerKey,
    CombineValues,
    Create,
    Filter,
    FlatMap,
    FlatMapTuple,
    Flatten,
    GroupByKey,
    Map,
    MapTuple,
    ParDo,
    Partition,
    Reshuffle,
    WindowInto,
)
from panes.transforms.dofn import DoFn
from panes.transforms.group_by import GroupBy
from panes.transforms.ptransform import PTransform, ptransform_fn
from panes.transforms.timestamps import WithTimestampField
from panes.transforms.util import (
    CoGroupByKey,
    Distinct,
    GroupIntoBatches,
    Keys,
    KvSwap,
    Regex,
    ToString,
    Values,
    WithKeys,
)

# What ``panes`` itself exports, as ``apache_beam`` exports ``apache_beam.transforms``'s names.
__all__ = [
    "CoGroupByKey",
    "CombineFn",
    "CombineGlobally",
    "CombinePerKey",
    "CombineValues",
    "Create",
    "Distinct",
    "DoFn",
    "Filter",
    "FlatMap",
    "FlatMapTuple",
    "Flatten",
    "GroupBy",
    "GroupByKey",
    "GroupIntoBatches",
    "Keys",
    "KvSwap",
    "Map",
    "MapTuple",
    "PTransform",
    "ParDo",
    "Partition",
    "Regex",
    "Reshuffle",
    "ToString",
    "Values",
    "WindowInto",
    "WithKeys",
    "WithTimestampField",
    "combiners",
    "ptransform_fn",
]
