"""What file sources and sinks share on every runner: matching a pattern and naming shards.

``fs`` below is a file system in Beam's ``FileSystems`` interface: ``panes.io.filesystems``
on the direct runner, the Hadoop ``FileSystem`` of the cluster on Spark.
"""

from __future__ import annotations

import posixpath
import re

from panes.io.filesystems import has_glob

DEFAULT_SHARD_TEMPLATE = "-SSSSS-of-NNNNN"


def is_data_file(metadata) -> bool:
    """Whether a file a wildcard matched holds data: not hidden (``.`` or ``_`` first, as
    Hadoop's checksums and markers are), not a zero-byte ``<prefix>.SUCCESS`` marker."""
    name = posixpath.basename(metadata.path)
    return not (name[:1] in "._" or metadata.size_in_bytes == 0 and name.endswith(".SUCCESS"))


def match_files(fs, pattern: str) -> list:
    """The ``FileMetadata`` of the files ``pattern`` names, sorted by path (the order their
    records are read in); a wildcard matches data files only. Fails when nothing matches."""
    files = fs.match([pattern])[0].metadata_list
    if has_glob(pattern):
        files = list(filter(is_data_file, files))
    if not files:
        raise FileNotFoundError(f"no file matches {pattern!r}")
    return files


def _fill(text: str, letter: str, number: int) -> str:
    width = text.count(letter)
    return text.replace(letter * width, f"{number:0{width}d}") if width else text


def shard_names(prefix: str, suffix: str, num_shards: int, template: str) -> list[str]:
    """Beam's shard names: ``template`` with ``SSSSS`` as the shard index and ``NNNNN`` as the
    shard count (zero-padded to the letters' width)."""
    return [
        prefix + _fill(_fill(template, "S", index), "N", num_shards) + suffix
        for index in range(num_shards)
    ]


def shard_pattern(prefix: str, suffix: str, template: str) -> re.Pattern:
    """Matches the base name of every shard ``shard_names`` gives, whatever the shard count."""
    numbered = re.escape(template)
    for letter in "SN":
        width = template.count(letter)
        if width:
            numbered = numbered.replace(letter * width, rf"\d{{{width},}}", 1)
    return re.compile(re.escape(posixpath.basename(prefix)) + numbered + re.escape(suffix) + r"\Z")


def split_evenly(records: list, num_shards: int) -> list[list]:
    """Consecutive runs of ``records``, one per shard, sizes differing by at most one."""
    size, extra = divmod(len(records), num_shards)
    shards, start = [], 0
    for index in range(num_shards):
        end = start + size + (1 if index < extra else 0)
        shards.append(records[start:end])
        start = end
    return shards
