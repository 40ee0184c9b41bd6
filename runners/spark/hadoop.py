"""The cluster's file systems as Spark sees them: Hadoop's ``FileSystem``, called from the
driver through the JVM gateway, in Beam's ``FileSystems`` interface (what ``panes.io.files``
and ``panes.io.commit`` use). Whatever the cluster is configured for works: ``file://``,
``hdfs://``, ``s3a://``, ``abfs://``, ``gs://`` or a scheme of its own
(``spark.hadoop.fs.<scheme>.impl``). Only names, sizes, markers and small records (a
streaming checkpoint's) pass through here; the data is read and written by the executors.

Hadoop's local file system keeps a hidden ``.<name>.crc`` checksum beside every file it
writes. Files are renamed into place and markers written without one (through the file
system beneath the checksums), so an output is its shards and its marker only; the checksums
Spark's writers left stay in the temporary directory, removed with it."""

from __future__ import annotations

import functools
import os
import posixpath

from panes.io.filesystem import BeamIOError, FileMetadata, MatchResult
from panes.io.filesystems import glob_regex

# Hadoop glob characters, escaped when a path names a file literally.
_GLOB_CHARACTERS = "\\*?[]{}"
# The connector each object store's Hadoop file system comes in, which pyspark does not ship.
_CONNECTORS = {
    "gs": "Google's GCS connector (com.google.cloud.bigdataoss:gcs-connector)",
    "s3a": "Hadoop's S3A connector (org.apache.hadoop:hadoop-aws, of the cluster's Hadoop)",
    "abfs": "Hadoop's Azure connector (org.apache.hadoop:hadoop-azure)",
    "abfss": "Hadoop's Azure connector (org.apache.hadoop:hadoop-azure)",
    "wasb": "Hadoop's Azure connector (org.apache.hadoop:hadoop-azure)",
}


def _missing_file_system(path: str, java_error: str) -> str | None:
    """What to do when Hadoop has no file system for ``path``'s scheme; None for another
    error."""
    if "ClassNotFoundException" not in java_error and "No FileSystem for scheme" not in java_error:
        return None
    scheme = path.split("://", 1)[0] if "://" in path else "file"
    connector = _CONNECTORS.get(scheme, f"a Hadoop file system for {scheme}://")
    return (
        f"{path}: Spark has no Hadoop file system for {scheme}:// "
        f"({java_error.splitlines()[0]}). Put {connector} on the cluster's classpath, e.g. "
        f"with --spark_conf spark.jars.packages=..., and its settings and credentials in "
        f"spark.hadoop.fs.{scheme}.*"
    )


def literal(path: str) -> str:
    """``path`` escaped so that a Hadoop glob (as Spark's readers apply) matches only it."""
    return "".join("\\" + c if c in _GLOB_CHARACTERS else c for c in path)


class HadoopFileSystems:
    """File operations through the Hadoop configuration of a SparkContext."""

    def __init__(self, sc):
        self._jvm = sc._jvm
        self._conf = sc._jsc.hadoopConfiguration()
        # Looked up once: the gateway finds a class by its dotted name a package at a time,
        # each package a failed class lookup over every jar of the classpath.
        self._path = sc._jvm.org.apache.hadoop.fs.Path

    @functools.cached_property
    def _checksummed(self):
        """Hadoop's ``ChecksumFileSystem`` class, looked up when first needed."""
        return self._jvm.java.lang.Class.forName("org.apache.hadoop.fs.ChecksumFileSystem")

    def _resolve(self, path: str) -> tuple:
        from py4j.protocol import Py4JJavaError

        jpath = self._path(path)
        try:
            return jpath.getFileSystem(self._conf), jpath
        except Py4JJavaError as error:
            missing = _missing_file_system(path, error.java_exception.toString())
            if missing is None:
                raise
            raise OSError(missing) from None

    def _without_checksums(self, filesystem):
        """``filesystem``, or the one beneath it if it keeps checksum files and takes the same
        paths (not under a scheme of its own, which only the checksummed one translates)."""
        if not self._checksummed.isInstance(filesystem):
            return filesystem
        raw = filesystem.getRawFileSystem()
        same_paths = raw.getUri().getScheme() == filesystem.getUri().getScheme()
        return raw if same_paths else filesystem

    def qualified(self, path: str) -> str:
        """``path`` with the scheme and authority of the default file system, so executors
        find it. A relative local path is the driver's, from its working directory now (as on
        the direct runner; the JVM's stays where the session started); on another default
        file system, from that file system's working directory."""
        filesystem, jpath = self._resolve(path)
        if not jpath.isAbsolute() and filesystem.getUri().getScheme() == "file":
            filesystem, jpath = self._resolve(os.path.abspath(path))
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
            if not filesystem.exists(self._path(base)):
                return []
            listing = filesystem.listFiles(self._path(base), True)
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
            if not self._without_checksums(filesystem).rename(jsource, jdestination):
                failures[(source, destination)] = OSError(f"could not rename {source}")
        if failures:
            raise BeamIOError("Rename operation failed", failures)

    def create(self, path: str) -> _Output:
        """A small file written from the driver (a marker, an empty shard)."""
        filesystem, jpath = self._resolve(path)
        return _Output(self._without_checksums(filesystem).create(jpath, True))

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
        pattern = self._path(literal(self.qualified(path)) + "*")
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
