"""The cluster's file systems as Spark sees them: Hadoop's ``FileSystem``, called from the
driver through the JVM gateway, in Beam's ``FileSystems`` interface (what ``panes.io.files``
and ``panes.io.commit`` use). Whatever the cluster is configured for works: ``file://``,
``hdfs://``, ``s3a://``, ``abfs://``, ``gs://`` or a scheme of its own
(``spark.hadoop.fs.<scheme>.impl``). Only names, sizes, markers and small records (a
streaming checkpoint's) pass through here; the data is read and written by the executors."""

from __future__ import annotations

import posixpath

from panes.io.filesystem import BeamIOError, FileMetadata, MatchResult
from panes.io.filesystems import glob_regex

# Hadoop glob characters, escaped when a path names a file literally.
_GLOB_CHARACTERS = "\\*?[]{}"


def literal(path: str) -> str:
    """``path`` escaped so that a Hadoop glob (as Spark's readers apply) matches only it."""
    return "".join("\\" + c if c in _GLOB_CHARACTERS else c for c in path)


class HadoopFileSystems:
    """File operations through the Hadoop configuration of a SparkContext."""

    def __init__(self, sc):
        self._jvm = sc._jvm
        self._conf = sc._jsc.hadoopConfiguration()

    def _resolve(self, path: str) -> tuple:
        jpath = self._jvm.org.apache.hadoop.fs.Path(path)
        return jpath.getFileSystem(self._conf), jpath

    def qualified(self, path: str) -> str:
        """``path`` with the scheme and authority of the default file system, relative to
        the driver's working directory (as Spark resolves it), so executors find it."""
        filesystem, jpath = self._resolve(path)
        return jpath.makeQualified(filesystem.getUri(), filesystem.getWorkingDirectory()).toString()

    def match(self, patterns: list, limits: list | None = None) -> list:
        limits = limits or [None] * len(patterns)
        return [
            MatchResult(pattern, self._match(pattern)[:limit])
            for pattern, limit in zip(patterns, limits)
        ]

    def _match(self, pattern: str) -> list:
        filesystem, jpath = self._resolve(pattern)
        if "**" in pattern:  # Beam's recursive wildcard, which Hadoop globs lack
            qualified = self.qualified(pattern)
            base = qualified[: qualified.index("**")].rsplit("/", 1)[0]
            if not filesystem.exists(self._jvm.org.apache.hadoop.fs.Path(base)):
                return []
            listing = filesystem.listFiles(self._jvm.org.apache.hadoop.fs.Path(base), True)
            regex, statuses = glob_regex(qualified), []
            while listing.hasNext():
                status = listing.next()
                if regex.match(status.getPath().toString()):
                    statuses.append(status)
        else:
            statuses = [
                status for status in (filesystem.globStatus(jpath) or []) if status.isFile()
            ]
        files = [
            FileMetadata(
                status.getPath().toString(), status.getLen(), status.getModificationTime() / 1000
            )
            for status in statuses
        ]
        return sorted(files, key=lambda file: file.path)

    def exists(self, path: str) -> bool:
        filesystem, jpath = self._resolve(path)
        return filesystem.exists(jpath)

    def delete(self, paths: list) -> None:
        failures = {}
        for path in paths:
            filesystem, jpath = self._resolve(path)
            if not filesystem.delete(jpath, True):
                failures[path] = OSError(f"could not delete {path}")
        if failures:
            raise BeamIOError("Delete operation failed", failures)

    def rename(self, source_file_names: list, destination_file_names: list) -> None:
        failures = {}
        for source, destination in zip(source_file_names, destination_file_names):
            filesystem, jsource = self._resolve(source)
            _, jdestination = self._resolve(destination)
            filesystem.mkdirs(jdestination.getParent())
            if not filesystem.rename(jsource, jdestination):
                failures[(source, destination)] = OSError(f"could not rename {source}")
        if failures:
            raise BeamIOError("Rename operation failed", failures)

    def create(self, path: str) -> _Output:
        """A small file written from the driver (a marker, an empty shard)."""
        filesystem, jpath = self._resolve(path)
        return _Output(filesystem.create(jpath, True))

    def set_modification_time(self, path: str, millis: int) -> None:
        filesystem, jpath = self._resolve(path)
        filesystem.setTimes(jpath, millis, -1)

    def read(self, path: str) -> bytes:
        """The bytes of a small file, read on the driver (a record beside a checkpoint)."""
        filesystem, jpath = self._resolve(path)
        stream = filesystem.open(jpath)
        try:
            return bytes(self._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()

    def list_prefix(self, path: str) -> list:
        """The files and directories beside ``path`` whose names start with its own: a glob
        the file system matches, so only those cross to Python (a directory of a streaming
        job's outputs holds many)."""
        filesystem, _ = self._resolve(path)
        pattern = self._jvm.org.apache.hadoop.fs.Path(literal(self.qualified(path)) + "*")
        return sorted(s.getPath().toString() for s in filesystem.globStatus(pattern) or [])

    def list_directory(self, path: str) -> list:
        """The base names of the files directly in the directory ``path``."""
        filesystem, jpath = self._resolve(path)
        return [
            posixpath.basename(s.getPath().toString())
            for s in filesystem.listStatus(jpath)
            if s.isFile()
        ]


class _Output:
    """A Hadoop output stream taking Python bytes."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, data: bytes) -> None:
        if data:
            self._stream.write(bytearray(data))

    def close(self) -> None:
        self._stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
