"""Transforms: the primitives, the core composites and the combiners."""

from panes.transforms.combinefn import CombineFn
from panes.transforms.core import (
    CombineGlobally, CombinePerKey, CombineValues, Create, Filter, FlatMap, Flatten, GroupByKey,
    Map, MapTuple, ParDo, Partition, Reshuffle, WindowInto,
)
from panes.transforms.dofn import DoFn
from panes.transforms.group_by import GroupBy
from panes.transforms.ptransform import PTransform
from panes.transforms.timestamps import WithTimestampField
