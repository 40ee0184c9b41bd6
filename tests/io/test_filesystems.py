"""Beam's FileSystems over pyarrow: patterns as Beam reads them, URIs and local paths alike,
compressed streams, and batch operations that report what failed."""

import gzip
import os
import socket
import subprocess
import sys

import pytest

from panes.io.filesystem import BeamIOError, CompressionTypes
from panes.io.filesystems import FileSystems, _google_credentials_found


@pytest.fixture
def tree(tmp_path):
    for name in ("a.txt", "b.txt", "c.csv", "sub/d.txt", "sub/deep/e.txt", "[x].txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    return tmp_path


def names(tree, pattern) -> list:
    [result] = FileSystems.match([str(tree) + "/" + pattern])
    return [m.path[len(str(tree)) + 1 :] for m in result.metadata_list]


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("*.txt", ["[x].txt", "a.txt", "b.txt"]),
        ("?.txt", ["a.txt", "b.txt"]),
        ("[ab].txt", ["a.txt", "b.txt"]),
        ("[!a].txt", ["b.txt"]),
        ("*/*.txt", ["sub/d.txt"]),
        ("**.txt", ["[x].txt", "a.txt", "b.txt", "sub/d.txt", "sub/deep/e.txt"]),
        ("sub/**", ["sub/d.txt", "sub/deep/e.txt"]),
        ("c.csv", ["c.csv"]),
        ("missing.txt", []),
        ("nothing/*", []),
    ],
)
def test_patterns_match_as_beams_do(tree, pattern, expected):
    assert names(tree, pattern) == expected


def test_file_uris_and_relative_paths_name_the_same_files(tree, monkeypatch):
    monkeypatch.chdir(tree)
    [uri] = FileSystems.match([f"file://{tree}/*.csv"])
    [relative] = FileSystems.match(["*.csv"])
    assert [m.path for m in uri.metadata_list] == [f"file://{tree}/c.csv"]
    assert [m.path for m in relative.metadata_list] == ["c.csv"]
    assert relative.metadata_list[0].size_in_bytes == 5


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("sub/*.txt", ["sub/d.txt"]),
        ("./sub/**", ["./sub/d.txt", "./sub/deep/e.txt"]),
        ("sub/../*.csv", ["sub/../c.csv"]),
        ("sub/../c.csv", ["sub/../c.csv"]),
        ("~/c.csv", ["~/c.csv"]),
        ("sub/", ["sub/d.txt"]),
    ],
)
def test_matches_keep_the_patterns_spelling_as_beams_do(tree, monkeypatch, pattern, expected):
    monkeypatch.chdir(tree)
    monkeypatch.setenv("HOME", str(tree))
    [result] = FileSystems.match([pattern])
    assert [m.path for m in result.metadata_list] == expected
    assert FileSystems.absolute("x/y") == f"{tree}/x/y"
    assert FileSystems.absolute("s3a://bucket/x") == "s3a://bucket/x"
    assert FileSystems.get_scheme("gs://b/o") == "gs" and FileSystems.get_scheme("/l") is None


def test_streams_are_compressed_by_extension_or_as_asked(tmp_path):
    with FileSystems.create(str(tmp_path / "new" / "a.txt.gz")) as out:
        out.write(b"hello\n")
    assert gzip.decompress((tmp_path / "new" / "a.txt.gz").read_bytes()) == b"hello\n"
    assert FileSystems.open(str(tmp_path / "new" / "a.txt.gz")).read() == b"hello\n"
    raw = FileSystems.open(
        str(tmp_path / "new" / "a.txt.gz"), compression_type=CompressionTypes.UNCOMPRESSED
    ).read()
    assert raw[:2] == b"\x1f\x8b"


@pytest.mark.parametrize("suffix, magic", [(".bz2", b"BZh"), (".zst", b"\x28\xb5\x2f\xfd")])
def test_bzip2_and_zstd_files_round_trip(tmp_path, suffix, magic):
    if suffix == ".zst":
        pytest.importorskip("pyarrow", reason="zstd files are read and written through pyarrow")
    path = str(tmp_path / f"a.txt{suffix}")
    with FileSystems.create(path) as out:
        out.write(b"one\ntwo\n")
    assert (tmp_path / f"a.txt{suffix}").read_bytes().startswith(magic)
    with FileSystems.open(path) as stream:
        assert stream.read() == b"one\ntwo\n"


def test_copy_rename_delete_and_their_failures(tree):
    FileSystems.copy([str(tree / "a.txt")], [str(tree / "copies" / "a.txt")])
    FileSystems.rename([str(tree / "b.txt")], [str(tree / "moved" / "b.txt")])
    assert (tree / "copies" / "a.txt").read_text() == "a.txt"
    assert not FileSystems.exists(str(tree / "b.txt"))
    assert FileSystems.exists(str(tree / "moved" / "b.txt"))
    FileSystems.delete([str(tree / "sub"), str(tree / "a.txt")])
    assert not (tree / "sub").exists() and not (tree / "a.txt").exists()
    with pytest.raises(BeamIOError) as failed:
        FileSystems.delete([str(tree / "c.csv"), str(tree / "gone")])
    assert list(failed.value.exception_details) == [str(tree / "gone")]
    assert not (tree / "c.csv").exists()
    with pytest.raises(BeamIOError):
        FileSystems.delete(str(tree / "moved"))
    with pytest.raises(IOError):
        FileSystems.mkdirs(str(tree / "moved"))


def test_list_prefix_gives_the_entries_that_start_with_it(tree):
    assert FileSystems.list_prefix(str(tree / "s")) == [str(tree / "sub")]
    assert FileSystems.list_prefix(str(tree / "none" / "x")) == []
    before = FileSystems.checksum(str(tree / "c.csv"))
    (tree / "c.csv").write_text("changed, and longer")
    assert FileSystems.checksum(str(tree / "c.csv")) != before


def test_a_gs_path_without_credentials_fails_at_once_saying_what_to_do(tmp_path):
    """pyarrow's GCS client would look for credentials for 15 minutes; panes looks where
    Google's clients do (a key file, gcloud's login, a metadata server) and stops there."""
    script = (
        "import socket\n"
        "def no_metadata_server(*args, **kwargs):\n"
        "    raise socket.gaierror('no such host')\n"
        "socket.getaddrinfo = no_metadata_server\n"
        "from panes.io.filesystems import FileSystems\n"
        "FileSystems.match(['gs://bucket/in/*.txt'])\n"
    )
    google = ("GOOGLE_", "GCE_", "CLOUDSDK_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(google)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("OSError: gs://bucket: no Google Cloud credentials were found")
    assert "Install the Google Cloud CLI and run `gcloud auth application-default login`" in last


def test_google_credentials_are_found_where_googles_clients_look(tmp_path, monkeypatch):
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))

    def no_metadata_server(*args):
        raise OSError("no such host")

    monkeypatch.setattr(socket, "getaddrinfo", no_metadata_server)
    assert not _google_credentials_found()
    (tmp_path / "application_default_credentials.json").write_text("{}")
    assert _google_credentials_found()
    (tmp_path / "application_default_credentials.json").unlink()
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "key.json"))
    assert _google_credentials_found()
