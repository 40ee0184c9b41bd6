"""Apache Beam's files are read from the installed package, and only as recorded: the version
the ``beam`` extra pins, each file's sha256 in ``beam_files.sha256``."""

import re
import shutil
from pathlib import Path

import beam_files
import pytest
from beam_files import BeamFileMismatch, beam_file, manifest, recorded_version

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def installed_copy(tmp_path, monkeypatch):
    """A copy of the installed Beam files the tests use, standing in for the package."""
    for path in manifest():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(beam_file(path), tmp_path / path)
    beam_file.cache_clear()
    monkeypatch.setattr(beam_files, "package_root", lambda: tmp_path)
    yield tmp_path
    beam_file.cache_clear()


def test_the_beam_extra_pins_the_recorded_version():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^beam = \["apache-beam==([\d.]+)"\]', pyproject, re.M)[1] == (
        recorded_version()
    )


def test_a_recorded_file_is_read_from_the_installed_package():
    path = "examples/wordcount.py"
    assert beam_file(path) == beam_files.package_root() / path
    assert beam_files.sha256_of(beam_file(path)) == manifest()[path]


def test_a_changed_original_fails_naming_the_file_and_what_to_do(installed_copy):
    path = "examples/wordcount.py"
    with open(installed_copy / path, "a", encoding="utf-8") as original:
        original.write("# changed\n")
    with pytest.raises(BeamFileMismatch, match=r"apache_beam/examples/wordcount.py .*re-record"):
        beam_file(path)


def test_a_missing_original_fails_too(installed_copy):
    (installed_copy / "examples/wordcount.py").unlink()
    with pytest.raises(BeamFileMismatch, match="sha256 no such file"):
        beam_file("examples/wordcount.py")


def test_a_file_outside_the_manifest_is_refused():
    with pytest.raises(BeamFileMismatch, match="not in beam_files.sha256"):
        beam_file("examples/streaming_wordcount.py")


def test_another_installed_version_is_refused(monkeypatch):
    beam_files._checked_root.cache_clear()
    monkeypatch.setattr(beam_files.importlib.metadata, "version", lambda name: "2.99.0")
    try:
        with pytest.raises(BeamFileMismatch, match="apache-beam 2.99.0 is installed"):
            beam_files.package_root()
    finally:
        beam_files._checked_root.cache_clear()
