"""Text files on every runner: the lines Python's universal newlines give, headers skipped per
file, compressed files, and a line that is not UTF-8 failing with its file and line."""

import gzip

import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.io import ReadFromText, WriteToText
from panes.io.filesystem import CompressionTypes
from panes.testing import materialize

CONTENTS = {
    "unix": "one\ntwo\n\nthree\n",
    "windows": "one\r\ntwo\r\n\r\nthree",
    "old mac and mixed": "one\rtwo\r\n\nthree\nfour",
    "no newline at all": "a single line",
    "empty": "",
    "multibyte": "zwölf\nüber\n日本語\n",
}


def read(runner, *args, **kwargs) -> list:
    p = beam.Pipeline(runner=runner)
    lines = materialize(p | ReadFromText(*args, **kwargs))
    p.run()
    return lines.values


@pytest.mark.parametrize("name", CONTENTS)
def test_lines_are_what_universal_newlines_give(tmp_path, runner, name):
    path = tmp_path / "in.txt"
    path.write_bytes(CONTENTS[name].encode("utf-8"))
    with open(path, encoding="utf-8") as whole:
        expected = [line.rstrip("\n") for line in whole]
    assert read(runner, str(path)) == expected


def test_header_lines_are_skipped_in_every_file(tmp_path, runner):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.csv").write_text(f"name,n\n# {name}\n{name},1\n{name},2\n")
    assert read(runner, str(tmp_path / "*.csv"), skip_header_lines=2) == [
        "a,1",
        "a,2",
        "b,1",
        "b,2",
        "c,1",
        "c,2",
    ]


def test_gzipped_files_are_read_and_written(tmp_path, runner):
    (tmp_path / "in.txt.gz").write_bytes(gzip.compress(b"x\ny\n"))
    p = beam.Pipeline(runner=runner)
    (
        p
        | ReadFromText(str(tmp_path / "in.txt.gz"))
        | beam.Map(str.upper)
        | WriteToText(str(tmp_path / "out"), ".txt.gz", num_shards=3, header="h")
    )
    p.run()
    shards = sorted(tmp_path.glob("out-*-of-00003.txt.gz"))
    assert len(shards) == 3
    texts = [gzip.decompress(shard.read_bytes()).decode() for shard in shards]
    assert all(text.startswith("h\n") for text in texts)
    assert "".join(text[2:] for text in texts) == "X\nY\n"
    assert read(runner, str(tmp_path / "out*"), skip_header_lines=1) == ["X", "Y"]


def test_an_undecodable_line_names_the_file_the_line_and_the_read(tmp_path, runner):
    lines = [f"line {i}".encode() for i in range(1000)]
    lines[736] = b"caf\xe9"
    (tmp_path / "latin1.txt").write_bytes(b"\n".join(lines) + b"\n")
    p = beam.Pipeline(runner=runner)
    p | "ReadLogs" >> ReadFromText(str(tmp_path / "*.txt"))
    with pytest.raises(UserCodeError, match="ReadLogs") as caught:
        p.run()
    assert "latin1.txt, line 737" in str(caught.value)
    assert "not UTF-8" in str(caught.value)


def test_compression_type_and_skip_header_lines_are_checked_at_construction():
    with pytest.raises(ValueError, match="compression_type"):
        ReadFromText("x", compression_type="rar")
    with pytest.raises(ValueError, match="skip_header_lines"):
        ReadFromText("x", skip_header_lines=-1)
    with pytest.raises(ValueError, match="num_shards"):
        WriteToText("x", num_shards=-2)
    with pytest.raises(ValueError, match="names one file"):
        WriteToText("x", num_shards=2, shard_name_template="")
    assert WriteToText("x", shard_name_template="").sink.num_shards == 1
    assert CompressionTypes.detect_compression_type("a/b.TXT.GZ") == CompressionTypes.GZIP
