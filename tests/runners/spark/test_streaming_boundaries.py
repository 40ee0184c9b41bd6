"""Pipelines fed by event logs are exact on streaming whatever the micro-batch boundaries: with
several event-log steps per micro-batch — so keys are woken later, and several steps' rows
reach a key in one call — the corpus's processing-time, late-data and multi-stage scenarios
still give the direct runner's panes."""

import sys
from pathlib import Path

import pytest

from panes.options.pipeline_options import StandardOptions
from panes.runners.spark import SparkRunner

sys.path.insert(0, str(Path(__file__).parents[2] / "conformance"))
from harness import load_scenarios, run_scenario, scenario_id  # noqa: E402
from test_conformance import check  # noqa: E402

NAMES = [
    "early-processing-time",
    "processing-time-late-firing",
    "early-and-late-firings",
    "multi-stage-hold-keeps-downstream-on-time",
    "multi-stage-late-pane-within-downstream-lateness",
    "sessions-late-merge",
]
SCENARIOS = [s for s in load_scenarios() if s["name"] in NAMES]


class StreamingRunner:
    """The Spark runner under ``--streaming`` delivering ``steps`` event-log steps per
    micro-batch."""

    def __init__(self, steps: int):
        self.runner = SparkRunner(partitions=2, steps_per_micro_batch=steps)

    def run_pipeline(self, ir, options):
        options.view_as(StandardOptions).streaming = True
        return self.runner.run_pipeline(ir, options)


def test_the_scenarios_are_there():
    assert len(SCENARIOS) == len(NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("steps", [3, 100], ids=["3-steps-per-micro-batch", "one-micro-batch"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=scenario_id)
def test_outputs_do_not_depend_on_micro_batch_boundaries(scenario, steps, spark):
    check(scenario, run_scenario(scenario, StreamingRunner(steps)))
