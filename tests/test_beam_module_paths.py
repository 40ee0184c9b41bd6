"""Beam's module paths exist in panes with Beam's public names, so that a pipeline's import
lines port by changing apache_beam to panes (the names panes has; see docs/porting.md)."""

import ast
import importlib
from pathlib import Path

import pytest

BEAM_MODULES = {
    "panes": [
        "Pipeline",
        "PCollection",
        "PTransform",
        "DoFn",
        "CombineFn",
        "Create",
        "Map",
        "FlatMap",
        "FlatMapTuple",
        "MapTuple",
        "Filter",
        "ParDo",
        "GroupByKey",
        "CombinePerKey",
        "CombineGlobally",
        "CombineValues",
        "CoGroupByKey",
        "Flatten",
        "Partition",
        "WindowInto",
        "Reshuffle",
        "GroupIntoBatches",
        "WithKeys",
        "Keys",
        "Values",
        "KvSwap",
        "Distinct",
        "Regex",
        "ToString",
        "ptransform_fn",
        "TaggedOutput",
        "pvalue",
        "io",
        "coders",
        "typehints",
        "metrics",
        "window",
        "combiners",
        "transforms",
    ],
    "panes.pvalue": ["PCollection", "TaggedOutput", "AsSingleton", "AsIter", "AsList", "AsDict"],
    "panes.options.pipeline_options": [
        "PipelineOptions",
        "StandardOptions",
        "SetupOptions",
        "DebugOptions",
        "GoogleCloudOptions",
        "WorkerOptions",
        "TypeOptions",
        "DirectOptions",
        "TestOptions",
    ],
    "panes.metrics": ["Metrics", "MetricsFilter"],
    "panes.metrics.metric": ["Metrics", "MetricsFilter", "MetricResults"],
    "panes.testing.test_pipeline": ["TestPipeline"],
    "panes.testing.test_stream": ["TestStream"],
    "panes.testing.util": [
        "assert_that",
        "equal_to",
        "is_empty",
        "is_not_empty",
        "BeamAssertException",
        "TestWindowedValue",
        "open_shards",
        "contains_in_any_order",
    ],
    "panes.testing.test_utils": [
        "create_file",
        "read_files_from_pattern",
        "compute_hash",
        "TempDir",
    ],
    "panes.transforms.core": [
        "Create",
        "Map",
        "FlatMap",
        "FlatMapTuple",
        "MapTuple",
        "Filter",
        "ParDo",
        "DoFn",
        "CombineFn",
        "GroupByKey",
        "CombinePerKey",
        "CombineGlobally",
        "CombineValues",
        "Flatten",
        "Partition",
        "WindowInto",
    ],
    "panes.transforms.util": [
        "CoGroupByKey",
        "Keys",
        "Values",
        "KvSwap",
        "WithKeys",
        "Distinct",
        "Regex",
        "ToString",
        "Reshuffle",
        "GroupIntoBatches",
    ],
    "panes.transforms.userstate": [
        "ReadModifyWriteStateSpec",
        "BagStateSpec",
        "SetStateSpec",
        "CombiningValueStateSpec",
        "OrderedListStateSpec",
        "TimerSpec",
        "on_timer",
        "get_dofn_specs",
        "is_stateful_dofn",
        "validate_stateful_dofn",
    ],
    "panes.transforms.timeutil": ["TimeDomain"],
    "panes.utils.sharded_key": ["ShardedKey"],
    "panes.transforms.ptransform": ["PTransform", "ptransform_fn"],
    "panes.transforms.combiners": [
        "Count",
        "Mean",
        "Top",
        "ToList",
        "ToDict",
        "ToSet",
        "CountCombineFn",
        "MeanCombineFn",
        "TopCombineFn",
        "ToListCombineFn",
        "ToDictCombineFn",
        "ToSetCombineFn",
    ],
    "panes.transforms.window": [
        "FixedWindows",
        "SlidingWindows",
        "Sessions",
        "GlobalWindows",
        "TimestampedValue",
        "TimestampCombiner",
        "IntervalWindow",
        "GlobalWindow",
        "WindowFn",
        "NonMergingWindowFn",
        "BoundedWindow",
    ],
    "panes.transforms.trigger": [
        "AfterWatermark",
        "AfterCount",
        "AfterProcessingTime",
        "Repeatedly",
        "AfterAll",
        "AfterAny",
        "AfterEach",
        "OrFinally",
        "Never",
        "Always",
        "DefaultTrigger",
        "AccumulationMode",
    ],
    "panes.io": [
        "ReadFromText",
        "WriteToText",
        "ReadFromParquet",
        "WriteToParquet",
        "Read",
        "Write",
    ],
    "panes.io.textio": ["ReadFromText", "WriteToText"],
    "panes.coders": [
        "Coder",
        "BytesCoder",
        "StrUtf8Coder",
        "VarIntCoder",
        "FloatCoder",
        "BooleanCoder",
        "PickleCoder",
        "FastPrimitivesCoder",
        "TupleCoder",
        "ToBytesCoder",
        "registry",
    ],
    "panes.typehints": [
        "Any",
        "Union",
        "Optional",
        "Tuple",
        "List",
        "KV",
        "Dict",
        "Set",
        "Iterable",
        "Iterator",
        "with_input_types",
        "with_output_types",
    ],
    "panes.typehints.decorators": ["with_input_types", "with_output_types", "TypeCheckError"],
    "panes.runners.runner": ["PipelineResult", "PipelineState"],
    "panes.utils.timestamp": ["Timestamp", "Duration", "MIN_TIMESTAMP", "MAX_TIMESTAMP"],
}


@pytest.mark.parametrize("module", sorted(BEAM_MODULES))
def test_beams_module_path_has_beams_names(module):
    imported = importlib.import_module(module)
    missing = [name for name in BEAM_MODULES[module] if not hasattr(imported, name)]
    assert missing == []


def test_runners_do_not_import_the_pipeline_module():
    """Runners read the IR and report a PipelineResult (panes.runners.runner); the module
    that builds pipelines is not theirs to import."""
    runners = Path(importlib.import_module("panes.runners").__file__).parent
    importers = []
    for source in runners.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = (
                [node.module]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if "panes.pipeline" in names:
                importers.append(source.name)
    assert importers == []
