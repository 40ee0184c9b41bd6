"""Every source and sink is one entry of ``panes.io.kinds`` (a user's own ``Source`` or ``Sink``
subclass is the ``custom`` kind, pickled): each goes to the IR, through JSON and back, and a
source or sink node read from JSON is checked, naming the node and the field."""

import copy
import json
from dataclasses import dataclass

import pyarrow as pa
import pytest
from ids import stable_id
from ir_round_trip import set_in, through_json

import panes as beam
from panes.errors import RunnerError, ValidationError
from panes.io import base, capture, dataframe, kinds, parquet, text
from panes.ir import from_json, to_json
from panes.ir import io as ir
from panes.testing import assert_that, equal_to


@dataclass(frozen=True)
class Countdown(base.Source):
    """A user's source."""

    start: int

    def read_records(self):
        return range(self.start, 0, -1)


@dataclass(frozen=True)
class Printed(base.Sink):
    """A user's sink."""

    prefix: str


SOURCES = [
    text.TextSource("in/*.txt"),
    text.TextSource("in.gz", 2, "gzip"),
    parquet.ParquetSource("rows/*.parquet"),
    parquet.ParquetSource("r", ("a", "b")),
    Countdown(3),
]
SINKS = [
    text.TextSink("out/part"),
    text.TextSink("out/part", ".txt", 4, "-SS", "header", "bzip2"),
    parquet.ParquetSink("rows/part"),
    parquet.ParquetSink("rows/part", pa.schema([("a", pa.int64())]), ".pq", 2, "-SSSSS", "zstd"),
    capture.CaptureSink("capture-7"),
    Printed("> "),
]


def _subclasses(cls) -> set:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return {sub for sub in found if sub.__module__.startswith("panes.")}


def test_every_api_source_and_sink_and_every_ir_kind_has_one_entry():
    assert {kind.api for kind in kinds.kinds()} == (
        _subclasses(base.Source) | _subclasses(base.Sink)
    )
    members = set(ir.Source.members.values()) | set(ir.Sink.members.values())
    assert {kind.ir for kind in kinds.kinds()} | {ir.CustomSource, ir.CustomSink} == members
    lowered = {type(kinds.to_ir(example)) for example in SOURCES + SINKS}
    assert lowered == members - {ir.DataFrameSource}  # it needs Spark: tests/runners/spark


@pytest.mark.parametrize("value", SOURCES + SINKS, ids=stable_id)
def test_a_source_or_sink_round_trips_through_its_ir_and_json(value):
    lowered = kinds.to_ir(value)
    family = ir.Source if isinstance(value, base.Source) else ir.Sink
    read_back = through_json(lowered, family)
    assert read_back == lowered
    assert kinds.from_ir(read_back) == value


def test_file_sources_and_sinks_are_plain_data_in_the_json(tmp_path):
    p = beam.Pipeline()
    (
        p
        | "Read" >> beam.io.ReadFromText(str(tmp_path / "in*.txt"), skip_header_lines=1)
        | "Write" >> beam.io.WriteToText(str(tmp_path / "out"), ".txt", num_shards=2)
    )
    data = json.loads(to_json(p.to_ir()))
    assert data["nodes"]["Read"]["payload"]["source"] == {
        "kind": "text",
        "file_pattern": str(tmp_path / "in*.txt"),
        "skip_header_lines": 1,
        "compression_type": "auto",
    }
    assert data["nodes"]["Write"]["payload"]["sink"] == {
        "kind": "text",
        "file_path_prefix": str(tmp_path / "out"),
        "file_name_suffix": ".txt",
        "num_shards": 2,
        "shard_name_template": "-SSSSS-of-NNNNN",
        "header": None,
        "compression_type": "auto",
    }


@pytest.fixture(scope="module")
def document() -> dict:
    p = beam.Pipeline()
    (
        p
        | "Read" >> beam.io.ReadFromText("in*.txt")
        | "Write" >> parquet.WriteToParquet("out", codec="snappy")
    )
    return json.loads(to_json(p.to_ir()))


SOURCE, SINK = ("nodes", "Read", "payload", "source"), ("nodes", "Write", "payload", "sink")
REFUSED = [
    (
        set_in((*SOURCE, "skip_header_line"), 1),
        "node 'Read' (read), field payload.source.skip_header_line: unknown field "
        "'skip_header_line'; TextSource has file_pattern, skip_header_lines, compression_type",
    ),
    (
        set_in((*SOURCE, "skip_header_lines"), -1),
        "node 'Read' (read), field payload.source.skip_header_lines: must be at least 0, got -1",
    ),
    (
        set_in((*SOURCE, "compression_type"), "rar"),
        "field payload.source.compression_type: expected one of 'auto', 'bzip2', 'gzip', 'zstd', "
        "'uncompressed', got the string 'rar'",
    ),
    (
        set_in((*SOURCE, "file_pattern"), ""),
        "node 'Read' (read), field payload.source.file_pattern: must not be empty",
    ),
    (
        set_in(SOURCE, {"kind": "kafka", "topic": "t"}),
        "field payload.source: unknown source kind 'kafka'; this panes knows ",
    ),
    (
        set_in((*SINK, "num_shards"), "2"),
        "node 'Write' (write), field payload.sink.num_shards: expected an integer, got the string "
        "'2'",
    ),
    (
        set_in((*SINK, "codec"), "lzo"),
        "node 'Write' (write), field payload.sink.codec: expected one of 'none', 'snappy'",
    ),
    (
        set_in((*SINK, "schema"), "a: int64"),
        "node 'Write' (write), field payload.sink.schema: expected pickled user code",
    ),
    (
        set_in((*SINK, "sharding"), 3),
        "node 'Write' (write), field payload.sink.sharding: unknown field 'sharding'",
    ),
]


@pytest.mark.parametrize("change, message", REFUSED, ids=[m[:70] for _, m in REFUSED])
def test_a_source_or_sink_node_refuses_an_impossible_value_naming_it(document, change, message):
    data = copy.deepcopy(document)
    change(data)
    with pytest.raises(ValidationError) as refused:
        from_json(json.dumps(data))
    assert message in str(refused.value)


def test_a_users_own_source_is_pickled_and_read_by_both_runners(runner):
    with beam.Pipeline(runner=runner) as p:
        assert_that(p | base.Read(Countdown(3)), equal_to([3, 2, 1]))
    assert isinstance(kinds.to_ir(Countdown(3)), ir.CustomSource)


def test_a_dataframe_key_that_is_not_registered_is_refused():
    with pytest.raises(RunnerError, match="DataFrame dataframe-x is not registered"):
        dataframe.registered(ir.DataFrameSource("dataframe-x"))
