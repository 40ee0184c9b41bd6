"""What file sources and sinks share: matching a pattern, naming shards, committing atomically.

A sink writes every shard into a temporary directory beside the destination and renames the
shards into place only once all of them are written, so a failed run leaves nothing under the
final names. Runners may write shards in parallel and commit with ``commit_shards``.
"""

from __future__ import annotations

import glob
import os
import shutil
import uuid


def match_files(pattern: str) -> list[str]:
    """The files a path or glob pattern names, sorted (the order records are read in)."""
    files = sorted(path for path in glob.glob(os.path.expanduser(pattern)) if os.path.isfile(path))
    if not files:
        raise FileNotFoundError(f"no file matches {pattern!r}")
    return files


def shard_names(prefix: str, suffix: str, num_shards: int, template: str) -> list[str]:
    """Beam's shard names: ``template`` with ``SSSSS`` as the shard index and ``NNNNN`` as the
    shard count (zero-padded to the letters' width)."""
    def fill(text, letter, number):
        width = text.count(letter)
        return text.replace(letter * width, f"{number:0{width}d}") if width else text

    return [prefix + fill(fill(template, "S", index), "N", num_shards) + suffix
            for index in range(num_shards)]


def split_evenly(records: list, num_shards: int) -> list[list]:
    """Consecutive runs of ``records``, one per shard, sizes differing by at most one."""
    size, extra = divmod(len(records), num_shards)
    shards, start = [], 0
    for index in range(num_shards):
        end = start + size + (1 if index < extra else 0)
        shards.append(records[start:end])
        start = end
    return shards


def temporary_directory(final_path: str) -> str:
    """A fresh directory beside ``final_path`` for shards still being written."""
    directory = os.path.join(os.path.dirname(os.path.abspath(final_path)) or ".",
                             f".panes-temp-{uuid.uuid4().hex}")
    os.makedirs(directory)
    return directory


def commit_shards(written: dict) -> list[str]:
    """Renames every written temporary shard to its final name; ``written`` maps final names to
    temporary paths. Removes the temporary directories."""
    for final, temporary in written.items():
        os.makedirs(os.path.dirname(os.path.abspath(final)), exist_ok=True)
        os.replace(temporary, final)
    for directory in {os.path.dirname(temporary) for temporary in written.values()}:
        shutil.rmtree(directory, ignore_errors=True)
    return list(written)


def write_shards(final_names: list[str], shards: list, write_one) -> list[str]:
    """Writes ``shards`` with ``write_one(path, records)`` into a temporary directory and
    commits them under ``final_names`` only if every shard was written."""
    directory = temporary_directory(final_names[0])
    try:
        written = {}
        for index, (final, records) in enumerate(zip(final_names, shards)):
            temporary = os.path.join(directory, f"shard-{index}")
            write_one(temporary, records)
            written[final] = temporary
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return commit_shards(written)
