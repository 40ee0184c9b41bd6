"""Apache Beam's own files that the tests use (its example programs and tests, its trigger
transcripts), read from the installed ``apache_beam`` package: the repository holds no copy.

``beam_files.sha256`` lists each file used, by its path in the package, with its sha256 as in
the Beam release the expected outputs were recorded with (the version on its first line, which
the ``beam`` extra pins). A different installed version, or a file that differs, fails loudly
rather than comparing against outputs recorded from other sources.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
from pathlib import Path

import pytest

MANIFEST = Path(__file__).with_name("beam_files.sha256")
_VERSION_LINE = "# apache-beam "


class BeamFileMismatch(AssertionError):
    """The installed Apache Beam is not the one the tests were recorded with."""


def recorded_version() -> str:
    """The Beam version the manifest (and the expected outputs) were recorded with."""
    first = MANIFEST.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith(_VERSION_LINE):
        raise BeamFileMismatch(f"{MANIFEST}: its first line must be '{_VERSION_LINE}VERSION'")
    return first.removeprefix(_VERSION_LINE).strip()


def manifest() -> dict[str, str]:
    """``{path in apache_beam/: sha256}`` of every Beam file the tests use."""
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()[1:]
    return {path: digest for digest, path in (line.split(maxsplit=1) for line in lines if line)}


def package_root() -> Path:
    """The installed ``apache_beam`` package's folder, checked against the recorded version;
    skips the calling test when Beam is not installed (it is the ``beam`` extra)."""
    spec = importlib.util.find_spec("apache_beam")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(
            "Apache Beam's files are read from the beam extra: pip install -e '.[beam]'",
            allow_module_level=True,
        )
    return _checked_root(str(next(iter(spec.submodule_search_locations))))


@functools.cache
def _checked_root(location: str) -> Path:
    installed = importlib.metadata.version("apache-beam")
    if installed != recorded_version():
        raise BeamFileMismatch(
            f"the tests read Apache Beam {recorded_version()}'s own files and compare with "
            f"outputs recorded with it, but apache-beam {installed} is installed: "
            f"pip install -e '.[beam]' (which pins {recorded_version()})"
        )
    return Path(location)


@functools.cache
def beam_file(path: str) -> Path:
    """The installed ``apache_beam/<path>``, after checking it is the recorded file."""
    expected = manifest().get(path)
    if expected is None:
        raise BeamFileMismatch(
            f"apache_beam/{path} is not in {MANIFEST.name}: add it with "
            f"python tests/beam_ports/record.py --manifest"
        )
    file = package_root() / path
    found = sha256_of(file) if file.exists() else "no such file"
    if found != expected:
        raise BeamFileMismatch(
            f"apache_beam/{path} in the installed package ({file}) is not the file the "
            f"expected outputs were recorded with: sha256 {found}, recorded {expected}. "
            f"Reinstall apache-beam=={recorded_version()} (pip install -e '.[beam]'), or, "
            f"moving to another Beam, re-record (tests/beam_ports/record.py) and rewrite the "
            f"manifest (record.py --manifest)"
        )
    return file


def sha256_of(file: Path) -> str:
    return hashlib.sha256(file.read_bytes()).hexdigest()


def write_manifest(paths) -> None:
    """Writes the manifest of ``paths`` as the installed Beam has them."""
    root = package_root()
    installed = importlib.metadata.version("apache-beam")
    lines = [f"{_VERSION_LINE}{installed}"]
    lines += [f"{sha256_of(root / path)}  {path}" for path in sorted(set(paths))]
    MANIFEST.write_text("\n".join(lines) + "\n", encoding="utf-8")
