"""Text files: one element per line (``ReadFromText``), one line per element (``WriteToText``)."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Optional

from panes.errors import PipelineConstructionError
from panes.io.base import Read, Sink, Source, Write
from panes.io.files import match_files, shard_names, split_evenly, write_shards


@dataclass(frozen=True)
class TextSource(Source):
    file_pattern: str
    skip_header_lines: int = 0

    def read_records(self):
        for path in match_files(self.file_pattern):
            for number, line in enumerate(read_lines(path)):
                if number >= self.skip_header_lines:
                    yield line

    def splits(self, size: int) -> list[tuple]:
        """``(path, start, end)`` byte ranges of about ``size`` bytes covering the files in
        order, each cut just after a newline, so ``read_lines`` of each range in turn gives
        the lines of the files (when no header is skipped)."""
        ranges = []
        for path in match_files(self.file_pattern):
            cuts, length = [0], os.path.getsize(path)
            with open(path, "rb") as raw:
                for target in range(size, length, size):
                    if target > cuts[-1]:
                        raw.seek(target - 1)  # a newline just before the target cuts there
                        raw.readline()
                        cuts.append(raw.tell())
            cuts = sorted(set(cut for cut in cuts if cut < length)) + [length]
            ranges += [(path, start, end) for start, end in zip(cuts, cuts[1:])]
        return ranges


def read_lines(path: str, start: int = 0, end: Optional[int] = None) -> list[str]:
    """The lines in bytes ``start`` to ``end`` of a UTF-8 file (both at line starts), without
    their terminators: any of \\n, \\r\\n and \\r, as Python's universal newlines read them."""
    with open(path, "rb") as raw:
        raw.seek(start)
        data = raw.read() if end is None else raw.read(end - start)
    lines = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read().split("\n")
    if lines[-1] == "":
        lines.pop()  # after the last terminator (or in an empty range)
    return lines


@dataclass(frozen=True)
class TextSink(Sink):
    file_path_prefix: str
    file_name_suffix: str = ""
    num_shards: int = 1
    shard_name_template: str = "-SSSSS-of-NNNNN"
    header: Optional[str] = None

    def write_records(self, records) -> list[str]:
        names = shard_names(self.file_path_prefix, self.file_name_suffix, self.num_shards,
                            self.shard_name_template)
        return write_shards(names, split_evenly(list(records), self.num_shards), self.write_shard)

    def write_shard(self, path: str, records) -> None:
        with open(path, "w", encoding="utf-8") as out:
            if self.header is not None:
                out.write(self.header + "\n")
            for record in records:
                out.write(f"{record}\n")


def ReadFromText(file_pattern: str, skip_header_lines: int = 0, label=None) -> Read:  # noqa: N802
    """Reads the lines of the files ``file_pattern`` matches (sorted by path), without newlines."""
    if not isinstance(file_pattern, str) or not file_pattern:
        raise PipelineConstructionError(
            f"ReadFromText needs a file path or glob pattern, got {file_pattern!r}")
    return Read(TextSource(file_pattern, skip_header_lines), label=label)


def WriteToText(file_path_prefix: str, file_name_suffix: str = "", num_shards: int = 1,  # noqa: N802
                shard_name_template: str = "-SSSSS-of-NNNNN", header: Optional[str] = None,
                label=None) -> Write:
    """Writes each element as a line of ``num_shards`` files named like Beam's
    (``prefix-00000-of-00001suffix``); the files appear only once all are written."""
    if not isinstance(num_shards, int) or num_shards < 1:
        raise PipelineConstructionError(
            f"WriteToText needs num_shards >= 1, got {num_shards!r}")
    return Write(TextSink(file_path_prefix, file_name_suffix, num_shards, shard_name_template,
                          header), label=label)
