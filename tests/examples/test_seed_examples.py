"""The seeds' windowing scenarios, as runnable examples, give the outputs the seeds describe,
on every runner."""

import importlib.util
import runpy
import sys
from pathlib import Path

import pytest

from panes.errors import PipelineConstructionError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_storm_sliding_sum_and_tumbling_average(runner):
    sums, averages = load_example("storm_count_windows").run(range(1, 91), runner=runner)
    # A sum every 10 elements over the last (up to) 30 of 1..90.
    expected_sums = [sum(range(max(1, n - 29), n + 1)) for n in range(10, 91, 10)]
    assert sums == expected_sums
    assert averages == [sum(expected_sums[i : i + 3]) / 3 for i in range(0, 9, 3)]


def test_per_sensor_minimum_with_window_start(runner):
    assert load_example("sensor_minimum").run(runner=runner) == [
        ("s1", 0, 19.0),
        ("s1", 60, 20.5),
        ("s2", 0, 18.0),
        ("s2", 60, 17.0),
    ]


def test_daily_windows_with_hourly_early_and_counted_late_firings(runner):
    assert load_example("daily_early_late").run(runner=runner) == [
        ("EARLY", 30),
        ("EARLY", 60),
        ("ON_TIME", 60),
        ("LATE", 70),
        ("LATE", 80),
    ]


def test_k_anonymity_publishes_only_windows_of_at_least_five(runner):
    published, withheld = load_example("k_anonymity").run(runner=runner)
    assert published == [("10115", 0, 7), ("20095", 1, 5)]
    assert withheld == 3


def test_consecutive_windows_sum_per_key_then_global_top_k(runner):
    assert load_example("windowed_top_k").run(k=2, runner=runner) == [
        (0, [("home", 7), ("cart", 5)]),
        (5, [("shop", 9), ("help", 7)]),
    ]


@pytest.mark.parametrize("example", sorted(path.stem for path in EXAMPLES.glob("*.py")))
def test_every_example_takes_its_runner_from_the_command_line(example, monkeypatch):
    """Run as a script, an example reads --runner (and other pipeline options) from its
    command line: an unknown runner there is refused, so the flag reached the pipeline."""
    required = {
        "hourly_sessions": ["--input", "logs/*", "--output", "sessions"],
        "streaming_leaderboard": ["--input", "events", "--output", "scores/panes"],
        "session_timeout": ["--input", "events/*", "--output", "sessions"],
        "batched_lookups": ["--input", "orders/*", "--output", "statuses"],
    }
    argv = [f"{example}.py", "--runner=FlinkRunner", *required.get(example, [])]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(PipelineConstructionError, match="unknown runner 'FlinkRunner'"):
        runpy.run_path(str(EXAMPLES / f"{example}.py"), run_name="__main__")
