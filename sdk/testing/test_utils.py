"""File helpers for tests, as Beam's ``apache_beam.testing.test_utils``."""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import tempfile
from pathlib import Path


def create_file(path: str, contents: str) -> str:
    """Writes ``contents`` (UTF-8) to ``path``, making its directory, and returns the path."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as out:
        out.write(contents.encode("utf-8"))
    return path


def read_files_from_pattern(file_pattern: str) -> str:
    """The stripped contents of the files a pattern matches, joined by newlines."""
    return "\n".join(
        Path(path).read_text(encoding="utf-8").strip() for path in sorted(glob.glob(file_pattern))
    )


def compute_hash(content, hashing_alg: str = "sha1") -> str:
    """A hash of a list of objects by their string forms, independent of their order."""
    encoded = sorted(x if isinstance(x, bytes) else str(x).encode("utf-8") for x in content)
    digest = hashlib.new(hashing_alg)
    for element in encoded:
        digest.update(element)
    return digest.hexdigest()


class TempDir:
    """A temporary directory, removed when the ``with`` block ends."""

    def __init__(self):
        self._tempdir = tempfile.mkdtemp()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        shutil.rmtree(self._tempdir, ignore_errors=True)

    def get_path(self) -> str:
        return self._tempdir

    def create_temp_file(self, suffix: str = "", lines=None) -> str:
        """A new file in the directory holding ``lines`` (bytes, written as given)."""
        with tempfile.NamedTemporaryFile(delete=False, dir=self._tempdir, suffix=suffix) as f:
            for line in lines or ():
                f.write(line)
        return f.name
