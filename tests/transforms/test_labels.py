"""Default labels are Beam's, so unlabelled applications do not collide, and labels may hold
'/' where Beam allows it."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.options.pipeline_options import PipelineOptions


def labels(build):
    p = beam.Pipeline()
    build(p)
    return [part.full_label for part in p.root.parts]


def square(x):
    return x * x


def test_default_labels_name_functions_and_lambdas_by_file_and_line():
    def build(p):
        numbers = p | beam.Create([1, 2])
        numbers | beam.Map(square)
        numbers | beam.Map(lambda x: x + 1)
        numbers | beam.Map(lambda x: x - 1)
        numbers | beam.Filter(lambda x: x)
        numbers | beam.Map(lambda x: (x, x)) | beam.MapTuple(lambda k, v: k)
        numbers | beam.CombineGlobally(sum)

    line = test_default_labels_name_functions_and_lambdas_by_file_and_line.__code__.co_firstlineno
    assert labels(build) == [
        "Create",
        "Map(square)",
        f"Map(<lambda at test_labels.py:{line + 4}>)",
        f"Map(<lambda at test_labels.py:{line + 5}>)",
        f"Filter(<lambda at test_labels.py:{line + 6}>)",
        f"Map(<lambda at test_labels.py:{line + 7}>)",
        f"MapTuple(<lambda at test_labels.py:{line + 7}>)",
        "CombineGlobally(sum)",
    ]


def test_a_label_may_hold_a_slash_and_an_empty_label_keeps_the_default():
    def build(p):
        numbers = p | "Read/Numbers" >> beam.Create([1])
        numbers | "" >> beam.Map(square)

    assert labels(build) == ["Read/Numbers", "Map(square)"]


def test_a_duplicate_label_fails_unless_auto_unique_labels():
    def build(p):
        numbers = p | beam.Create([1])
        numbers | beam.Map(square)
        numbers | beam.Map(square)

    with pytest.raises(PipelineConstructionError, match="'Map\\(square\\)' already exists"):
        labels(build)
    p = beam.Pipeline(options=PipelineOptions(["--auto_unique_labels"]))
    build(p)
    assert [part.full_label for part in p.root.parts] == ["Create", "Map(square)", "Map(square)_2"]
