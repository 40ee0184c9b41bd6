"""Text files: one element per line (``ReadFromText``), one line per element (``WriteToText``).

Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (as Hadoop's line reader and Python's universal
newlines split them) and are UTF-8: a line that is not fails the read, naming the file and the
line.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from panes.errors import PipelineConstructionError, UserCodeError, map_user_fn
from panes.io.base import Read, Sink, Source, SourceError, Write
from panes.io.commit import write_and_publish
from panes.io.files import (
    DEFAULT_SHARD_TEMPLATE,
    match_files,
    shard_names,
    shard_pattern,
    split_evenly,
)
from panes.io.filesystem import CompressionTypes
from panes.io.filesystems import FileSystems


class UndecodableLine(SourceError, ValueError):
    """A line of a text file that is not UTF-8."""


def decoded(lines: list, where) -> list:
    """``lines`` (bytes) as text; the first that is not UTF-8 raises ``UndecodableLine``
    naming ``where(index)``, where that line is."""
    try:
        return [line.decode("utf-8") for line in lines]
    except UnicodeDecodeError:
        for index, line in enumerate(lines):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as error:
                place = where(index)
                raise UndecodableLine(
                    place,
                    f"{place} is not UTF-8 ({error.reason} at byte "
                    f"{error.start} of the line): re-encode the file "
                    f"as UTF-8",
                ) from None
        raise


def line_place(path: str, start: int, offset: int):
    """Where the ``index``-th of lines read from byte ``start`` of ``path``, after ``offset``
    others, is: ``where(index)``."""

    def where(index):
        line = offset + index + 1
        return (
            f"{path}, line {line}"
            if start == 0
            else f"{path}, line {line} of the split at byte {start}"
        )

    return where


def header_lines(skip_header_lines: int, start: int, offset: int) -> int:
    """How many of lines read from byte ``start`` of a file, after ``offset`` others, are the
    file's header."""
    return max(0, skip_header_lines - offset) if start == 0 else 0


@dataclass(frozen=True)
class TextSource(Source):
    file_pattern: str
    skip_header_lines: int = 0
    compression_type: str = CompressionTypes.AUTO

    def read_records(self):
        for file in match_files(FileSystems, self.file_pattern):
            with FileSystems.open(file.path, compression_type=self.compression_type) as stream:
                lines = stream.read().splitlines()
            yield from decoded(lines, line_place(file.path, 0, 0))[self.skip_header_lines :]


@dataclass(frozen=True)
class TextSink(Sink):
    file_path_prefix: str
    file_name_suffix: str = ""
    num_shards: int = 0
    shard_name_template: str = DEFAULT_SHARD_TEMPLATE
    header: str | None = None
    compression_type: str = CompressionTypes.AUTO

    def shard_regex(self):
        return shard_pattern(self.file_path_prefix, self.file_name_suffix, self.shard_name_template)

    def compression(self) -> str:
        """The shards' compression: ``AUTO`` follows the file name suffix."""
        return CompressionTypes.resolved(self.compression_type, self.file_name_suffix)

    def header_bytes(self) -> bytes:
        return b"" if self.header is None else (self.header + "\n").encode("utf-8")

    def write_records(self, records, label: str = "") -> list[str]:
        """Writes ``num_shards`` shards (one when the runner may choose) through
        ``FileSystems``, each a consecutive run of ``records``, and publishes them."""
        prefix = FileSystems.absolute(self.file_path_prefix)
        count = self.num_shards or 1
        names = shard_names(prefix, self.file_name_suffix, count, self.shard_name_template)

        def write(temporary):
            renames = []
            for final, shard in zip(names, split_evenly(list(records), count)):
                path = posixpath.join(temporary, posixpath.basename(final))
                self.write_shard(path, shard, label)
                renames.append((path, final))
            return renames

        return write_and_publish(FileSystems, prefix, self.shard_regex(), write)

    def write_shard(self, path: str, records: list, label: str = "") -> None:
        """One shard at ``path`` through ``FileSystems``: the header, then a line per record
        (a streaming run writes one per micro-batch and partition)."""
        with FileSystems.create(path, compression_type=self.compression()) as out:
            out.write(self.header_bytes())
            if records:
                out.write(encoded_lines(label, records) + b"\n")


def encoded_lines(label: str, values) -> bytes:
    """``values`` as UTF-8 lines joined by newlines (Beam's ``ToStringCoder``: ``str``)."""
    lines = map_user_fn(label, str, values)
    try:
        return "\n".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        for value, line in zip(values, lines):
            try:
                line.encode("utf-8")
            except UnicodeEncodeError as error:
                raise UserCodeError(label, value, error) from None
        raise


def ReadFromText(
    file_pattern: str | None,
    *,
    compression_type: str = CompressionTypes.AUTO,  # noqa: N802
    skip_header_lines: int = 0,
    label=None,
) -> Read:
    """Reads the lines of the files ``file_pattern`` matches (sorted by path), without their
    terminators; ``skip_header_lines`` of each file are skipped."""
    if not isinstance(file_pattern, str) or not file_pattern:
        raise PipelineConstructionError(
            f"ReadFromText needs a file path or glob pattern, got {file_pattern!r}"
        )
    _check_compression("ReadFromText", compression_type)
    if (
        isinstance(skip_header_lines, bool)
        or not isinstance(skip_header_lines, int)
        or skip_header_lines < 0
    ):
        raise PipelineConstructionError(
            f"ReadFromText needs skip_header_lines >= 0, got {skip_header_lines!r}"
        )
    return Read(TextSource(file_pattern, skip_header_lines, compression_type), label=label)


def WriteToText(
    file_path_prefix: str,
    file_name_suffix: str = "",
    *,  # noqa: N802
    num_shards: int = 0,
    shard_name_template: str | None = None,
    compression_type: str = CompressionTypes.AUTO,
    header: str | None = None,
    label=None,
) -> Write:
    """Writes each element as a line of files named like Beam's
    (``prefix-00000-of-00004suffix``): ``num_shards`` of them, or as many as the runner
    chooses with 0 (the direct runner one, Spark one per partition). The files appear only
    once all are written, and ``<prefix>.SUCCESS`` after them."""
    _check_compression("WriteToText", compression_type)
    template = DEFAULT_SHARD_TEMPLATE if shard_name_template is None else shard_name_template
    num_shards = shard_count("WriteToText", num_shards, template)
    return Write(
        TextSink(
            file_path_prefix, file_name_suffix, num_shards, template, header, compression_type
        ),
        label=label,
    )


def shard_count(transform: str, num_shards, template: str) -> int:
    """``num_shards``, checked; a template without a shard index (``SSSSS``) names one file,
    so the runner may not choose more."""
    if isinstance(num_shards, bool) or not isinstance(num_shards, int) or num_shards < 0:
        raise PipelineConstructionError(
            f"{transform} needs num_shards >= 0 (0: the runner chooses), got {num_shards!r}"
        )
    if "S" in template:
        return num_shards
    if num_shards > 1:
        raise PipelineConstructionError(
            f"{transform}: shard_name_template {template!r} has no shard index (SSSSS), so it "
            f"names one file, but num_shards={num_shards}: add SSSSS or write one shard"
        )
    return 1


def _check_compression(transform: str, compression_type) -> None:
    if not CompressionTypes.is_valid_compression_type(compression_type):
        raise PipelineConstructionError(
            f"{transform}: unknown compression_type {compression_type!r}; use "
            f"CompressionTypes.AUTO, GZIP, BZIP2, ZSTD or UNCOMPRESSED"
        )
