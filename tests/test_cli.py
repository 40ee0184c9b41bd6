"""The panes command: run a pipeline file (build(p) or a script) and report what it wrote and
counted, print its IR, and draw its graph."""

import json
import shutil

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

# A Beam-style script: its own flags, PipelineOptions from the rest, a metric, a composite.
SCRIPT = """
import argparse
import panes as beam
from panes.metrics import Metrics
from panes.options.pipeline_options import PipelineOptions

class Words(beam.PTransform):
    def expand(self, lines):
        return lines | beam.FlatMap(str.split) | beam.combiners.Count.PerElement()

def count(line):
    Metrics.counter("script", "lines").inc()
    return line

def run(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    known, pipeline_args = parser.parse_known_args(argv)
    with beam.Pipeline(options=PipelineOptions(pipeline_args)) as p:
        (p | beam.Create(["a b", "a"]) | "Count" >> beam.Map(count) | "Words" >> Words()
           | beam.MapTuple(lambda w, n: f"{w}: {n}") | beam.io.WriteToText(known.output))

if __name__ == "__main__":
    run()
"""


@pytest.fixture
def pipeline_file(tmp_path):
    path = tmp_path / "pipeline.py"
    path.write_text(PIPELINE.replace("OUT", repr(str(tmp_path / "out"))))
    return path


@pytest.fixture
def script_file(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    return path


def test_ir_prints_nodes_and_windowing_readably(pipeline_file, capsys):
    assert main(["ir", str(pipeline_file)]) == 0
    out = capsys.readouterr().out
    assert "Sum [combine_per_key] <- WindowInto(FixedWindows).main" in out
    assert "FixedWindows(size=Duration(60), offset=Duration(0)), DefaultTrigger()" in out


def test_ir_json_is_the_ir_runners_read(pipeline_file, capsys):
    assert main(["ir", "--json", str(pipeline_file)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["$type"] == "panes.ir.model.PipelineIR"
    assert "Sum" in document["fields"]["nodes"]["$dict"]


@pytest.mark.parametrize("runner_name", ["direct", "spark", "SparkRunner"])
def test_run_executes_the_pipeline_on_the_chosen_runner(pipeline_file, tmp_path, runner_name,
                                                        spark, capsys):
    assert main(["run", str(pipeline_file), "--runner", runner_name]) == 0
    shards = sorted(tmp_path.glob("out-*-of-*"))
    assert sorted(line for shard in shards for line in shard.read_text().split()) == ["a=4", "b=2"]
    out = capsys.readouterr().out
    assert f"DONE on the {runner_name.lower().removesuffix('runner')} runner" in out
    assert "wrote:\n" + "".join(f"  {shard} (" for shard in shards[:1]) in out


def test_run_of_a_script_passes_its_arguments_and_reports_outputs_and_metrics(
        script_file, tmp_path, capsys):
    output = tmp_path / "counts"
    assert main(["run", str(script_file), "--output", str(output), "--runner=DirectRunner"]) == 0
    assert sorted((tmp_path / "counts-00000-of-00001").read_text().splitlines()) == [
        "a: 2", "b: 1"]
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{script_file}: DONE on the direct runner in ")
    assert out[1:] == ["wrote:", f"  {output}-00000-of-00001 (2 lines)", "metrics:",
                       "  Count: script.lines = 2"]


def test_graph_draws_transforms_composites_and_windowing_as_dot(script_file, tmp_path, capsys):
    assert main(["graph", str(script_file), "--output", str(tmp_path / "unused")]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith('digraph "script" {')
    assert '  subgraph "cluster_Words" {' in dot
    assert '    "Words/FlatMap(split)" [label="FlatMap(split)\\n[par_do]"];' in dot
    assert '"Count" -> "Words/FlatMap(split)" [label="GlobalWindows"];' in dot
    assert not (tmp_path / "unused-00000-of-00001").exists()  # drawn, not run


def test_graph_labels_an_edge_with_its_collection_windowing(pipeline_file, capsys):
    assert main(["graph", str(pipeline_file)]) == 0
    assert ('"WindowInto(FixedWindows)" -> "Sum" [label="FixedWindows(size=Duration(60), '
            'offset=Duration(0))"];') in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot is not installed (apt-get install graphviz)")
@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_graph_renders_svg_and_png_with_graphviz(pipeline_file, tmp_path, fmt, magic):
    target = tmp_path / f"pipeline.{fmt}"
    assert main(["graph", "-o", str(target), str(pipeline_file)]) == 0
    assert target.read_bytes().startswith(magic)


def test_graph_without_graphviz_says_how_to_get_it(pipeline_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["graph", "--format", "svg", str(pipeline_file)]) == 2
    err = capsys.readouterr().err
    assert "needs Graphviz's `dot`" in err and "apt-get install graphviz" in err
    assert "--format dot" in err


def test_a_file_that_runs_no_pipeline_says_what_to_define(tmp_path, capsys):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    assert main(["ir", str(path)]) == 2
    assert "ran no pipeline: define build(p)" in capsys.readouterr().err


def test_an_unknown_flag_is_warned_about_naming_the_closest_option(pipeline_file, caplog):
    assert main(["run", str(pipeline_file), "--runer=spark"]) == 0
    assert "Unparseable argument: --runer=spark. Did you mean '--runner'?" in caplog.text


def test_a_bad_option_value_is_reported_not_raised(pipeline_file, capsys):
    assert main(["run", str(pipeline_file), "--spark_partitions=many"]) == 1
    assert "argument --spark_partitions: invalid int value: 'many'" in capsys.readouterr().err
