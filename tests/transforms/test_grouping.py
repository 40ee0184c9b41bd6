"""Groupings and combiners: GroupByKey, CombinePerKey, CombineGlobally, CombineValues, every
built-in combiner, and a custom CombineFn whose accumulators merge (sessions, Spark partitions)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import panes as beam
from panes.testing import TestStream, materialize
from panes.transforms.combiners import CountFn, MeanFn, ReduceFn, ToListCombineFn, TopCombineFn
from panes.window import FixedWindows, Sessions, TimestampedValue


def run(runner, build):
    p = beam.Pipeline(runner=runner)
    handles = build(p)
    p.run()
    return [h.values for h in handles]


def test_group_by_key_keeps_arrival_order_within_a_key(runner):
    [out] = run(
        runner,
        lambda p: [
            materialize(
                p | beam.Create([("a", 3), ("b", 1), ("a", 1), ("a", 2)]) | beam.GroupByKey()
            )
        ],
    )
    assert sorted(out) == [("a", [3, 1, 2]), ("b", [1])]


class SumAndCount(beam.CombineFn):
    """Mean of the values with an accumulator that records how many merges happened."""

    def create_accumulator(self):
        return (0, 0, 0)

    def add_input(self, accumulator, element):
        total, count, merges = accumulator
        return total + element, count + 1, merges

    def merge_accumulators(self, accumulators):
        totals, counts, merges = zip(*accumulators)
        return sum(totals), sum(counts), sum(merges) + len(accumulators) - 1

    def extract_output(self, accumulator):
        total, count, merges = accumulator
        return total / count, merges > 0


def test_custom_combine_fn_merges_accumulators_of_merging_sessions(runner):
    """Sessions that already hold elements merge their accumulators when a later bundle joins
    them: 0 and 5 arrive apart, 2.5 chains them into one session; 30 stands alone."""
    stream = (
        TestStream()
        .add_elements(
            [
                TimestampedValue(("k", 1), 0),
                TimestampedValue(("k", 3), 5),
                TimestampedValue(("k", 10), 30),
            ]
        )
        .add_elements([TimestampedValue(("k", 2), 2.5)])
        .advance_watermark_to_infinity()
    )
    [out] = run(
        runner,
        lambda p: [
            materialize(
                p | stream | beam.WindowInto(Sessions(3)) | beam.CombinePerKey(SumAndCount())
            )
        ],
    )
    assert sorted(out) == [("k", (2.0, True)), ("k", (10.0, False))]


@pytest.mark.parametrize(
    "combine_fn, expected",
    [
        (sum, {"a": 6, "b": 10}),
        (min, {"a": 1, "b": 10}),
        (max, {"a": 3, "b": 10}),
        (CountFn(), {"a": 3, "b": 1}),
        (MeanFn(), {"a": 2.0, "b": 10.0}),
        (TopCombineFn(2), {"a": [3, 2], "b": [10]}),
        (TopCombineFn(2, reverse=True), {"a": [1, 2], "b": [10]}),
        (ReduceFn(lambda x, y: x * y), {"a": 6, "b": 10}),
        (lambda values: max(values, default=0), {"a": 3, "b": 10}),
    ],
)
def test_built_in_combiners_per_key(runner, combine_fn, expected):
    [out] = run(
        runner,
        lambda p: [
            materialize(
                p
                | beam.Create([("a", 1), ("b", 10), ("a", 3), ("a", 2)])
                | beam.CombinePerKey(combine_fn)
            )
        ],
    )
    assert dict(out) == expected


def _first(element):
    return element[0]


@settings(deadline=None)
@given(
    elements=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 99)), max_size=40),
    n=st.integers(0, 8),
    reverse=st.booleans(),
    cut=st.integers(0, 40),
)
def test_top_keeps_among_ties_what_beams_top_keeps(elements, n, reverse, cut):
    """In one pass and merged from two consecutive parts, as Beam's own TopCombineFn."""
    beams = pytest.importorskip("apache_beam.transforms.combiners", reason="needs the beam extra")

    def outputs(fn):
        parts = [
            fn.add_inputs(fn.create_accumulator(), part)
            for part in (elements[:cut], elements[cut:])
        ]
        return fn.apply(elements), fn.extract_output(fn.merge_accumulators(parts))

    assert outputs(TopCombineFn(n, key=_first, reverse=reverse)) == outputs(
        beams.TopCombineFn(n, key=_first, reverse=reverse)
    )


def test_top_of_elements_tied_for_the_last_places_keeps_them_by_their_order(runner):
    """Top sees each window's elements in their order, on every runner and partitioning."""
    sessions = [(f"user{i}", count) for i, count in enumerate([3, 1, 3, 5, 3, 2, 3, 3, 5, 3])]
    p = beam.Pipeline(runner=runner, options={"spark_partitions": 3})
    top = materialize(p | beam.Create(sessions) | beam.combiners.Top.Of(4, key=lambda s: s[1]))
    p.run()
    assert top.values == [TopCombineFn(4, key=lambda s: s[1]).apply(sessions)]
    # Beam's heap, not the first ones to come (heapq.nlargest: user3, user8, user0, user2)
    assert top.values == [[("user8", 5), ("user3", 5), ("user4", 3), ("user0", 3)]]


def test_to_list_holds_every_element(runner):
    [out] = run(
        runner,
        lambda p: [
            materialize(
                p
                | beam.Create([("a", 1), ("a", 3), ("a", 2)])
                | beam.CombinePerKey(ToListCombineFn())
            )
        ],
    )
    assert [(key, sorted(values)) for key, values in out] == [("a", [1, 2, 3])]


def test_combiner_transforms_in_beams_shapes(runner):
    def build(p):
        words = p | beam.Create(["x", "y", "x", "z", "x"])
        pairs = p | "Pairs" >> beam.Create([("a", 2), ("a", 4), ("b", 5)])
        return [
            materialize(words | beam.combiners.Count.Globally(), "CG"),
            materialize(words | beam.combiners.Count.PerElement(), "CE"),
            materialize(pairs | beam.combiners.Count.PerKey(), "CK"),
            materialize(pairs | beam.combiners.Mean.PerKey(), "MK"),
            materialize(pairs | beam.Values() | beam.combiners.Mean.Globally(), "MG"),
            materialize(pairs | beam.combiners.Top.LargestPerKey(1), "TL"),
            materialize(words | beam.combiners.Top.Smallest(2), "TS"),
            materialize(words | beam.combiners.ToList(), "TL2"),
        ]

    cg, ce, ck, mk, mg, tl, ts, to_list = run(runner, build)
    assert cg == [5]
    assert sorted(ce) == [("x", 3), ("y", 1), ("z", 1)]
    assert sorted(ck) == [("a", 2), ("b", 1)]
    assert sorted(mk) == [("a", 3.0), ("b", 5.0)]
    assert mg == [11 / 3]
    assert sorted(tl) == [("a", [4]), ("b", [5])]
    assert ts == [["x", "x"]]
    assert [sorted(values) for values in to_list] == [["x", "x", "x", "y", "z"]]


def test_combine_globally_of_nothing_gives_the_combiners_empty_result(runner):
    def build(p):
        empty = p | beam.Create([]) | beam.Map(lambda x: x)
        return [
            materialize(empty | "Sum" >> beam.CombineGlobally(sum), "SumOut"),
            materialize(empty | "Mean" >> beam.combiners.Mean.Globally(), "MeanOut"),
            materialize(
                empty | "NoDefault" >> beam.CombineGlobally(sum).without_defaults(), "NoDefaultOut"
            ),
        ]

    total, mean, without = run(runner, build)
    assert total == [0]
    assert len(mean) == 1 and math.isnan(mean[0])
    assert without == []


def test_combine_globally_without_defaults_per_window_has_no_result_for_empty_windows(runner):
    events = [TimestampedValue(n, t) for n, t in [(1, 1), (2, 2), (5, 25)]]
    [out] = run(
        runner,
        lambda p: [
            materialize(
                p
                | beam.Create(events)
                | beam.WindowInto(FixedWindows(10))
                | beam.CombineGlobally(sum).without_defaults()
            )
        ],
    )
    assert sorted(out) == [3, 5]


def test_combine_values_combines_each_iterable(runner):
    [out] = run(
        runner,
        lambda p: [
            materialize(p | beam.Create([("a", [1, 2, 3]), ("b", [])]) | beam.CombineValues(sum))
        ],
    )
    assert sorted(out) == [("a", 6), ("b", 0)]
