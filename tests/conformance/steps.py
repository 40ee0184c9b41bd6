"""Named pipeline steps a scenario can put around its grouping (``before:``, ``after:``): the
parts of a pipeline that the windowing fields cannot say, each a PTransform over the
scenario's ``(key, value)`` elements or the grouping's ``(key, aggregate)`` panes."""

from __future__ import annotations

import panes as beam
from panes.pvalue import AsDict, TaggedOutput
from panes.window import WindowedValue


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


class _HeldForTheBundle(beam.DoFn):
    """Holds a bundle's elements in a list made by ``start_bundle`` and emits them, each in
    its own window and pane, from ``finish_bundle``: fails unless every bundle starts."""

    def start_bundle(self):
        self.held = []

    def process(
        self,
        element,
        timestamp=beam.DoFn.TimestampParam,
        window=beam.DoFn.WindowParam,
        pane=beam.DoFn.PaneInfoParam,
    ):
        self.held.append(WindowedValue(element, timestamp, (window,), pane))
        return ()

    def finish_bundle(self):
        yield from self.held


class HeldForTheBundle(beam.PTransform):
    """A ParDo whose ``start_bundle`` sets up what ``process`` and ``finish_bundle`` use."""

    def expand(self, pcoll):
        return pcoll | "Hold" >> beam.ParDo(_HeldForTheBundle())


class HeldTwice(beam.PTransform):
    """Two such ParDos in a row: the second must take the first's ``finish_bundle`` outputs
    before its own ``finish_bundle``, or it holds them past the bundle and loses them."""

    def expand(self, pcoll):
        return (
            pcoll
            | "Hold" >> beam.ParDo(_HeldForTheBundle())
            | "HoldAgain" >> beam.ParDo(_HeldForTheBundle())
        )


class ResummedThenHeldTwice(beam.PTransform):
    """A second grouping (a sum per key of the panes), then ``HeldTwice``: with a grouping
    after it, the holding ParDos sit between two groupings of groupings, and what they emit
    from ``finish_bundle`` must reach the last grouping at its step."""

    def expand(self, pcoll):
        return pcoll | "Resum" >> beam.CombinePerKey(sum) | "Held" >> HeldTwice()


class ShareOfWindowTotal(beam.PTransform):
    """Each value as a percentage of its 10 s window's total, read as a singleton side input,
    and each key renamed by a table from a bounded source, read as a dict side input in the
    global window: main elements wait until their side window is ready."""

    def expand(self, pcoll):
        windowed = pcoll | "SideWindows" >> beam.WindowInto(beam.window.FixedWindows(10))
        total = (
            windowed
            | "Values" >> beam.Values()
            | "Total" >> beam.CombineGlobally(sum).as_singleton_view()
        )
        names = pcoll.pipeline | "Names" >> beam.Create([("a", "alpha"), ("b", "beta")])
        return windowed | "Share" >> beam.Map(
            lambda kv, total, names: (names.get(kv[0], kv[0]), kv[1] * 100 // total),
            total,
            AsDict(names),
        )


STEPS = {
    "ScaleThenSplit": ScaleThenSplit,
    "HeldForTheBundle": HeldForTheBundle,
    "HeldTwice": HeldTwice,
    "ResummedThenHeldTwice": ResummedThenHeldTwice,
    "ShareOfWindowTotal": ShareOfWindowTotal,
}


def step(name: str) -> beam.PTransform:
    return STEPS[name]()
