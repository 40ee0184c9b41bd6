"""Pipeline options behave as Beam's: argparse flags, views over one store, user option
classes, unknown flags kept and warned about, Beam's runner names."""

import logging

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.options.pipeline_options import (
    DebugOptions,
    GoogleCloudOptions,
    PipelineOptions,
    SetupOptions,
    SparkRunnerOptions,
    StandardOptions,
    TypeOptions,
)
from panes.runners import create_runner


class WordCountOptions(PipelineOptions):
    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument("--input", default="in.txt")
        parser.add_argument("--min_count", type=int, default=1)


@pytest.mark.parametrize(
    "flags", [["--runner", "SparkRunner", "--streaming"], ["--runner=SparkRunner", "--streaming"]]
)
def test_flags_take_a_separate_or_an_attached_value(flags):
    standard = PipelineOptions(flags).view_as(StandardOptions)
    assert (standard.runner, standard.streaming) == ("SparkRunner", True)


def test_without_flags_the_command_line_is_parsed(monkeypatch):
    monkeypatch.setattr("sys.argv", ["pipeline.py", "--runner=spark", "--job_name=nightly"])
    options = PipelineOptions()
    assert options.view_as(StandardOptions).runner == "spark"
    assert options.view_as(GoogleCloudOptions).job_name == "nightly"


def test_views_share_one_store_of_values():
    options = PipelineOptions(["--experiments=a,b"])
    options.view_as(SetupOptions).save_main_session = True
    options.view_as(DebugOptions).add_experiment("c")
    assert options.view_as(SetupOptions).save_main_session is True
    assert options.get_all_options()["save_main_session"] is True
    assert options.view_as(DebugOptions).experiments == ["a", "b", "c"]
    assert options.view_as(DebugOptions).lookup_experiment("b") is True


def test_defaults_are_beams():
    options = PipelineOptions([])
    assert options.view_as(StandardOptions).streaming is False
    assert options.view_as(StandardOptions).runner is None
    assert options.view_as(TypeOptions).pipeline_type_check is True
    assert options.view_as(SetupOptions).save_main_session is False


def test_a_user_options_class_parses_its_own_flags():
    options = PipelineOptions(["--input", "words.txt", "--min_count=3", "--runner=direct"])
    mine = options.view_as(WordCountOptions)
    assert (mine.input, mine.min_count) == ("words.txt", 3)
    assert mine.view_as(StandardOptions).runner == "direct"


def test_a_class_defined_after_the_options_were_made_still_parses_them():
    options = PipelineOptions(["--threshold=0.5"])

    class LateOptions(PipelineOptions):
        @classmethod
        def _add_argparse_args(cls, parser):
            parser.add_argument("--threshold", type=float)

    assert options.view_as(LateOptions).threshold == 0.5


def test_unknown_flags_are_kept_for_the_pipeline_and_warned_about_at_run(caplog):
    options = PipelineOptions(["--runer=spark", "--my_flag", "x"])
    assert options.get_all_options(retain_unknown_options=True)["my_flag"] == "x"
    assert options.unknown_flags() == ["--runer=spark", "--my_flag", "x"]
    p = beam.Pipeline(options=options)
    p | beam.Create([1])
    with caplog.at_level(logging.WARNING):
        p.run()
    assert "Unparseable argument: --runer=spark. Did you mean '--runner'?" in caplog.text


def test_google_cloud_options_are_accepted():
    options = PipelineOptions(
        [
            "--project=p",
            "--region=europe-west1",
            "--temp_location=/tmp/x",
            "--staging_location=gs://b/s",
            "--save_main_session",
        ]
    )
    cloud = options.view_as(GoogleCloudOptions)
    assert (cloud.project, cloud.region, cloud.temp_location) == ("p", "europe-west1", "/tmp/x")
    p = beam.Pipeline(options=options)
    p | beam.Create([1])
    assert p.run().state == "DONE"


@pytest.mark.parametrize(
    "name, runner_class",
    [
        ("direct", "DirectRunner"),
        ("DirectRunner", "DirectRunner"),
        ("FnApiRunner", "DirectRunner"),
        ("PrismRunner", "DirectRunner"),
        ("BundleBasedDirectRunner", "DirectRunner"),
        ("spark", "SparkRunner"),
        ("SparkRunner", "SparkRunner"),
    ],
)
def test_beams_runner_names_choose_a_panes_runner(name, runner_class):
    assert type(create_runner(name)).__name__ == runner_class
    assert beam.Pipeline(options=PipelineOptions([f"--runner={name}"])).runner == name


def test_panes_spark_options_keep_working_as_flags_and_values():
    options = PipelineOptions(
        [
            "--spark_master_url=spark://h:7077",
            "--spark_partitions=4",
            "--spark_conf",
            "spark.executor.memory=2g",
            "--spark_conf=spark.ui.enabled=false",
        ]
    )
    spark = options.view_as(SparkRunnerOptions)
    assert (spark.spark_master, spark.spark_partitions) == ("spark://h:7077", 4)
    assert spark.spark_conf == {"spark.executor.memory": "2g", "spark.ui.enabled": "false"}
    assert PipelineOptions(spark_partitions=2, allow_unsafe_triggers=True).spark_partitions == 2
    assert beam.Pipeline(options={"spark_partitions": 3}).options.spark_partitions == 3


def test_from_dictionary_turns_values_into_flags():
    options = PipelineOptions.from_dictionary(
        {"runner": "spark", "streaming": True, "experiments": ["a", "b"]}
    )
    assert options.view_as(StandardOptions).streaming is True
    assert options.view_as(DebugOptions).experiments == ["a", "b"]


def test_get_all_options_can_drop_defaults():
    options = PipelineOptions(["--runner=spark", "--streaming"])
    assert options.get_all_options(drop_default=True) == {"runner": "spark", "streaming": True}


@pytest.mark.parametrize(
    "make, words",
    [
        (
            lambda: PipelineOptions(runnr="spark"),
            ["unknown pipeline option(s) ['runnr']", "Did you mean 'runner'?"],
        ),
        (
            lambda: PipelineOptions("--runner=spark"),
            ["a list of flags", "PipelineOptions(['--runner=spark'])"],
        ),
        (
            lambda: PipelineOptions(["--spark_partitions=many"]),
            ["argument --spark_partitions: invalid int value: 'many'"],
        ),
        (lambda: PipelineOptions(["--spark_conf=no-equals"]), ["--spark_conf takes name=value"]),
        (lambda: PipelineOptions([]).view_as(dict), ["view_as takes a PipelineOptions subclass"]),
    ],
)
def test_bad_options_are_construction_errors_that_say_what_to_write(make, words):
    with pytest.raises(PipelineConstructionError) as caught:
        make()
    for word in words:
        assert word in str(caught.value)
