"""Beam's transforms and helpers that panes adds for ported pipelines, on every runner."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.testing import TestStream, materialize
from panes.transforms.combiners import MeanCombineFn, ToDict, ToDictCombineFn, ToSet
from panes.transforms.trigger import AccumulationMode, Always
from panes.transforms.window import FixedWindows, GlobalWindows, TimestampedValue


def run(runner, build):
    p = beam.Pipeline(runner=runner)
    outputs = build(p)
    p.run()
    return [sorted(out.values, key=repr) for out in outputs]


def test_co_group_by_key_of_a_dict_and_of_a_tuple(runner):
    def build(p):
        emails = p | "Emails" >> beam.Create([("amy", "a@x"), ("carl", "c@x"), ("amy", "a@y")])
        phones = p | "Phones" >> beam.Create([("amy", "111"), ("bob", "222")])
        return [
            materialize({"emails": emails, "phones": phones} | "ByTag" >> beam.CoGroupByKey()),
            materialize((emails, phones) | "ByIndex" >> beam.CoGroupByKey()),
        ]

    by_tag, by_index = run(runner, build)
    assert [(k, {t: sorted(v) for t, v in vs.items()}) for k, vs in by_tag] == [
        ("amy", {"emails": ["a@x", "a@y"], "phones": ["111"]}),
        ("bob", {"emails": [], "phones": ["222"]}),
        ("carl", {"emails": ["c@x"], "phones": []}),
    ]
    assert [(k, tuple(sorted(v) for v in vs)) for k, vs in by_index] == [
        ("amy", (["a@x", "a@y"], ["111"])),
        ("bob", ([], ["222"])),
        ("carl", (["c@x"], [])),
    ]


def test_co_group_by_key_groups_per_window(runner):
    def build(p):
        def stamped(label, pairs):
            return (
                p
                | label >> beam.Create([TimestampedValue(kv, t) for kv, t in pairs])
                | f"Window{label}" >> beam.WindowInto(FixedWindows(10))
            )

        left = stamped("Left", [(("k", 1), 1), (("k", 2), 12)])
        right = stamped("Right", [(("k", "x"), 3)])
        return [materialize((left, right) | beam.CoGroupByKey())]

    [grouped] = run(runner, build)
    assert grouped == [("k", ([1], ["x"])), ("k", ([2], []))]


def test_co_group_by_key_of_nothing_needs_and_uses_the_pipeline(runner):
    assert run(runner, lambda p: [materialize({} | beam.CoGroupByKey(pipeline=p))]) == [[]]


def test_flat_map_tuple_and_ptransform_fn(runner):
    @beam.ptransform_fn
    def Repeat(pcoll, times):  # noqa: N802 - a transform's name
        return pcoll | beam.FlatMapTuple(lambda word, n: [word] * (n * times))

    def build(p):
        return [materialize(p | beam.Create([("a", 1), ("b", 2)]) | Repeat(2))]

    assert run(runner, build) == [["a", "a", "b", "b", "b", "b"]]


def test_regex_transforms(runner):
    def build(p):
        lines = p | beam.Create(["k1: v1", "k2: v2", "none"])
        return [
            materialize(lines | "KV" >> beam.Regex.matches_kv(r"(\w+): (\w+)", 1, 2)),
            materialize(lines | "All" >> beam.Regex.find_all(r"\d")),
            materialize(lines | "Replace" >> beam.Regex.replace_first(r":\s*", "=")),
            materialize(lines | "Split" >> beam.Regex.split(r"\W+")),
        ]

    pairs, digits, replaced, parts = run(runner, build)
    assert pairs == [("k1", "v1"), ("k2", "v2")]
    assert digits == [["1", "1"], ["2", "2"], []]
    assert replaced == ["k1=v1", "k2=v2", "none"]
    assert parts == [["k1", "v1"], ["k2", "v2"], ["none"]]


def test_combiners_with_beams_names(runner):
    def build(p):
        pairs = p | beam.Create([("a", 1), ("b", 2), ("a", 3)])
        return [
            materialize(pairs | "Mean" >> beam.CombinePerKey(MeanCombineFn())),
            materialize(pairs | "ToDict" >> ToDict()),
            materialize(pairs | beam.Keys() | "ToSet" >> ToSet()),
            materialize(pairs | beam.ToString.Kvs(":")),
        ]

    means, dicts, sets, strings = run(runner, build)
    assert means == [("a", 2.0), ("b", 2.0)]
    assert dicts in ([{"a": 1, "b": 2}], [{"a": 3, "b": 2}])  # a later value wins
    assert sets == [{"a", "b"}]
    assert strings == ["a:1", "a:3", "b:2"]


def test_combines_take_side_inputs_and_extra_arguments(runner):
    def build(p):
        limit = p | "Limit" >> beam.Create([8])
        pairs = p | beam.Create([("a", 3), ("a", 7), ("b", 1)])
        capped = lambda values, cap: min(sum(values), cap)  # noqa: E731
        return [
            materialize(
                pairs | "PerKey" >> beam.CombinePerKey(capped, cap=beam.AsSingleton(limit))
            ),
            materialize(
                pairs
                | beam.Values()
                | "Globally" >> beam.CombineGlobally(capped, beam.AsSingleton(limit))
            ),
            materialize(pairs | beam.GroupByKey() | "Capped" >> beam.CombineValues(capped, cap=5)),
        ]

    per_key, globally, values = run(runner, build)
    assert (per_key, globally, values) == ([("a", 8), ("b", 1)], [8], [("a", 5), ("b", 1)])


def test_combine_globally_as_a_singleton_view(runner):
    def build(p):
        total = (
            p | "Numbers" >> beam.Create([1, 2, 3]) | beam.CombineGlobally(sum).as_singleton_view()
        )
        return [materialize(p | beam.Create([10, 20]) | beam.Map(lambda x, t: x / t, total))]

    [shares] = run(runner, build)
    assert shares == [10 / 6, 20 / 6]


def test_a_windowed_singleton_view_gives_the_combiners_empty_result_where_a_window_has_none(
    runner,
):
    """As Beam's CombineGlobally.as_singleton_view(): no default check in any windowing; a
    window without input sees ``fn.apply([])`` (game_stats' spammers: an empty dict)."""

    def build(p):
        def windowed(label, values):
            return (
                p
                | label >> beam.Create(values)
                | f"{label}Stamped" >> beam.Map(lambda v: TimestampedValue(v, v[1]))
                | f"{label}Windows" >> beam.WindowInto(FixedWindows(10))
            )

        spammers = windowed("Spammers", [("robot", 3), ("bot", 4), ("robot", 25)]) | (
            beam.CombineGlobally(ToDictCombineFn()).as_singleton_view()
        )
        events = windowed("Events", [("ann", 1), ("robot", 5), ("ann", 12), ("robot", 27)])
        kept = events | beam.Filter(lambda event, bad: event[0] not in bad, spammers)
        return [materialize(kept)]

    [kept] = run(runner, build)
    assert kept == [("ann", 1), ("ann", 12)]


def test_always_fires_for_every_bundle_with_new_elements(runner):
    def build(p):
        stream = (
            TestStream()
            .add_elements([TimestampedValue(("k", 1), 1)])
            .add_elements([TimestampedValue(("k", 2), 2), TimestampedValue(("k", 3), 3)])
            .advance_watermark_to_infinity()
        )
        return [
            materialize(
                p
                | stream
                | beam.WindowInto(
                    GlobalWindows(), trigger=Always(), accumulation_mode=AccumulationMode.DISCARDING
                )
                | beam.CombinePerKey(sum)
            )
        ]

    [sums] = run(runner, build)
    # A pane per bundle, then the (empty) ON_TIME pane Beam Java emits when the global window
    # ends (docs/semantics.md, Deviations from Beam's Python DirectRunner, 2).
    assert sums == [("k", 0), ("k", 1), ("k", 5)]


def test_co_group_by_key_of_nothing_without_the_pipeline_says_what_to_pass():
    with pytest.raises(PipelineConstructionError, match=r"CoGroupByKey\(pipeline=p\)"):
        {} | beam.CoGroupByKey()
