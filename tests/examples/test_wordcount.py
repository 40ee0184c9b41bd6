"""The word count example counts every word of its input and writes them as text."""

from collections import Counter

import pytest
from test_seed_examples import load_example


@pytest.mark.smoke
def test_counts_every_word_and_writes_them(tmp_path, runner, capsys):
    source = tmp_path / "in.txt"
    source.write_text("the cat\n\nThe hat, the cat\n")
    load_example("wordcount").main(
        ["--input", str(source), "--output", str(tmp_path / "counts"), "--runner", runner]
    )
    shards = sorted(tmp_path.glob("counts-*-of-*.txt"))
    lines = [line for shard in shards for line in shard.read_text().splitlines()]
    assert sorted(lines) == ["cat: 2", "hat: 1", "the: 3"]
    assert (tmp_path / "counts.SUCCESS").exists()
    assert "most frequent: [('the', 3), ('cat', 2), ('hat', 1)]" in capsys.readouterr().out


def test_word_extraction_matches_a_plain_count():
    module = load_example("wordcount")
    import panes as beam
    from panes.testing import materialize

    text = open(module.INPUT).read()
    p = beam.Pipeline()
    counts = materialize(module.count_words(p | beam.Create(text.splitlines())))
    p.run()
    import re

    assert dict(counts.values) == Counter(w.lower() for w in re.findall(r"[A-Za-z']+", text))
