"""Beam pipelines, as Beam users write them, give Beam's output on panes' runners: user
window functions, CombineFns with side inputs, bounded sources split across tasks, splittable
DoFns, Parquet files, metrics and errors. Beam's DirectRunner is the reference."""

import logging
import re
from pathlib import Path

import pytest

beam = pytest.importorskip(
    "apache_beam", reason="Beam's pipelines need apache-beam: pip install 'panes[beam]'"
)

from apache_beam.io import iobase, range_trackers  # noqa: E402
from apache_beam.io.restriction_trackers import OffsetRange, OffsetRestrictionTracker  # noqa: E402
from apache_beam.metrics import Metrics  # noqa: E402
from apache_beam.metrics.metric import MetricsFilter  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions  # noqa: E402
from apache_beam.testing.util import BeamAssertException, assert_that, equal_to  # noqa: E402
from apache_beam.transforms import window  # noqa: E402
from beam_reference import RUNNERS, EveryTenSeconds, matches_beam  # noqa: E402

from panes.runners.beam.translate import translate  # noqa: E402

# Each test runs its pipeline on Beam's DirectRunner too: the full tier.
pytestmark = pytest.mark.slow
LIGHTHOUSE = Path(__file__).parents[2] / "examples" / "data" / "lighthouse.txt"


def shards(prefix: Path) -> list:
    """The lines of every shard written under ``prefix``, sorted."""
    return sorted(
        line
        for path in prefix.parent.glob(f"{prefix.name}-*")
        for line in path.read_text().splitlines()
    )


def test_wordcount_gives_beams_counts(runner, tmp_path):
    from apache_beam.examples import wordcount

    def run(runner_name, output):
        wordcount.run(
            [f"--input={LIGHTHOUSE}", f"--output={output}", f"--runner={runner_name}"],
            save_main_session=False,
        ).wait_until_finish()

    run("DirectRunner", tmp_path / "beam" / "counts")
    run(RUNNERS[runner], tmp_path / "panes" / "counts")
    assert shards(tmp_path / "panes" / "counts") == shards(tmp_path / "beam" / "counts")
    assert len(shards(tmp_path / "beam" / "counts")) > 100


def test_wordcount_with_metrics_gives_beams_counts_and_metrics(runner, tmp_path, caplog):
    from apache_beam.examples import wordcount_with_metrics

    def run(runner_name, output):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            wordcount_with_metrics.main(
                [f"--input={LIGHTHOUSE}", f"--output={output}", f"--runner={runner_name}"],
                save_main_session=False,
            )
        return [
            r.getMessage()
            for r in caplog.records
            if r.getMessage().startswith(("number", "average"))
        ]

    beam_metrics = run("DirectRunner", tmp_path / "beam" / "counts")
    panes_metrics = run(RUNNERS[runner], tmp_path / "panes" / "counts")
    assert panes_metrics == beam_metrics
    assert [m for m in beam_metrics if m.startswith("average word length")]
    assert shards(tmp_path / "panes" / "counts") == shards(tmp_path / "beam" / "counts")


class Lengths(beam.DoFn):
    def __init__(self):
        self.words = Metrics.counter("wordcount", "words")
        self.lengths = Metrics.distribution("wordcount", "lengths")

    def process(self, line):
        for word in line.split():
            self.words.inc()
            self.lengths.update(len(word))
            yield word


def test_metrics_are_queried_with_beams_filter(runner):
    p = beam.Pipeline(options=PipelineOptions([f"--runner={RUNNERS[runner]}"]))
    p | beam.Create(["a bb", "ccc", ""]) | "Split" >> beam.ParDo(Lengths())
    result = p.run()
    result.wait_until_finish()
    metrics = result.metrics()
    (words,) = metrics.query(MetricsFilter().with_name("words").with_step("Split"))["counters"]
    assert (words.key.step, words.key.metric.namespace, words.committed) == (
        "Split",
        "wordcount",
        3,
    )
    (lengths,) = metrics.query(MetricsFilter().with_namespace("wordcount"))["distributions"]
    assert (lengths.committed.sum, lengths.committed.count) == (6, 3)
    assert (lengths.committed.min, lengths.committed.max) == (1, 3)
    assert metrics.query(MetricsFilter().with_step("Other"))["counters"] == []
    assert result.state == "DONE"


def test_a_failed_assertion_surfaces_as_beams_exception(runner):
    options = PipelineOptions([f"--runner={RUNNERS[runner]}"])
    with pytest.raises(BeamAssertException, match="Failed assert"):
        with beam.Pipeline(options=options) as p:
            assert_that(p | beam.Create([1, 2]), equal_to([1, 3]))


def test_a_user_functions_error_surfaces_as_itself(runner):
    def explode(x):
        raise KeyError(f"no {x}")

    options = PipelineOptions([f"--runner={RUNNERS[runner]}"])
    with pytest.raises(KeyError, match="no 1"):
        with beam.Pipeline(options=options) as p:
            p | beam.Create([1]) | beam.Map(explode)


class WindowOf(beam.DoFn):
    def process(self, element, w=beam.DoFn.WindowParam):
        yield element, (float(w.start), float(w.end))


def test_a_user_window_function_assigns_as_in_beam(runner):
    def build(p):
        return (
            p
            | beam.Create([("a", 1), ("a", 4), ("b", 12), ("a", 13)])
            | beam.Map(lambda kv: window.TimestampedValue(kv, kv[1]))
            | beam.WindowInto(EveryTenSeconds())
            | beam.CombinePerKey(sum)
            | beam.ParDo(WindowOf())
        )

    assert sorted(matches_beam(build, runner)) == [
        (("a", 5), (0.0, 10.0)),
        (("a", 13), (10.0, 20.0)),
        (("b", 12), (10.0, 20.0)),
    ]


class Limited(beam.CombineFn):
    """A CombineFn taking a side input: the sum, capped."""

    def create_accumulator(self, cap):
        return 0

    def add_input(self, total, value, cap):
        return min(total + value, cap)

    def merge_accumulators(self, totals, cap):
        return min(sum(totals), cap)

    def extract_output(self, total, cap):
        return total


def test_a_combine_fn_with_a_side_input(runner):
    def build(p):
        cap = p | "Cap" >> beam.Create([10])
        pairs = p | "Pairs" >> beam.Create([("a", 4), ("a", 5), ("a", 6), ("b", 1)])
        return pairs | beam.CombinePerKey(Limited(), beam.pvalue.AsSingleton(cap))

    assert sorted(matches_beam(build, runner)) == [("a", 10), ("b", 1)]


class Numbers(iobase.BoundedSource):
    """A bounded source of the numbers below ``count``, split into ranges as Beam splits."""

    def __init__(self, count):
        self.count = count

    def estimate_size(self):
        return self.count

    def get_range_tracker(self, start, stop):
        start = 0 if start is None else start
        stop = self.count if stop is None else stop
        return range_trackers.OffsetRangeTracker(start, stop)

    def read(self, tracker):
        for number in range(tracker.start_position(), tracker.stop_position()):
            if not tracker.try_claim(number):
                return
            yield number

    def split(self, desired_bundle_size, start_position=None, stop_position=None):
        for start in range(0, self.count, 25):
            yield iobase.SourceBundle(25, self, start, min(start + 25, self.count))


def test_a_bounded_source_is_read_split_as_beam_splits_it(runner):
    def build(p):
        return p | beam.io.Read(Numbers(100)) | beam.combiners.Count.Globally()

    assert matches_beam(build, runner) == [100]
    p = beam.Pipeline()
    build(p)
    splits = [n for n in translate(p).nodes.values() if n.id.endswith("/EmitSource")]
    assert len(splits) == 1 and len(splits[0].payload["values"].load()) == 4


class Expand(beam.DoFn):
    """A splittable DoFn: each element n gives 0..n-1, one restriction position at a time."""

    class Restrictions(beam.transforms.core.RestrictionProvider):
        def initial_restriction(self, element):
            return OffsetRange(0, element)

        def create_tracker(self, restriction):
            return OffsetRestrictionTracker(restriction)

        def restriction_size(self, element, restriction):
            return restriction.size()

        def split(self, element, restriction):
            return restriction.split(3)

    def process(self, element, tracker=beam.DoFn.RestrictionParam(Restrictions())):  # noqa: B008
        position = tracker.current_restriction().start
        while tracker.try_claim(position):
            yield element, position
            position += 1


def test_a_splittable_dofn(runner):
    def build(p):
        return p | beam.Create([5, 7]) | beam.ParDo(Expand())

    assert sorted(matches_beam(build, runner)) == [(5, i) for i in range(5)] + [
        (7, i) for i in range(7)
    ]


def test_parquet_is_read_and_written_by_panes(runner, tmp_path):
    import pyarrow as pa

    schema = pa.schema([("name", pa.string()), ("score", pa.int64())])
    rows = [{"name": "a", "score": 1}, {"name": "b", "score": 2}, {"name": "c", "score": None}]
    options = PipelineOptions([f"--runner={RUNNERS[runner]}"])
    with beam.Pipeline(options=options) as p:
        p | beam.Create(rows) | "Write" >> beam.io.WriteToParquet(str(tmp_path / "rows"), schema)
    assert list(tmp_path.glob("rows-*"))

    def build(p):
        return p | "Read" >> beam.io.ReadFromParquet(str(tmp_path / "rows-*"))

    assert sorted(matches_beam(build, runner), key=str) == sorted(rows, key=str)
    p = beam.Pipeline()
    build(p)
    p | beam.Create(rows) | "Write" >> beam.io.WriteToParquet(str(tmp_path / "again"), schema)
    kinds = {n.id: n.kind for n in translate(p).nodes.values()}
    assert kinds["Read"] == "read" and kinds["Write"] == "write"


def test_a_dofn_with_parameters_lifecycle_and_tagged_outputs(runner):
    class Parity(beam.DoFn):
        def setup(self):
            self.seen = 0

        def start_bundle(self):
            self.bundle = []

        def process(self, element, t=beam.DoFn.TimestampParam):
            self.bundle.append(element)
            yield beam.pvalue.TaggedOutput("odd" if element % 2 else "even", (element, float(t)))

        def finish_bundle(self):
            yield window.GlobalWindows.windowed_value(("bundle", len(self.bundle)))

    def build(p):
        numbers = p | beam.Create([window.TimestampedValue(n, n) for n in range(5)])
        outputs = numbers | beam.ParDo(Parity()).with_outputs("odd", "even", main="sizes")
        return (outputs.odd, outputs.even) | beam.Flatten()

    assert sorted(matches_beam(build, runner)) == [(n, float(n)) for n in range(5)]


def test_a_side_input_is_mapped_to_the_main_windows_as_beam_maps_it(runner):
    def build(p):
        sides = (
            p
            | "Sides" >> beam.Create([window.TimestampedValue(w, w * 10) for w in range(3)])
            | "SideWindows" >> beam.WindowInto(window.FixedWindows(10))
        )
        return (
            p
            | "Main" >> beam.Create([window.TimestampedValue(x, x) for x in (1, 15, 25, 35)])
            | "MainWindows" >> beam.WindowInto(window.FixedWindows(10))
            | beam.Map(lambda x, side: (x, side), beam.pvalue.AsList(sides))
        )

    assert sorted(matches_beam(build, runner)) == [(1, [0]), (15, [1]), (25, [2]), (35, [])]


def test_beams_primitives_translate():
    """Every primitive Beam expands this pipeline into translates (Impulse, ParDo, WindowInto,
    GroupByKey, Flatten), none refused."""
    p = beam.Pipeline()
    left = p | "Left" >> beam.Create([("k", 1)])
    right = p | "Right" >> beam.Create([("k", 2)])
    ({"left": left, "right": right} | beam.CoGroupByKey() | beam.combiners.ToList())
    kinds = {n.kind for n in translate(p).nodes.values()}
    assert kinds == {
        "create",
        "par_do",
        "assign_windows",
        "flatten",
        "group_by_key",
        "combine_per_key",
    }


def test_beams_wordcount_runs_on_spark_from_the_command_line(tmp_path):
    """As the README shows it: Beam's example module, the runner named on the command line."""
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "apache_beam.examples.wordcount",
            f"--input={LIGHTHOUSE}",
            f"--output={tmp_path / 'counts'}",
            "--runner=panes.runners.beam.SparkRunner",
            "--spark_master=local[2]",
            "--spark_conf=spark.ui.enabled=false",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Unparseable argument" not in done.stderr
    words = re.findall(r"[\w']+", LIGHTHOUSE.read_text())
    assert f"wind: {words.count('wind')}" in shards(tmp_path / "counts")
