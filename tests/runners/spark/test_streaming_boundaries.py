"""Pipelines fed by event logs are exact on streaming whatever the micro-batch boundaries: the
corpus runs on streaming with three event-log steps per micro-batch (test_conformance); here
its processing-time, late-data and multi-stage scenarios also run with one step per
micro-batch (a user's default) and with every step in one micro-batch (so keys are woken
later, and all steps' rows reach a key in one call), and still give the direct runner's
panes."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "conformance"))
from harness import load_scenarios, run_scenario, scenario_id  # noqa: E402
from runners_under_test import StreamingRunner  # noqa: E402
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


def test_the_scenarios_are_there():
    assert len(SCENARIOS) == len(NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("steps", [1, 100], ids=["a-step-per-micro-batch", "one-micro-batch"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=scenario_id)
def test_outputs_do_not_depend_on_micro_batch_boundaries(scenario, steps, spark):
    check(scenario, run_scenario(scenario, StreamingRunner(steps)))
