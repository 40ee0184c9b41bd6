"""Beam's sources as panes': ``Impulse``, ``Create`` and ``TestStream`` as panes' own source
nodes, ``ReadFromText`` as panes' text source (read by Spark's executors), any other bounded
source split as Beam splits it — the splits made on the driver, each read by a task."""

from __future__ import annotations

from apache_beam.io import iobase, parquetio, textio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.testing import test_stream as beam_test_stream
from apache_beam.transforms import window as beam_window
from apache_beam.utils import windowed_value as beam_wv

from panes.errors import PipelineConstructionError
from panes.ir import io as ir_io
from panes.ir.data import Pickled
from panes.ir.windowing import WindowingStrategy
from panes.runners.beam.dofns import ByTag, FastBeamFn
from panes.runners.beam.translation import MAIN, Translation, output_tags, par_do_payload
from panes.timestamp import MIN_MICROS, Timestamp
from panes.window import TimestampedValue

_NO_TIMING = {"watermark": None, "timestamp_fn": None, "arrival_fn": None}
COMPRESSIONS: dict[str, ir_io.Compression] = {
    CompressionTypes.AUTO: "auto",
    CompressionTypes.BZIP2: "bzip2",
    CompressionTypes.GZIP: "gzip",
    CompressionTypes.ZSTD: "zstd",
    CompressionTypes.UNCOMPRESSED: "uncompressed",
}


def create(translation: Translation, label: str, values: list, pcoll) -> str:
    return translation.add(
        label,
        "create",
        (),
        {MAIN: (pcoll, WindowingStrategy())},
        {"values": Pickled.of(values), **_NO_TIMING},
    )[MAIN]


def empty(translation: Translation, label: str, pcoll) -> None:
    create(translation, label, [], pcoll)


def translate_impulse(translation: Translation, applied) -> None:
    (pcoll,) = applied.outputs.values()
    create(translation, applied.full_label, [b""], pcoll)


def translate_create(translation: Translation, applied) -> bool:
    """``Create`` as a create node. With ``reshuffle=False`` the values stay in one bundle, as
    in Beam's expansion, which is translated instead (as it is for Beam ``WindowedValue``s)."""
    if applied.transform.reshuffle is False:
        return False
    values = []
    for value in applied.transform.values:
        if isinstance(value, beam_wv.WindowedValue):
            return False
        if isinstance(value, beam_window.TimestampedValue):
            value = TimestampedValue(value.value, Timestamp(micros=value.timestamp.micros))
        values.append(value)
    (pcoll,) = applied.outputs.values()
    create(translation, applied.full_label, values, pcoll)
    return True


def translate_test_stream(translation: Translation, applied) -> None:
    """A TestStream as panes' test_stream; one with tagged outputs as one test_stream of
    ``(tag, value)`` elements split by tag, whose watermark is the least of its tags'."""
    stream, label = applied.transform, applied.full_label
    if stream._endpoint:
        raise PipelineConstructionError(
            f"'{label}': panes replays a TestStream's events given in the pipeline, not a "
            f"TestStreamService's"
        )
    tagged = set(applied.outputs) != {None}
    watermarks = dict.fromkeys(applied.outputs, MIN_MICROS)
    events: list[ir_io.TestStreamEvent] = []
    for event in stream._events:
        if isinstance(event, beam_test_stream.ElementEvent):
            values = [tv.value for tv in event.timestamped_values]
            events.append(
                ir_io.AddElements(
                    Pickled.of([(event.tag, value) for value in values] if tagged else values),
                    tuple(tv.timestamp.micros for tv in event.timestamped_values),
                )
            )
        elif isinstance(event, beam_test_stream.WatermarkEvent):
            least = min(watermarks.values())
            watermarks[event.tag] = event.new_watermark.micros
            if min(watermarks.values()) > least:
                events.append(ir_io.AdvanceWatermark(min(watermarks.values())))
        elif isinstance(event, beam_test_stream.ProcessingTimeEvent):
            if event.advance_by.micros > 0:
                events.append(ir_io.AdvanceProcessingTime(event.advance_by.micros))
        else:
            raise PipelineConstructionError(f"'{label}': panes cannot replay the event {event!r}")
    if not tagged:
        (pcoll,) = applied.outputs.values()
        translation.add(
            label,
            "test_stream",
            (),
            {MAIN: (pcoll, WindowingStrategy())},
            {"events": tuple(events)},
        )
        return
    events_id = translation.add(
        f"{label}/Events",
        "test_stream",
        (),
        {MAIN: (None, WindowingStrategy())},
        {"events": tuple(events)},
    )[MAIN]
    tags = output_tags(applied)
    translation.add(
        label,
        "par_do",
        (events_id,),
        {tags[tag]: (pcoll, WindowingStrategy()) for tag, pcoll in applied.outputs.items()},
        par_do_payload(ByTag(tags), (), {}, tags),
    )


def translate_read(translation: Translation, applied) -> bool:
    """``Read``: text files read by panes, any other bounded source split as Beam splits it."""
    source = applied.transform.source
    if not isinstance(source, iobase.BoundedSource):
        return False
    (pcoll,) = applied.outputs.values()
    label = applied.full_label
    text = text_source(source)
    if text is not None:
        translation.add(
            label, "read", (), {MAIN: (pcoll, WindowingStrategy())}, {"source": text, **_NO_TIMING}
        )
        return True
    try:
        size = source.estimate_size()
    except NotImplementedError:
        size = None
    bundles = list(source.split(iobase.Read.get_desired_chunk_size(size)))
    # Named as Beam's expansion names its steps, where the source's metrics are reported.
    splits = create(translation, f"{label}/EmitSource", bundles, None)
    reader_label = f"{label}/SDFBoundedSourceReader/ParDo(SDFBoundedSourceDoFn)"
    reader = FastBeamFn(_read_bundle, "flat_map", reader_label)
    translation.par_do(reader_label, splits, reader, pcoll)
    return True


def _read_bundle(bundle):
    tracker = bundle.source.get_range_tracker(bundle.start_position, bundle.stop_position)
    return bundle.source.read(tracker)


def text_source(source) -> ir_io.TextSource | None:
    """panes' text source for Beam's, when they read alike: whole UTF-8 lines without their
    terminators, no delimiter, escape character or header processing."""
    if type(source) is not textio._TextSource:
        return None
    pattern = source._pattern
    if not pattern.is_accessible() or not isinstance(pattern.get(), str):
        return None
    compression = COMPRESSIONS.get(source._compression_type)
    plain = (
        source._strip_trailing_newlines
        and type(source._coder).__name__ == "StrUtf8Coder"
        and source._header_matcher is None
        and source._header_processor is None
        and source._delimiter is None
        and source._escapechar is None
    )
    if compression is None or not plain:
        return None
    return ir_io.TextSource(pattern.get(), source._skip_header_lines, compression)


def translate_parquet_read(translation: Translation, applied) -> bool:
    """``ReadFromParquet`` (a Read of Parquet files, then each Arrow table's rows as dicts) as
    panes' Parquet source, read by Spark's executors."""
    read, rows = applied.parts
    source = read.transform.source
    pattern = source._pattern
    if not pattern.is_accessible() or not isinstance(pattern.get(), str) or rows.transform.args:
        return False
    columns = tuple(source._columns) if source._columns else None
    (pcoll,) = applied.outputs.values()
    translation.add(
        applied.full_label,
        "read",
        (),
        {MAIN: (pcoll, WindowingStrategy())},
        {"source": ir_io.ParquetSource(pattern.get(), columns), **_NO_TIMING},
    )
    return True


def is_parquet_read(applied) -> bool:
    """Whether ``applied`` is ``ReadFromParquet`` as Beam expands it (also when rebuilt from the
    proto, where only its parts keep their classes)."""
    parts = applied.parts
    return (
        len(parts) == 2
        and isinstance(parts[0].transform, iobase.Read)
        and type(parts[0].transform.source) is parquetio._ParquetSource
        and type(getattr(parts[1].transform, "fn", None)) is parquetio._ArrowTableToRowDictionaries
    )
