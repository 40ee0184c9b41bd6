"""Side inputs: singleton, iterable, list and dict views, defaults, and windowed side inputs
(each main window sees the side window that holds its end)."""

import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.testing import materialize
from panes.window import FixedWindows, TimestampedValue


def run(runner, build):
    p = beam.Pipeline(runner=runner)
    handle = build(p)
    p.run()
    return handle.values


def test_every_view_kind(runner):
    def build(p):
        total = p | "Total" >> beam.Create([10])
        extras = p | "Extras" >> beam.Create([1, 2])
        names = p | "Names" >> beam.Create([("a", "alpha"), ("b", "beta")])
        return materialize(
            p
            | beam.Create(["a", "b"])
            | beam.Map(
                lambda key, total, extras, listed, names: (
                    key,
                    total + sum(extras),
                    sorted(listed),
                    names[key],
                ),
                beam.AsSingleton(total),
                beam.AsIter(extras),
                beam.AsList(extras),
                names=beam.AsDict(names),
            )
        )

    assert sorted(run(runner, build)) == [("a", 13, [1, 2], "alpha"), ("b", 13, [1, 2], "beta")]


def test_singleton_default_for_an_empty_side_input(runner):
    def build(p):
        empty = p | "Empty" >> beam.Create([])
        return materialize(
            p
            | beam.Create([1, 2])
            | beam.Map(lambda x, s: x + s, beam.AsSingleton(empty, default_value=100))
        )

    assert sorted(run(runner, build)) == [101, 102]


def test_singleton_of_several_elements_is_a_clear_error(runner):
    p = beam.Pipeline(runner=runner)
    side = p | "Side" >> beam.Create([1, 2])
    p | beam.Create([1]) | "UseSide" >> beam.Map(lambda x, s: x + s, beam.AsSingleton(side))
    with pytest.raises(UserCodeError, match="exactly one"):
        p.run()


def test_windowed_side_input_matches_the_main_window(runner):
    def build(p):
        thresholds = (
            p
            | "Thresholds" >> beam.Create([TimestampedValue(5, 1), TimestampedValue(50, 11)])
            | "SideWindows" >> beam.WindowInto(FixedWindows(10))
        )
        readings = (
            p
            | beam.Create(
                [TimestampedValue(7, 2), TimestampedValue(7, 12), TimestampedValue(60, 15)]
            )
            | beam.WindowInto(FixedWindows(10))
        )
        return materialize(
            readings | beam.Filter(lambda x, limit: x > limit, beam.AsSingleton(thresholds))
        )

    assert sorted(run(runner, build)) == [7, 60]
