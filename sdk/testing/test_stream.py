"""TestStream: a source that replays an explicit event log of elements, watermarks and
processing time, so that trigger behaviour is reproducible."""

from __future__ import annotations

from panes.errors import PipelineConstructionError
from panes.ir import io
from panes.ir.data import Pickled
from panes.pvalue import PBegin
from panes.timestamp import MAX_MICROS, MIN_MICROS, Duration, to_micros
from panes.transforms.core import Windowing
from panes.transforms.ptransform import PrimitiveTransform
from panes.window import TimestampedValue, WindowedValue

ELEMENTS = "elements"
WATERMARK = "watermark"
PROCESSING_TIME = "processing_time"


class TestStream(PrimitiveTransform):
    """Builder of an event log; each ``add_elements`` call is one bundle."""

    __test__ = False  # not a pytest test class
    ir_kind = "test_stream"

    def __init__(self, coder=None, label=None):
        """``coder`` is Beam's element coder, accepted: elements cross processes pickled."""
        super().__init__(label)
        self.events: list = []
        self._watermark = None

    def add_elements(self, elements, event_timestamp=None) -> TestStream:
        """Adds one bundle. A ``TimestampedValue`` or ``WindowedValue`` keeps its timestamp (not
        its windows); a plain value is stamped ``event_timestamp``, by default the watermark
        as it stands (-inf before the first advance), as Beam's TestStream does."""
        if event_timestamp is None:
            plain_timestamp = MIN_MICROS if self._watermark is None else self._watermark
        else:
            plain_timestamp = to_micros(event_timestamp)
        bundle = [
            (element.value, element.timestamp_micros)
            if isinstance(element, (TimestampedValue, WindowedValue))
            else (element, plain_timestamp)
            for element in elements
        ]
        self.events.append((ELEMENTS, bundle))
        return self

    def advance_watermark_to(self, new_watermark) -> TestStream:
        micros = to_micros(new_watermark)
        if self._watermark is not None and micros < self._watermark:
            raise PipelineConstructionError(
                f"TestStream watermark must not go back: {micros}µs after {self._watermark}µs"
            )
        self._watermark = micros
        self.events.append((WATERMARK, micros))
        return self

    def advance_watermark_to_infinity(self) -> TestStream:
        self._watermark = MAX_MICROS
        self.events.append((WATERMARK, MAX_MICROS))
        return self

    def advance_processing_time(self, advance_by) -> TestStream:
        micros = Duration.of(advance_by).micros
        if micros <= 0:
            raise PipelineConstructionError(
                f"TestStream.advance_processing_time needs a positive duration, got {advance_by!r}"
            )
        self.events.append((PROCESSING_TIME, micros))
        return self

    def expand(self, pbegin):
        if not isinstance(pbegin, PBegin):
            raise PipelineConstructionError("TestStream starts a pipeline: p | TestStream()...")
        return pbegin.pipeline.new_output(windowing=Windowing())

    def ir_payload(self):
        return {"events": tuple(map(_event_to_ir, self.events))}


def _event_to_ir(event) -> io.TestStreamEvent:
    kind, data = event
    if kind == ELEMENTS:
        return io.AddElements(
            Pickled.of([value for value, _ in data]), tuple(timestamp for _, timestamp in data)
        )
    if kind == WATERMARK:
        return io.AdvanceWatermark(data)
    return io.AdvanceProcessingTime(data)
