"""Publishing a write's shards so that two runs are never mixed under the final names.

Shards are written into a temporary directory beside the destination (on Spark by the
executors, each task attempt in its own place, only committed attempts kept). Then one process
commits the job:

1. it removes the completion marker ``<prefix>.SUCCESS`` of the previous output;
2. it removes every shard of the prefix, whatever the shard count that wrote it;
3. it renames the new shards into place;
4. it writes the zero-byte marker, last;
5. it removes its temporary directory and any that a killed run left for the same prefix.

So a kill at any moment leaves under the final names the old output with its marker, the new
one with its marker, or — without a marker — part of one of them or nothing; never shards of
two runs. A rerun publishes its output whole. Readers that must not see a partial output wait
for the marker. (On object stores a rename is a copy: the same order holds, each step slower.)

A writer that knows no run ever wrote to the prefix (a streaming micro-batch beyond any
written before its query started) publishes it *fresh*: steps 3 and 4, then removes its own
temporary directory, listing nothing — listings grow with the files beside the prefix.

``fs`` is a file system in Beam's ``FileSystems`` interface plus ``list_prefix(path)``: the
files and directories beside ``path`` whose paths start with it.
"""

from __future__ import annotations

import posixpath
import re
import uuid

MARKER_SUFFIX = ".SUCCESS"
TEMPORARY_PREFIX = ".panes-temp-"


def marker(prefix: str) -> str:
    """The zero-byte file that says the output under ``prefix`` is complete."""
    return prefix + MARKER_SUFFIX


def temporary_stem(prefix: str) -> str:
    """What the paths of ``prefix``'s temporary directories start with."""
    head, tail = posixpath.split(prefix)
    return posixpath.join(head, TEMPORARY_PREFIX + tail)


def temporary_directory(prefix: str) -> str:
    """A fresh directory beside ``prefix`` for shards still being written."""
    return f"{temporary_stem(prefix)}-{uuid.uuid4().hex}"


def write_and_publish(
    fs, prefix: str, shard_regex: re.Pattern, write, fresh: bool = False
) -> list[str]:
    """Runs ``write(temporary directory)``, which writes every shard there and returns
    ``[(temporary path, final path)]``, then publishes the shards (``fresh``: see above). A
    failed write leaves the previous output as it was."""
    temporary = temporary_directory(prefix)
    try:
        renames = write(temporary)
    except BaseException:
        _remove(fs, [temporary])
        raise
    if fresh:
        _move_into_place(fs, prefix, renames)
        _remove(fs, [temporary])
    else:
        publish(fs, prefix, shard_regex, renames)
    return [final for _, final in renames]


def publish(fs, prefix: str, shard_regex: re.Pattern, renames: list) -> None:
    """Steps 1 to 5 above; ``shard_regex`` matches the base name of any shard of ``prefix``."""
    done = marker(prefix)
    if fs.exists(done):
        fs.delete([done])
    _remove(
        fs, [path for path in fs.list_prefix(prefix) if shard_regex.match(posixpath.basename(path))]
    )
    _move_into_place(fs, prefix, renames)
    remove_leftovers(fs, prefix)


def _move_into_place(fs, prefix: str, renames: list) -> None:
    """Steps 3 and 4: the shards under their final names, then the marker."""
    fs.rename([temporary for temporary, _ in renames], [final for _, final in renames])
    fs.create(marker(prefix)).close()


def remove_leftovers(fs, prefix: str) -> None:
    """Removes the temporary directories of every run that wrote to ``prefix``."""
    stem = temporary_stem(prefix)
    own = re.compile(re.escape(posixpath.basename(stem)) + r"-[0-9a-f]{32}\Z")
    _remove(fs, [path for path in fs.list_prefix(stem) if own.match(posixpath.basename(path))])


def _remove(fs, paths: list) -> None:
    present = [path for path in paths if fs.exists(path)]
    if present:
        fs.delete(present)
