"""Named pipeline steps a scenario can put around its grouping (``before:``, ``after:``): the
parts of a pipeline that the windowing fields cannot say, each a PTransform over the
scenario's ``(key, value)`` elements or the grouping's ``(key, aggregate)`` panes."""

from __future__ import annotations

import panes as beam
from panes.pvalue import TaggedOutput


class _SplitByValue(beam.DoFn):
    """Values of 10 and more go to the ``large`` output, the rest to the main one."""

    def process(self, element):
        key, value = element
        if value >= 10:
            yield TaggedOutput("large", (key, value))
        else:
            yield element


class ScaleThenSplit(beam.PTransform):
    """A Map, then a ParDo with two outputs, the large values re-keyed and flattened back:
    a multi-output ParDo fed by a fused element-wise stage."""

    def expand(self, pcoll):
        split = (
            pcoll
            | "Scale" >> beam.Map(lambda kv: (kv[0], kv[1] * 10))
            | "Split" >> beam.ParDo(_SplitByValue()).with_outputs("large", main="small")
        )
        large = split.large | "Mark" >> beam.Map(lambda kv: (f"{kv[0]}+", kv[1]))
        return (split.small, large) | "Merge" >> beam.Flatten()


STEPS = {"ScaleThenSplit": ScaleThenSplit}


def step(name: str) -> beam.PTransform:
    return STEPS[name]()
