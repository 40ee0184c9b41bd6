"""Log records that user code writes on Spark workers reach the driver's loggers of the same
names, marked with the worker and the transform, as Beam's portable runners bring an SDK
harness's records to the runner: at INFO and above unless Beam's log-level options say
otherwise, at most ``RECORDS_PER_TASK`` of a task with a record counting the rest, also from
a task that failed and from a streaming query."""

import logging
import os

import pytest

import panes as beam
from panes.errors import PipelineConstructionError, UserCodeError
from panes.options.pipeline_options import PipelineOptions
from panes.runners.spark import SparkRunner
from panes.runners.spark.worker_logs import RECORDS_PER_TASK, worker_log_levels
from panes.testing import TestStream, materialize
from panes.window import TimestampedValue


class _LoggingDoFn(beam.DoFn):
    def process(self, element):
        logging.getLogger("user.fn").info("processing %s", element)
        logging.getLogger("user.fn").debug("debugging %s", element)
        yield element


class _LoggingSum(beam.CombineFn):
    def create_accumulator(self):
        return 0

    def add_input(self, total, element):
        return total + element

    def merge_accumulators(self, totals):
        return sum(totals)

    def extract_output(self, total):
        logging.getLogger("user.combine").warning("total %s", total)
        return total


def _shipped(caplog, name):
    return [record for record in caplog.records if record.name == name]


@pytest.mark.smoke
def test_records_of_dofns_lambdas_and_combine_fns_reach_the_drivers_loggers(spark, caplog):
    p = beam.Pipeline(runner="spark")
    logged = p | beam.Create([1, 2, 3]) | "Log" >> beam.ParDo(_LoggingDoFn())
    mapped = logged | "Lambda" >> beam.Map(lambda x: logging.info("mapping %s", x) or x)
    materialize(mapped | "Total" >> beam.CombineGlobally(_LoggingSum()))
    with caplog.at_level(logging.INFO):
        p.run()
    fn = _shipped(caplog, "user.fn")
    assert sorted(record.getMessage() for record in fn) == [f"processing {x}" for x in (1, 2, 3)]
    assert {(record.levelname, record.panes_transform) for record in fn} == {("INFO", "Log")}
    assert all(record.process != os.getpid() for record in fn)  # written by a worker
    assert all(record.panes_worker.endswith(f":{record.process}") for record in fn)
    assert all(record.funcName == "process" for record in fn)
    lambdas = _shipped(caplog, "root")
    assert sorted(r.getMessage() for r in lambdas) == [f"mapping {x}" for x in (1, 2, 3)]
    assert {record.panes_transform for record in lambdas} == {"Lambda"}
    (total,) = _shipped(caplog, "user.combine")
    assert (total.levelname, total.getMessage()) == ("WARNING", "total 6")


def test_the_drivers_levels_decide_what_is_shown(spark, caplog):
    p = beam.Pipeline(runner="spark")
    (
        p
        | beam.Create([1, 2, 3])
        | "Log" >> beam.ParDo(_LoggingDoFn())
        | beam.CombineGlobally(_LoggingSum())
    )
    with caplog.at_level(logging.WARNING):
        p.run()
    assert [record.name for record in caplog.records] == ["user.combine"]


def test_beams_log_level_options_choose_what_workers_send(spark, caplog):
    options = PipelineOptions(
        [
            "--default_sdk_harness_log_level=WARNING",
            '--sdk_harness_log_level_overrides={"user.fn": "DEBUG"}',
        ]
    )
    p = beam.Pipeline(runner="spark", options=options)
    logged = p | beam.Create([1]) | "Log" >> beam.ParDo(_LoggingDoFn())
    logged | "Lambda" >> beam.Map(lambda x: logging.info("mapping %s", x) or x)
    with caplog.at_level(logging.DEBUG):
        p.run()
    assert sorted(record.getMessage() for record in _shipped(caplog, "user.fn")) == [
        "debugging 1",
        "processing 1",
    ]
    assert _shipped(caplog, "root") == []  # INFO, below the default level chosen


def test_an_unknown_level_is_refused_naming_the_option():
    with pytest.raises(PipelineConstructionError, match="--default_sdk_harness_log_level"):
        worker_log_levels(PipelineOptions(["--default_sdk_harness_log_level=LOUD"]))
    with pytest.raises(PipelineConstructionError, match="'user.fn'"):
        worker_log_levels(
            PipelineOptions(['--sdk_harness_log_level_overrides={"user.fn": "chatty"}'])
        )
    with pytest.raises(PipelineConstructionError, match="JSON object"):
        PipelineOptions(["--sdk_harness_log_level_overrides=user.fn=DEBUG"])
    assert worker_log_levels(PipelineOptions([])) == {"": logging.INFO}


def test_a_task_sends_its_first_records_and_counts_the_rest(spark, caplog):
    elements = RECORDS_PER_TASK + 150
    p = beam.Pipeline(runner=SparkRunner(partitions=1))
    p | beam.Create(range(elements)) | "Log" >> beam.ParDo(_LoggingDoFn())
    with caplog.at_level(logging.INFO):
        p.run()
    *kept, note = _shipped(caplog, "user.fn")
    assert [record.getMessage() for record in kept] == [
        f"processing {x}" for x in range(RECORDS_PER_TASK)
    ]
    assert note.levelname == "INFO"
    assert note.getMessage() == (
        f"150 more log records dropped on Spark workers "
        f"(a task sends the driver its first {RECORDS_PER_TASK})"
    )


def _fails_on_zero(x):
    logging.getLogger("user.invert").warning("inverting %s", x)
    return 1 / x


def test_a_failed_tasks_records_come_with_its_error(spark, caplog):
    p = beam.Pipeline(runner=SparkRunner(partitions=1))
    p | beam.Create([2, 0]) | "Invert" >> beam.Map(_fails_on_zero)
    with caplog.at_level(logging.INFO), pytest.raises(UserCodeError):
        p.run()
    messages = [record.getMessage() for record in _shipped(caplog, "user.invert")]
    assert messages == ["inverting 2", "inverting 0"]


def test_records_of_a_streaming_query_reach_the_driver(spark, caplog):
    p = beam.Pipeline(runner="spark", options={"streaming": True})
    events = TestStream().add_elements([TimestampedValue(("a", 1), 1)]).advance_watermark_to(20)
    summed = (
        p
        | events
        | "Log" >> beam.ParDo(_LoggingDoFn())
        | beam.CombinePerKey(sum)
        | "After" >> beam.Map(lambda kv: logging.getLogger("user.after").info("%s", kv) or kv)
    )
    materialize(summed)
    with caplog.at_level(logging.INFO):
        p.run()
    assert [r.getMessage() for r in _shipped(caplog, "user.fn")] == ["processing ('a', 1)"]
    (after,) = _shipped(caplog, "user.after")
    assert (after.getMessage(), after.panes_transform) == ("('a', 1)", "After")
