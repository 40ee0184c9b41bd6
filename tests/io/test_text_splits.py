"""Text files read in byte ranges (as Spark workers read them) give the same lines as the whole
file, whatever the line endings and the range size."""

import pytest

from panes.io.text import TextSource, read_lines

CONTENTS = {
    "unix": "one\ntwo\n\nthree\n",
    "windows": "one\r\ntwo\r\n\r\nthree",
    "old mac and mixed": "one\rtwo\r\n\nthree\nfour",
    "no newline at all": "a single line",
    "empty": "",
    "multibyte": "zwölf\nüber\n日本語\n",
}


@pytest.mark.parametrize("name", CONTENTS)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_ranges_cover_the_file_and_give_its_lines(tmp_path, name, size):
    path = tmp_path / "in.txt"
    path.write_bytes(CONTENTS[name].encode("utf-8"))
    with open(path, encoding="utf-8") as whole:  # Python's universal newlines
        expected = [line.rstrip("\n") for line in whole]

    splits = TextSource(str(path)).splits(size)

    assert [line for split in splits for line in read_lines(*split)] == expected
    starts = [start for _, start, _ in splits]
    assert [(start, end) for _, start, end in splits] == list(
        zip(starts, starts[1:] + [path.stat().st_size]))
    assert starts[:1] == ([0] if CONTENTS[name] else [])
    assert read_lines(str(path)) == expected
