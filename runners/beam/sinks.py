"""Beam's ``WriteToText`` as panes' text sink (written by Spark's executors and published
whole), when they write alike; any other write runs Beam's own ``WriteImpl`` expansion."""

from __future__ import annotations

import re
import typing

from apache_beam.coders import coders as beam_coders
from apache_beam.io import iobase, parquetio, textio

from panes.ir import io as ir_io
from panes.ir.data import Pickled
from panes.runners.beam.dofns import FastBeamFn
from panes.runners.beam.sources import COMPRESSIONS
from panes.runners.beam.translation import Translation, main_input


def is_write(applied) -> bool:
    """Whether ``applied`` is Beam's ``WriteImpl``, as built or rebuilt from the proto (where
    its parts keep their classes: the sink is the argument of its ``InitializeWrite``)."""
    return _sink(applied) is not None


def translate_write(translation: Translation, applied) -> bool:
    sink = _sink(applied)
    text = text_sink(sink)
    if text is None or any(translation.is_consumed(pc) for pc in applied.outputs.values()):
        return False
    label = applied.full_label
    source = main_input(translation, applied)
    (pcoll,) = applied.main_inputs.values()
    if pcoll.element_type is not str:  # Beam writes bytes as they are, anything else as str()
        source = translation.par_do(
            f"{label}/BytesAsText",
            source,
            FastBeamFn(_bytes_as_text, "map", f"{label}/BytesAsText"),
        )
    translation.add(label, "write", (source,), {}, {"sink": text})
    return True


def _bytes_as_text(value):
    return value.decode("utf-8") if type(value) is bytes else value


def _sink(applied):
    if isinstance(applied.transform, iobase.WriteImpl):
        return applied.transform.sink
    for part in applied.parts:
        args = getattr(part.transform, "args", ())
        if (
            part.full_label.endswith("/InitializeWrite")
            and args
            and isinstance(args[0], iobase.Sink)
        ):
            return args[0]
    return None


def text_sink(sink) -> ir_io.TextSink | None:
    """panes' text sink for Beam's, when they write alike: a line per element (``str``),
    Beam's shard names, an optional header, no footer, no size limits per shard."""
    if type(sink) is not textio._TextSink:
        return None
    prefix, suffix = sink.file_path_prefix, sink.file_name_suffix
    if not (prefix.is_accessible() and suffix.is_accessible()):
        return None
    template = sink.shard_name_template
    compression = COMPRESSIONS.get(sink.compression_type)
    plain = (
        type(sink.coder) is beam_coders.ToBytesCoder
        and sink._append_trailing_newlines
        and sink._footer is None
        and sink.max_records_per_shard is None
        and sink.max_bytes_per_shard is None
        and not sink.skip_if_empty
        and not sink.triggering_frequency
        and _plain_template(template)
    )
    if compression is None or not plain or not isinstance(sink._header, (str, type(None))):
        return None
    return ir_io.TextSink(
        prefix.get(),
        suffix.get(),
        sink.num_shards if template else 1,
        template,
        sink._header,
        compression,
    )


def _plain_template(template: str) -> bool:
    """A shard name template of literal text and at most one run each of S and N."""
    rest = re.sub(r"S+", "", template, count=1)
    rest = re.sub(r"N+", "", rest, count=1)
    return not set(rest) & set("SNUWP")


_PARQUET_CODECS: dict[str, ir_io.ParquetCodec] = {
    codec: codec for codec in typing.get_args(ir_io.ParquetCodec)
}


def is_parquet_write(applied) -> bool:
    """Whether ``applied`` is ``WriteToParquet`` as Beam expands it: rows to Arrow tables, then
    a write of Parquet files."""
    parts = applied.parts
    return (
        len(parts) == 2
        and type(getattr(parts[0].transform, "fn", None)) is parquetio._RowDictionariesToArrowTable
        and type(_write_sink(parts[1])) is parquetio._ParquetSink
    )


def translate_parquet_write(translation: Translation, applied) -> bool:
    """``WriteToParquet`` as panes' Parquet sink, written by Spark's executors."""
    sink = _write_sink(applied.parts[1])
    prefix, suffix = sink.file_path_prefix, sink.file_name_suffix
    template = sink.shard_name_template
    codec = _PARQUET_CODECS.get(sink._codec or "none")
    plain = (
        prefix.is_accessible()
        and suffix.is_accessible()
        and not sink._use_deprecated_int96_timestamps
        and sink.max_records_per_shard is None
        and sink.max_bytes_per_shard is None
        and not sink.skip_if_empty
        and _plain_template(template)
        and COMPRESSIONS.get(sink.compression_type) in ("auto", "uncompressed")
    )
    if (
        not plain
        or codec is None
        or any(translation.is_consumed(pc) for pc in applied.outputs.values())
    ):
        return False
    parquet = ir_io.ParquetSink(
        prefix.get(),
        Pickled.of(sink._schema),
        suffix.get(),
        sink.num_shards if template else 1,
        template,
        codec,
    )
    translation.add(
        applied.full_label, "write", (main_input(translation, applied),), {}, {"sink": parquet}
    )
    return True


def _write_sink(applied):
    """The sink of Beam's ``Write`` (or its ``WriteImpl``), or None."""
    if isinstance(applied.transform, iobase.Write):
        return applied.transform.sink
    if is_write(applied):
        return _sink(applied)
    if len(applied.parts) == 1:
        return _write_sink(applied.parts[0])
    return None
