"""Every scenario of the corpus, on every runner: the outputs must be the expected panes —
on Spark also with 1 and 7 partitions and with input elements shuffled across partitions.

Scenarios marked ``bundles: insensitive`` pin results that cannot depend on how input is
bundled; they also run with each bundle reversed and split into one-element bundles.
"""

import pytest
from harness import load_scenarios, run_scenario, scenario_id
from runners_under_test import RUNNERS, STREAMING_RUNNERS, StreamingRunner, needs_spark


def _known_issue(scenario) -> list:
    """A scenario with a ``known_issue`` is expected to fail until panes is fixed (strictly:
    the test fails once it passes, so the mark gets removed)."""
    if "known_issue" not in scenario:
        return []
    return [pytest.mark.xfail(reason=scenario["known_issue"], strict=True)]


def marked(scenario):
    return pytest.param(scenario, marks=_known_issue(scenario))


SCENARIOS = load_scenarios()
INSENSITIVE = [s for s in SCENARIOS if s.get("bundles") == "insensitive"]


def check(scenario, outcome):
    context = f"{scenario_id(scenario)}: {scenario.get('why', '')}"
    assert outcome["rows"] == sorted(scenario["expected"]), context
    assert outcome.get("late", []) == sorted(scenario.get("late", [])), context
    assert outcome.get("then", []) == sorted(scenario.get("then_expected", [])), context
    assert outcome["counters"] == scenario.get("counters", {}), context


# Every scenario's input is an event log (a TestStream, or a bounded source read under a
# watermark strategy), which the streaming runner replays a step per micro-batch by default: a
# query each, so the corpus runs on streaming in the full tier, three steps per micro-batch
# (tests/runners/spark/test_streaming_boundaries.py checks one step and all steps on the
# hardest scenarios), and these in the fast tier, a step per micro-batch, as a user's run.
STREAMING_SMOKE = {
    "early-and-late-firings",
    "sessions-late-merge",
    "early-processing-time",
    "multi-stage-hold-keeps-downstream-on-time",
    "steps-start-bundle-after-a-grouping",
}


def _runs(scenario) -> list:
    """The scenario on each runner: on streaming, slow unless it is a smoke scenario."""
    runs = []
    for runner in RUNNERS + STREAMING_RUNNERS:
        marks = _known_issue(scenario)
        if runner in STREAMING_RUNNERS:
            marks.append(
                pytest.mark.smoke if scenario["name"] in STREAMING_SMOKE else pytest.mark.slow
            )
        runs.append(
            pytest.param(scenario, runner, marks=marks, id=f"{scenario_id(scenario)}-{runner}")
        )
    return runs


FULL_TIER_STEPS_PER_MICRO_BATCH = 3


@pytest.mark.parametrize("scenario, runner_name", [run for s in SCENARIOS for run in _runs(s)])
def test_scenario(scenario, runner_name, request):
    if needs_spark(runner_name):
        request.getfixturevalue("spark")
    runner = runner_name
    if runner_name in STREAMING_RUNNERS and scenario["name"] not in STREAMING_SMOKE:
        runner = StreamingRunner(FULL_TIER_STEPS_PER_MICRO_BATCH)
    check(scenario, run_scenario(scenario, runner))


@pytest.mark.parametrize(
    "variant",
    [{"reverse_bundles": True}, {"single_elements": True}],
    ids=["reversed-bundles", "one-element-bundles"],
)
@pytest.mark.parametrize("scenario", [marked(s) for s in INSENSITIVE], ids=scenario_id)
def test_bundle_insensitive_scenario(scenario, variant):
    check(scenario, run_scenario(scenario, "direct", **variant))


def test_the_corpus_is_large_and_covers_every_file():
    assert len(SCENARIOS) >= 120
    assert all("expected" in s and s.get("why") for s in SCENARIOS)


@pytest.mark.parametrize(
    "partitions, shuffle_seed",
    [(1, None), (7, 7)],
    ids=["1-partition", "7-partitions-shuffled-input"],
)
@pytest.mark.parametrize(
    "scenario", [marked(s) for s in SCENARIOS] if "spark" in RUNNERS else [], ids=scenario_id
)
def test_spark_partitioning_does_not_change_results(scenario, partitions, shuffle_seed, spark):
    from panes.runners.spark import SparkRunner

    runner = SparkRunner(partitions=partitions, shuffle_seed=shuffle_seed)
    check(scenario, run_scenario(scenario, runner))


# Sources read record at a time whose records carry no arrival times, read from a file: Spark
# reads them in place and keeps their watermark timelines on the executors.
FILE_SOURCES = [
    s for s in SCENARIOS if "watermark" in s.get("source", {}) and "arrivals" not in s["source"]
]


@pytest.mark.parametrize("partitions", [1, 2, 7])
@pytest.mark.parametrize(
    "scenario", [marked(s) for s in FILE_SOURCES] if "spark" in RUNNERS else [], ids=scenario_id
)
def test_a_source_read_from_a_file_gives_the_same_panes(scenario, partitions, spark, tmp_path):
    from panes.runners.spark import SparkRunner

    check(scenario, run_scenario(scenario, SparkRunner(partitions=partitions), from_file=tmp_path))


def test_the_streaming_smoke_scenarios_exist():
    assert STREAMING_SMOKE <= {s["name"] for s in SCENARIOS}
