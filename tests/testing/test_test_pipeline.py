"""TestPipeline, assert_that and the file helpers behave as Beam's testing modules."""

import unittest

import pytest

import panes as beam
from panes.testing.test_pipeline import TestPipeline
from panes.testing.test_utils import TempDir, compute_hash, create_file, read_files_from_pattern
from panes.testing.util import (
    BeamAssertException,
    TestWindowedValue,
    assert_that,
    contains_in_any_order,
    equal_to,
    is_empty,
    is_not_empty,
    open_shards,
)
from panes.utils.timestamp import Timestamp
from panes.window import FixedWindows, IntervalWindow, TimestampedValue


def test_options_come_from_test_pipeline_options_on_the_command_line():
    p = TestPipeline(
        argv=[
            "pytest",
            "--test-pipeline-options=--runner=FnApiRunner --temp_location=/tmp/t --job_name=x",
        ]
    )
    assert p.runner == "FnApiRunner"
    assert p.get_option("temp_location") == "/tmp/t"
    assert p.get_full_options_as_args(output="o", dry=True, skipped=None) == [
        "--runner=FnApiRunner",
        "--temp_location=/tmp/t",
        "--job_name=x",
        "--output=o",
        "--dry",
    ]


def test_options_come_from_the_class_attribute_pytest_sets(monkeypatch):
    monkeypatch.setattr(TestPipeline, "pytest_test_pipeline_options", "--runner=SparkRunner")
    assert TestPipeline(argv=[]).runner == "SparkRunner"


def test_an_integration_test_without_options_is_skipped():
    with pytest.raises(unittest.SkipTest, match="--test-pipeline-options is not specified"):
        TestPipeline(argv=[], is_integration_test=True)


def test_a_test_pipeline_runs_and_checks_on_exit(runner):
    with TestPipeline(argv=[f"--test-pipeline-options=--runner={runner}"]) as p:
        assert_that(p | beam.Create([1, 2, 3]) | beam.Map(lambda x: x * 10), equal_to([10, 20, 30]))


def test_a_failed_assertion_names_the_missing_and_unexpected_elements():
    with pytest.raises(BeamAssertException) as caught:
        with TestPipeline(argv=[]) as p:
            assert_that(p | beam.Create([1, 2]), equal_to([1, 3]))
    assert "Failed assert: [1, 3] == [1, 2], unexpected elements [2], missing elements [3]" in str(
        caught.value
    )


def test_several_assert_thats_get_numbered_labels_as_in_beam():
    p = TestPipeline(argv=[])
    numbers = p | beam.Create([1])
    assert_that(numbers, equal_to([1]))
    assert_that(numbers, is_not_empty())
    assert_that(numbers | "None" >> beam.Filter(lambda x: False), is_empty())
    assert {"assert_that", "assert_that_2", "assert_that_3"} <= p.applied_labels
    p.run()


def test_assert_that_after_the_run_is_refused():
    p = TestPipeline(argv=[])
    numbers = p | beam.Create([1])
    p.run()
    with pytest.raises(RuntimeError, match="within a Pipeline context"):
        assert_that(numbers, equal_to([1]))


def test_matchers_compare_as_beams_do():
    equal_to([("a", [1, 2])])([("a", [2, 1])])
    equal_to([1.0, 2.0], equals_fn=lambda e, a: abs(e - a) < 0.01)([2.001, 0.999])
    with pytest.raises(BeamAssertException, match="missing elements"):
        equal_to([1.0], equals_fn=lambda e, a: abs(e - a) < 0.01)([1.5])
    assert contains_in_any_order([1, 2, 2]) == [2, 1, 2]
    # Equal values that hash apart still match: a Timestamp and its seconds.
    equal_to([("a", 5), ("b", 7)])([("b", Timestamp(7)), ("a", Timestamp(5))])
    with pytest.raises(BeamAssertException, match=r"unexpected elements \[\('a', Timestamp\(6\)"):
        equal_to([("a", 5)])([("a", Timestamp(6))])
    with pytest.raises(BeamAssertException, match="pcol is empty"):
        is_not_empty()([])


def test_reified_and_per_window_assertions_see_windows(runner):
    seen = []
    p = beam.Pipeline(runner=runner)
    windowed = (
        p
        | beam.Create([TimestampedValue("a", 1), TimestampedValue("b", 61)])
        | beam.WindowInto(FixedWindows(60))
    )
    assert_that(windowed, lambda values: seen.append(sorted(values)), reify_windows=True)
    assert_that(
        windowed,
        lambda in_window: seen.append(in_window),
        label="PerWindow",
        use_global_window=False,
    )
    p.run()
    first, second = IntervalWindow(0, 60), IntervalWindow(60, 120)
    reified = seen[0]
    assert [(v.value, v.timestamp, v.windows) for v in reified] == [
        ("a", Timestamp(1), [first]),
        ("b", Timestamp(61), [second]),
    ]
    assert all(isinstance(v, TestWindowedValue) for v in reified)
    equal_to([TestWindowedValue("a", 1, [first]), TestWindowedValue("b", 61, [second])])(reified)
    assert sorted(seen[1:]) == [(["a"], first), (["b"], second)]


def test_file_helpers_write_read_and_hash(tmp_path):
    assert create_file(str(tmp_path / "in" / "a.txt"), "x\ny\n") == str(tmp_path / "in" / "a.txt")
    create_file(str(tmp_path / "in" / "b.txt"), "z\n")
    assert read_files_from_pattern(str(tmp_path / "in" / "*.txt")) == "x\ny\nz"
    assert open_shards(str(tmp_path / "in" / "*.txt")).read() == "x\ny\nz\n"
    assert compute_hash(["b", "a"]) == compute_hash(["a", "b"])
    assert compute_hash(["a", "b"]) == "da23614e02469a0d7c7bd1bdab5c9c474b1904dc"  # sha1("ab")
    with TempDir() as temp:
        with open(temp.create_temp_file(".txt", lines=[b"q\n"]), encoding="utf-8") as made:
            assert made.read() == "q\n"
