"""Metrics are queried as in Beam: MetricsFilter by name, namespace and step (a '/'-delimited
run of the step's label), results with committed, attempted and result."""

import pytest

import panes as beam
from panes.metrics import Metrics, MetricsFilter
from panes.metrics.execution import MetricKey, MetricResult
from panes.metrics.metric import MetricResults
from panes.metrics.metricbase import MetricName


class Words(beam.PTransform):
    def expand(self, lines):
        return lines | "Split" >> beam.FlatMap(count_words)


def count_words(line):
    words = line.split()
    Metrics.counter(Words, "words").inc(len(words))
    Metrics.distribution("text", "line_length").update(len(line))
    return words


def test_a_run_is_queried_by_name_namespace_and_step(runner):
    p = beam.Pipeline(runner=runner)
    p | beam.Create(["a b", "c"]) | "Outer/Words" >> Words()
    metrics = p.run().metrics()
    [words] = metrics.query(MetricsFilter().with_name("words"))["counters"]
    assert words.key == MetricKey(
        "Outer/Words/Split", MetricName(f"{Words.__module__}.Words", "words")
    )
    assert words.committed == words.attempted == words.result == 3
    [length] = metrics.query(MetricsFilter().with_namespace("text"))["distributions"]
    assert (length.result.count, length.result.sum, length.result.mean) == (2, 4, 2.0)
    assert metrics.query(MetricsFilter().with_step("Words/Split"))["counters"] == [words]
    assert metrics.query(MetricsFilter().with_step("Words/Spl"))["counters"] == []
    assert metrics.query(MetricsFilter().with_namespace(Words))["counters"] == [words]


@pytest.mark.parametrize(
    "step, filter_step, matches",
    [
        ("Outer/Words/Split", "Outer", True),
        ("Outer/Words/Split", "Words/Split", True),
        ("Outer/Words/Split", "Split", True),
        ("Outer/Words/Split", "Outer/Split", False),
        ("Outer/Words/Split", "Out", False),
        ("", "Outer", False),
    ],
)
def test_a_filter_step_matches_a_run_of_the_label_as_in_beam(step, filter_step, matches):
    key = MetricKey(step, MetricName("ns", "n"))
    assert MetricResults.matches(MetricsFilter().with_step(filter_step), key) is matches


def test_a_filter_takes_collections_not_strings():
    with pytest.raises(ValueError, match="names must be a collection"):
        MetricsFilter().with_names("words")
    assert MetricResult(MetricKey("s", MetricName("n", "m")), 4, 4).result == 4
