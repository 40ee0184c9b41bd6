import panes as beam
from panes.testing import assert_that, equal_to


def test_word_count_on_direct_runner():
    with beam.Pipeline() as p:
        counts = (
            p
            | beam.Create(["a b", "b c"])
            | beam.FlatMap(str.split)
            | beam.Map(lambda word: (word, 1))
            | beam.CombinePerKey(sum)
        )
        assert_that(counts, equal_to([("a", 1), ("b", 2), ("c", 1)]))
