"""What file-system operations speak in, with Beam's names: compression types, file metadata,
match results and the error of a batch operation (``apache_beam.io.filesystem``)."""

from __future__ import annotations

import os
from dataclasses import dataclass


class CompressionTypes:
    """How a file's bytes are compressed; ``AUTO`` decides by the file name's extension."""

    AUTO = "auto"
    BZIP2 = "bzip2"
    GZIP = "gzip"
    ZSTD = "zstd"
    UNCOMPRESSED = "uncompressed"

    _BY_EXTENSION = {".gz": GZIP, ".bz2": BZIP2, ".zst": ZSTD}

    @classmethod
    def is_valid_compression_type(cls, compression_type) -> bool:
        return compression_type in (cls.AUTO, cls.BZIP2, cls.GZIP, cls.ZSTD, cls.UNCOMPRESSED)

    @classmethod
    def detect_compression_type(cls, file_path: str) -> str:
        """The compression ``AUTO`` means for ``file_path``: by extension, else uncompressed."""
        return cls._BY_EXTENSION.get(os.path.splitext(file_path)[1].lower(), cls.UNCOMPRESSED)

    @classmethod
    def resolved(cls, compression_type: str, file_path: str) -> str:
        """``compression_type``, with ``AUTO`` replaced by what the path's extension says."""
        if not cls.is_valid_compression_type(compression_type):
            raise ValueError(
                f"unknown compression type {compression_type!r}; use one of "
                f"CompressionTypes.AUTO, GZIP, BZIP2, ZSTD, UNCOMPRESSED"
            )
        if compression_type == cls.AUTO:
            return cls.detect_compression_type(file_path)
        return compression_type


@dataclass(frozen=True)
class FileMetadata:
    """A matched file: its path, size in bytes and last modification (seconds since the
    epoch, 0.0 when unknown)."""

    path: str
    size_in_bytes: int
    last_updated_in_seconds: float = 0.0


@dataclass(frozen=True)
class MatchResult:
    """The files one pattern matched."""

    pattern: str
    metadata_list: list


class BeamIOError(IOError):
    """A batch file-system operation failed for some inputs; ``exception_details`` maps each
    failed input to its exception."""

    def __init__(self, msg: str, exception_details: dict | None = None):
        super().__init__(f"{msg} with exceptions {exception_details}")
        self.exception_details = exception_details
