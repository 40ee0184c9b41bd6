"""Local files through the part of ``pyarrow.fs``'s interface that ``FileSystems`` uses, so that
the base install (no pyarrow) reads and writes local paths; other schemes need pyarrow."""

from __future__ import annotations

import bz2
import datetime as dt
import enum
import gzip
import os
import shutil
from dataclasses import dataclass

_OPENERS = {None: open, "gzip": gzip.open, "bz2": bz2.open}


class FileType(enum.IntEnum):
    """``pyarrow.fs.FileType``'s names and values."""

    NotFound = 0
    Unknown = 1
    File = 2
    Directory = 3


@dataclass(frozen=True)
class FileSelector:
    base_dir: str
    recursive: bool = False


@dataclass(frozen=True)
class FileInfo:
    path: str
    type: FileType
    size: int | None = None
    mtime_ns: int | None = None

    @property
    def mtime(self) -> dt.datetime:
        return dt.datetime.fromtimestamp((self.mtime_ns or 0) / 1e9, tz=dt.timezone.utc)


class LocalFileSystem:
    """The local disk, with absolute paths as ``pyarrow.fs.LocalFileSystem`` takes them."""

    def get_file_info(self, what):
        if isinstance(what, FileSelector):
            return self._listing(what)
        try:
            status = os.stat(what)
        except FileNotFoundError:
            return FileInfo(what, FileType.NotFound)
        if os.path.isdir(what):
            return FileInfo(what, FileType.Directory, mtime_ns=status.st_mtime_ns)
        return FileInfo(what, FileType.File, status.st_size, status.st_mtime_ns)

    def _listing(self, selector: FileSelector) -> list:
        if not os.path.isdir(selector.base_dir):
            raise FileNotFoundError(f"{selector.base_dir} is not a directory")
        if not selector.recursive:
            names = [
                os.path.join(selector.base_dir, name) for name in os.listdir(selector.base_dir)
            ]
        else:
            names = [
                os.path.join(folder, name)
                for folder, folders, files in os.walk(selector.base_dir)
                for name in folders + files
            ]
        return [self.get_file_info(name) for name in names]

    def create_dir(self, path: str, recursive: bool = True) -> None:
        os.makedirs(path, exist_ok=True) if recursive else os.mkdir(path)

    def open_input_file(self, path: str):
        return open(path, "rb")

    def open_input_stream(self, path: str, compression=None):
        return _opener(compression)(path, "rb")

    def open_output_stream(self, path: str, compression=None):
        return _opener(compression)(path, "wb")

    def copy_file(self, source: str, destination: str) -> None:
        shutil.copyfile(source, destination)

    def move(self, source: str, destination: str) -> None:
        os.replace(source, destination)

    def delete_file(self, path: str) -> None:
        os.remove(path)

    def delete_dir(self, path: str) -> None:
        shutil.rmtree(path)


def _opener(compression):
    return _OPENERS.get(compression) or (lambda path, mode: _arrow_stream(path, mode, compression))


def _arrow_stream(path: str, mode: str, compression: str):
    try:
        import pyarrow as pa
    except ImportError:
        raise OSError(
            f"{path}: {compression} files need pyarrow: pip install 'panes[parquet]'"
        ) from None
    if mode == "rb":
        return pa.CompressedInputStream(pa.OSFile(path, "rb"), compression)
    return pa.CompressedOutputStream(path, compression)
