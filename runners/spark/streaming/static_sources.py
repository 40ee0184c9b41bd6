"""Sources whose whole event log is known before the run — ``TestStream``, ``Create`` and any
bounded source read on the driver — and the clocks they give the groupings they feed.

Their event logs are the direct runner's (``panes.runners.sources``), step for step. On Spark
each step becomes a *tick* (its rank among all the sources' steps), and the sources deliver one
tick per micro-batch (``event_log``), so that Spark's watermark says which steps every
source has delivered.
"""

from __future__ import annotations

from panes.runners.eventlog import END_STEP, FIRST_STEP, Bundle, Watermark, merged_watermarks
from panes.runners.sources import ProcessingClock, read_source, source_stream, test_stream_stream
from panes.runners.spark.streaming.clocks import StaticClocks, tick

STATIC_KINDS = ("test_stream", "create")


class StaticInputs:
    """The event logs of a pipeline's static sources (``streams``: node id -> events)."""

    def __init__(self, ir, static_nodes: list):
        sources = {
            node.id: read_source(node) for node in static_nodes if node.kind != "test_stream"
        }
        self.clock = ProcessingClock(ir, sources)
        self.streams = {
            node.id: (
                test_stream_stream(node)
                if node.kind == "test_stream"
                else source_stream(sources[node.id], self.clock)
            )
            for node in static_nodes
        }
        steps = {event.step for stream in self.streams.values() for event in stream}
        steps |= {event.step for event in self.clock.events if event.step >= FIRST_STEP}
        self.steps = sorted(steps | {END_STEP})
        self.ir = ir
        self._timelines: dict = {}

    @property
    def end_tick(self) -> int:
        return len(self.steps)

    def bundles(self, node_id: str) -> dict:
        """A source's elements by tick: ``{tick: [(position, value, timestamp, windows, pane)]}``
        with positions ``(step, index)``, as the direct runner orders them."""
        out: dict = {}
        for event in self.streams[node_id]:
            if isinstance(event, Bundle) and event.elements:
                out.setdefault(tick(self.steps, event.step), []).extend(
                    ((event.step, index), wv.value, wv.timestamp_micros, wv.windows, wv.pane_info)
                    for index, wv in enumerate(event.elements)
                )
        return out

    def watermarks(self, pcollection_id: str) -> list:
        """The watermark events of a collection fed by static sources only, as the direct
        runner's streams carry them: a source's own, the minimum over a Flatten's inputs,
        unchanged through element-wise transforms."""
        if pcollection_id not in self._timelines:
            producer = self.ir.nodes[self.ir.pcollections[pcollection_id].producer]
            if producer.id in self.streams:
                timeline = [e for e in self.streams[producer.id] if isinstance(e, Watermark)]
            elif producer.kind == "flatten":
                timeline = merged_watermarks([self.watermarks(pc) for pc in producer.inputs])
            else:
                timeline = self.watermarks(producer.inputs[0])
            self._timelines[pcollection_id] = timeline
        return self._timelines[pcollection_id]

    def clocks_of(self, watermarks: list) -> StaticClocks:
        return StaticClocks(self.steps, watermarks, self.clock.events)
