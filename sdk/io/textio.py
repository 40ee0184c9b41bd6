"""Text files at Beam's module path ``apache_beam.io.textio``: ``ReadFromText`` and
``WriteToText`` with Beam's signatures, ``coder`` included.

Lines are read as text (UTF-8). A ``coder`` other than the default turns each line's bytes
into the element (``coder.decode``), and on writing each element into a line's bytes
(``coder.encode``), as Beam's text IO does; with the defaults the read and the write are the
plain ``Read``/``Write`` primitives."""

from __future__ import annotations

from panes.coders.coders import StrUtf8Coder, ToBytesCoder
from panes.io import text
from panes.transforms.core import Map
from panes.transforms.ptransform import PTransform

__all__ = ["ReadFromText", "WriteToText"]

# Beam's default coders, made once: text read as UTF-8, elements written as str(element).
_UTF8 = StrUtf8Coder()
_TO_BYTES = ToBytesCoder()


def ReadFromText(
    file_pattern: str | None = None,
    min_bundle_size=0,  # noqa: N802 - Beam's name
    compression_type="auto",
    strip_trailing_newlines=True,
    coder=_UTF8,
    validate=True,
    skip_header_lines=0,
    label=None,
    **kwargs,
):
    """The lines of the files ``file_pattern`` matches (sorted by path), without their line
    terminators, decoded by ``coder``; compressed files are read by ``compression_type`` (by
    default from the file name). Beam's other arguments are accepted."""
    read = text.ReadFromText(
        file_pattern, compression_type=compression_type, skip_header_lines=skip_header_lines
    )
    if isinstance(coder, StrUtf8Coder):
        return read if label is None else label >> read
    decode = Map(lambda line: coder.decode(line.encode("utf-8")))
    return _Coded("ReadFromText", (("Read", read), ("Decode", decode)), label)


def WriteToText(
    file_path_prefix: str,
    file_name_suffix: str = "",  # noqa: N802
    append_trailing_newlines=True,
    num_shards: int = 0,
    shard_name_template: str | None = None,
    coder=_TO_BYTES,
    compression_type="auto",
    header: str | None = None,
    label=None,
    **kwargs,
):
    """Writes each element as a line (``coder.encode``; by default ``str(element)``) into
    ``num_shards`` files named like Beam's (``prefix-00000-of-00004suffix``; with 0, as many as
    the runner chooses); the files appear only once all are written."""
    write = text.WriteToText(
        file_path_prefix,
        file_name_suffix,
        num_shards=num_shards,
        shard_name_template=shard_name_template,
        compression_type=compression_type,
        header=header,
    )
    if isinstance(coder, ToBytesCoder):
        return write if label is None else label >> write
    encode = Map(lambda element: coder.encode(element).decode("utf-8"))
    return _Coded("WriteToText", (("Encode", encode), ("Write", write)), label)


class _Coded(PTransform):
    """A text read then decoding, or encoding then a text write, as one transform."""

    def __init__(self, name: str, steps: tuple, label=None):
        super().__init__(label)
        self.name, self.steps = name, steps

    def default_label(self) -> str:
        return self.name

    def expand(self, pvalue):
        for step_label, transform in self.steps:
            pvalue = pvalue | step_label >> transform
        return pvalue
