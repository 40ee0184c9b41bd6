"""Beam's ``FileSystems``: file operations on paths that may be URIs, for the direct runner
and the Spark driver.

A path without a scheme (or ``file://``) is a local file (``panes.io.localfs``: the base
install needs no pyarrow); any other scheme goes to the matching ``pyarrow.fs`` file system
(``s3://`` — also spelled ``s3a://``/``s3n://`` as Hadoop does —, ``gs://``, ``hdfs://``,
``abfs://``, whatever the installed pyarrow supports), so a pipeline reads the same URIs on the
direct runner that Spark's readers read.

Patterns follow Beam: ``*`` and ``?`` stay within one path component, ``**`` crosses them,
``[...]`` is a character class.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import socket

from panes.io import localfs
from panes.io.filesystem import BeamIOError, CompressionTypes, FileMetadata, MatchResult

_URI = re.compile(r"(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*)://(?P<rest>.*)", re.DOTALL)
_GLOB = re.compile(r"[*?\[]")
# Hadoop's spellings of schemes pyarrow knows under another name.
_SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
_ARROW_COMPRESSION = {
    CompressionTypes.UNCOMPRESSED: None,
    CompressionTypes.GZIP: "gzip",
    CompressionTypes.BZIP2: "bz2",
    CompressionTypes.ZSTD: "zstd",
}


def has_glob(path: str) -> bool:
    return bool(_GLOB.search(path))


def glob_regex(pattern: str) -> re.Pattern:
    """Beam's pattern syntax as a regular expression over whole paths."""
    parts, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        if char == "*":
            parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        elif char == "[" and "]" in pattern[index + 2 :]:
            end = pattern.index("]", index + 2)
            body = pattern[index + 1 : end]
            parts.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            index = end
        else:
            parts.append(re.escape(char))
        index += 1
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


@functools.cache
def _arrow_filesystem(scheme: str, authority: str):
    if scheme in ("", "file"):
        return localfs.LocalFileSystem()
    try:
        from pyarrow import fs as pafs
    except ImportError:
        raise BeamIOError(
            f"{scheme}:// paths need pyarrow's file systems: pip install 'panes[parquet]'"
        ) from None
    if scheme in ("gs", "gcs") and not _google_credentials_found():
        raise OSError(
            f"{scheme}://{authority}: no Google Cloud credentials were found (pyarrow's GCS "
            f"client would retry for 15 minutes before failing). Install the Google Cloud CLI "
            f"and run `gcloud auth application-default login`, or set "
            f"GOOGLE_APPLICATION_CREDENTIALS to a service account key file; on Google Cloud "
            f"machines the metadata server provides them"
        )
    return pafs.FileSystem.from_uri(f"{_SCHEME_ALIASES.get(scheme, scheme)}://{authority}/")[0]


def _google_credentials_found() -> bool:
    """Whether Google's application default credentials can be found, looked for where
    Google's clients look: a key file, gcloud's login, a metadata server."""
    if os.environ.get("GOOGLE_APPLICATION_CREDENTIALS") or os.environ.get("GCE_METADATA_HOST"):
        return True
    gcloud = os.environ.get("CLOUDSDK_CONFIG") or os.path.expanduser("~/.config/gcloud")
    if os.path.exists(os.path.join(gcloud, "application_default_credentials.json")):
        return True
    try:
        socket.getaddrinfo("metadata.google.internal", 80)
    except OSError:
        return False
    return True


def _selector(filesystem, base: str, recursive: bool = False):
    """A listing request in ``filesystem``'s own type."""
    if isinstance(filesystem, localfs.LocalFileSystem):
        return localfs.FileSelector(base, recursive)
    from pyarrow import fs as pafs

    return pafs.FileSelector(base, recursive=recursive)


def _kind(info) -> str:
    """``NotFound``, ``File``, ``Directory`` or ``Unknown``, whichever file system listed it."""
    return info.type.name


def _resolve(path: str) -> tuple:
    """``(pyarrow file system, its path for ``path``, what paths start with in ``path``'s
    spelling — scheme and authority —, the same in pyarrow's)``; local paths are absolute."""
    match = _URI.match(path)
    if match is None or match.group("scheme") == "file":
        local = match.group("rest") if match else path
        absolute = os.path.abspath(os.path.expanduser(local))
        return _arrow_filesystem("", ""), absolute, path[: len(path) - len(local)], ""
    scheme, rest = match.group("scheme"), match.group("rest")
    authority, _, key = rest.partition("/")
    filesystem = _arrow_filesystem(scheme, authority)
    # Object stores name a file bucket/key; a Hadoop file system names it /key.
    arrow_prefix = (
        authority if type(filesystem).__name__ in ("S3FileSystem", "GcsFileSystem") else ""
    )
    return (
        filesystem,
        f"{arrow_prefix}/{key}".lstrip("/") if arrow_prefix else f"/{key}",
        f"{scheme}://{authority}",
        arrow_prefix,
    )


class FileSystems:
    """File operations by path; every method is static, as in Beam."""

    @staticmethod
    def get_scheme(path: str):
        match = _URI.match(path.strip())
        return match.group("scheme") if match else None

    @staticmethod
    def join(basepath: str, *paths: str) -> str:
        return (
            posixpath.join(basepath, *paths)
            if FileSystems.get_scheme(basepath)
            else os.path.join(basepath, *paths)
        )

    @staticmethod
    def split(path: str) -> tuple:
        head, tail = (
            posixpath.split(path.rstrip("/"))
            if FileSystems.get_scheme(path)
            else os.path.split(path)
        )
        return head, tail

    @staticmethod
    def absolute(path: str) -> str:
        """``path`` with a local relative path made absolute (URIs are already)."""
        if FileSystems.get_scheme(path):
            return path
        return os.path.abspath(os.path.expanduser(path))

    @staticmethod
    def mkdirs(path: str) -> None:
        filesystem, arrow_path, _, _ = _resolve(path)
        if FileSystems.exists(path):
            raise OSError(f"{path} already exists")
        filesystem.create_dir(arrow_path, recursive=True)

    @staticmethod
    def match(patterns: list, limits: list | None = None) -> list:
        """A ``MatchResult`` per pattern, its files sorted by path (a pattern without wildcards
        matches the one file it names, or nothing; one ending with ``/`` is a folder's files,
        as in Beam)."""
        limits = limits or [None] * len(patterns)
        results, failures = [], {}
        for pattern, limit in zip(patterns, limits):
            pattern = pattern + "*" if pattern.endswith("/") else pattern
            _resolve(pattern)  # a file system that cannot be used fails alone, saying why
            try:
                results.append(MatchResult(pattern, _match(pattern)[:limit]))
            except OSError as error:
                failures[pattern] = error
        if failures:
            raise BeamIOError("Match operation failed", failures)
        return results

    @staticmethod
    def create(
        path: str,
        mime_type: str = "application/octet-stream",
        compression_type: str = CompressionTypes.AUTO,
    ):
        """A binary stream writing a new file at ``path`` (its directory made if need be)."""
        filesystem, arrow_path, _, _ = _resolve(path)
        filesystem.create_dir(posixpath.dirname(arrow_path), recursive=True)
        compression = CompressionTypes.resolved(compression_type, path)
        return filesystem.open_output_stream(
            arrow_path, compression=_ARROW_COMPRESSION[compression]
        )

    @staticmethod
    def open(
        path: str,
        mime_type: str = "application/octet-stream",
        compression_type: str = CompressionTypes.AUTO,
    ):
        """A binary file reading ``path``: seekable when uncompressed, else a stream of the
        decompressed bytes."""
        filesystem, arrow_path, _, _ = _resolve(path)
        compression = CompressionTypes.resolved(compression_type, path)
        if compression == CompressionTypes.UNCOMPRESSED:
            return filesystem.open_input_file(arrow_path)
        return filesystem.open_input_stream(arrow_path, compression=_ARROW_COMPRESSION[compression])

    @staticmethod
    def copy(source_file_names: list, destination_file_names: list) -> None:
        _each(
            "Copy",
            source_file_names,
            destination_file_names,
            lambda fs, source, destination: fs.copy_file(source, destination),
        )

    @staticmethod
    def rename(source_file_names: list, destination_file_names: list) -> None:
        _each(
            "Rename",
            source_file_names,
            destination_file_names,
            lambda fs, source, destination: fs.move(source, destination),
        )

    @staticmethod
    def exists(path: str) -> bool:
        filesystem, arrow_path, _, _ = _resolve(path)
        return _kind(filesystem.get_file_info(arrow_path)) != "NotFound"

    @staticmethod
    def last_updated(path: str) -> float:
        return _info(path).mtime.timestamp()

    @staticmethod
    def checksum(path: str) -> str:
        """What changes when the file does, without reading it: its size and modification."""
        info = _info(path)
        return f"{info.size}-{info.mtime_ns}"

    @staticmethod
    def list_prefix(path: str) -> list:
        """The files and directories beside ``path`` whose paths start with it (not Beam's:
        what a commit needs to find a prefix's shards and temporary directories)."""
        filesystem, arrow_path, own_prefix, arrow_prefix = _resolve(path)
        directory = posixpath.dirname(arrow_path)
        try:
            listed = filesystem.get_file_info(_selector(filesystem, directory))
        except FileNotFoundError:
            return []
        return sorted(
            _spelled(info.path, own_prefix, arrow_prefix)
            for info in listed
            if info.path.startswith(arrow_path)
        )

    @staticmethod
    def delete(paths: list) -> None:
        """Deletes files, and directories with everything under them."""
        if isinstance(paths, str):
            raise BeamIOError(f"Delete passed string argument instead of list: {paths}")
        failures = {}
        for path in paths:
            filesystem, arrow_path, _, _ = _resolve(path)
            try:
                kind = _kind(filesystem.get_file_info(arrow_path))
                if kind == "NotFound":
                    raise FileNotFoundError(f"{path} does not exist")
                if kind == "Directory":
                    filesystem.delete_dir(arrow_path)
                else:
                    filesystem.delete_file(arrow_path)
            except OSError as error:
                failures[path] = error
        if failures:
            raise BeamIOError("Delete operation failed", failures)


def _info(path: str):
    filesystem, arrow_path, _, _ = _resolve(path)
    info = filesystem.get_file_info(arrow_path)
    if _kind(info) == "NotFound":
        raise BeamIOError(f"{path} does not exist", {path: FileNotFoundError(path)})
    return info


def _each(operation: str, sources: list, destinations: list, act) -> None:
    if len(sources) != len(destinations):
        raise BeamIOError(
            f"{operation}: {len(sources)} sources but {len(destinations)} destinations"
        )
    failures = {}
    for source, destination in zip(sources, destinations):
        filesystem, source_path, _, _ = _resolve(source)
        destination_path = _resolve(destination)[1]
        try:
            filesystem.create_dir(posixpath.dirname(destination_path), recursive=True)
            act(filesystem, source_path, destination_path)
        except OSError as error:
            failures[(source, destination)] = error
    if failures:
        raise BeamIOError(f"{operation} operation failed", failures)


def _spelled(arrow_path: str, own_prefix: str, arrow_prefix: str) -> str:
    """A listed path with the scheme and authority of the path that listed it."""
    return own_prefix + "/" + arrow_path[len(arrow_prefix) :].lstrip("/")


def _match(pattern: str) -> list:
    """The files ``pattern`` matches, named in the pattern's own spelling as Beam's file
    systems name them (a relative pattern gives relative paths, a URI URIs)."""
    filesystem, arrow_pattern, _, _ = _resolve(pattern)
    wildcard = _GLOB.search(pattern)
    if wildcard is None:
        info = filesystem.get_file_info(arrow_pattern)
        return [_metadata(info, pattern)] if _kind(info) == "File" else []
    components = arrow_pattern.split("/")
    fixed = next(i for i, part in enumerate(components) if has_glob(part))
    base = "/".join(components[:fixed]) or "/"
    recursive = "**" in arrow_pattern or fixed < len(components) - 1
    try:
        listed = filesystem.get_file_info(_selector(filesystem, base, recursive))
    except FileNotFoundError:
        return []
    regex = glob_regex(arrow_pattern)
    files = [info for info in listed if _kind(info) == "File" and regex.match(info.path)]
    # The folder before the first wildcard, as the pattern spells it and as listed.
    spelled_base = pattern[: pattern.rfind("/", 0, wildcard.start()) + 1]
    listed_base = base.rstrip("/") + "/"
    return [
        _metadata(info, spelled_base + info.path[len(listed_base) :])
        for info in sorted(files, key=lambda info: info.path)
    ]


def _metadata(info, path: str) -> FileMetadata:
    return FileMetadata(path, info.size, info.mtime.timestamp())
