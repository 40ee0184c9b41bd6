"""The panes command: readable and JSON IR of a pipeline file, and running it on a runner."""

import json

import pytest

from panes.cli import main

PIPELINE = """
import panes as beam
from panes.window import FixedWindows

def build(p):
    (p | beam.Create([("a", 1), ("b", 2), ("a", 3)])
       | beam.WindowInto(FixedWindows(60))
       | "Sum" >> beam.CombinePerKey(sum)
       | beam.MapTuple(lambda k, v: f"{k}={v}")
       | beam.io.WriteToText(OUT))
"""


@pytest.fixture
def pipeline_file(tmp_path):
    path = tmp_path / "pipeline.py"
    path.write_text(PIPELINE.replace("OUT", repr(str(tmp_path / "out"))))
    return path


def test_ir_prints_nodes_and_windowing_readably(pipeline_file, capsys):
    assert main(["ir", str(pipeline_file)]) == 0
    out = capsys.readouterr().out
    assert "Sum [combine_per_key] <- WindowInto(FixedWindows).main" in out
    assert "FixedWindows(size=Duration(60s), offset=Duration(0s)), DefaultTrigger()" in out


def test_ir_json_is_the_ir_runners_read(pipeline_file, capsys):
    assert main(["ir", str(pipeline_file), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["$type"] == "panes.ir.model.PipelineIR"
    assert "Sum" in document["fields"]["nodes"]["$dict"]


@pytest.mark.parametrize("runner_name", ["direct", "spark"])
def test_run_executes_the_pipeline_on_the_chosen_runner(pipeline_file, tmp_path, runner_name,
                                                        spark, capsys):
    assert main(["run", str(pipeline_file), "--runner", runner_name]) == 0
    written = [line for shard in sorted(tmp_path.glob("out-*-of-*"))
               for line in shard.read_text().split()]
    assert sorted(written) == ["a=4", "b=2"]
    assert f"DONE on the {runner_name} runner" in capsys.readouterr().out


def test_a_file_without_build_says_what_to_define(tmp_path, capsys):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    assert main(["ir", str(path)]) == 2
    assert "must define build(p)" in capsys.readouterr().err


def test_a_bad_pipeline_option_is_reported_not_raised(pipeline_file, capsys):
    assert main(["run", str(pipeline_file), "--no_such_option=1"]) == 1
    assert "unknown pipeline option" in capsys.readouterr().err
