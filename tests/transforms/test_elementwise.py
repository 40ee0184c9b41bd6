"""Element-wise transforms: Create, Map, FlatMap, Filter, MapTuple, ParDo with DoFns, tagged
outputs, DoFn parameters, Partition, Flatten, Reshuffle and the key-value utilities."""

import pytest

import panes as beam
from panes.errors import PipelineConstructionError
from panes.metrics import Metrics, MetricsFilter
from panes.testing import assert_that, equal_to, materialize
from panes.utils.timestamp import Timestamp
from panes.window import FixedWindows, IntervalWindow, Sessions, TimestampedValue


def run(runner, build):
    """Builds a pipeline with ``build(p)`` -> handles, runs it on ``runner``, returns values."""
    p = beam.Pipeline(runner=runner)
    handles = build(p)
    result = p.run()
    return result, [h.values for h in handles]


def test_map_flatmap_filter_and_maptuple(runner):
    def build(p):
        numbers = p | beam.Create([1, 2, 3, 4])
        return [
            materialize(numbers | "Square" >> beam.Map(lambda x, k: x * x + k, 1)),
            materialize(numbers | "Repeat" >> beam.FlatMap(lambda x: [x] * (x % 3))),
            materialize(numbers | "Even" >> beam.Filter(lambda x: x % 2 == 0)),
            materialize(
                numbers
                | "Pair" >> beam.Map(lambda x: (x, -x))
                | "Add" >> beam.MapTuple(lambda a, b: a - b)
            ),
        ]

    _, (squares, repeated, even, doubled) = run(runner, build)
    assert sorted(squares) == [2, 5, 10, 17]
    assert sorted(repeated) == [1, 2, 2, 4]
    assert sorted(even) == [2, 4]
    assert sorted(doubled) == [2, 4, 6, 8]


def test_maptuple_passes_the_parameters_its_function_asks_for(runner):
    def stamped(key, value, window=beam.DoFn.WindowParam, t=beam.DoFn.TimestampParam):
        return key, value, float(window.start), float(t)

    def build(p):
        return [
            materialize(
                p
                | beam.Create([TimestampedValue(("a", 1), 12)])
                | beam.WindowInto(FixedWindows(10))
                | beam.MapTuple(stamped)
            )
        ]

    _, [out] = run(runner, build)
    assert out == [("a", 1, 10.0, 12.0)]


def test_transforms_chained_before_they_are_applied_apply_in_turn(runner):
    def build(p):
        square_then_halve = beam.Map(lambda x: x * x) | "Halve" >> beam.Map(lambda x: x / 2)
        return [materialize(p | beam.Create([2, 4]) | "Both" >> square_then_halve)]

    _, [out] = run(runner, build)
    assert sorted(out) == [2.0, 8.0]
    square_then_halve = beam.Map(len) | "Halve" >> beam.Map(lambda x: x / 2)
    assert square_then_halve.label == "Map(len)|Halve"
    with pytest.raises(PipelineConstructionError, match="only a transform follows"):
        beam.Map(len) | 3


class Lifecycle(beam.DoFn):
    """Records which lifecycle methods ran, through its outputs and metrics."""

    def setup(self):
        self.prefix = "set-up"

    def start_bundle(self):
        Metrics.counter("lifecycle", "bundles").inc()

    def process(self, element):
        Metrics.distribution("lifecycle", "sizes").update(len(element))
        yield f"{self.prefix}:{element}"

    def finish_bundle(self):
        Metrics.counter("lifecycle", "finished").inc()

    def teardown(self):
        self.prefix = None


def test_dofn_lifecycle_and_metrics(runner):
    result, [out] = run(
        runner,
        lambda p: [
            materialize(p | beam.Create(["a", "bb", "ccc"]) | "Life" >> beam.ParDo(Lifecycle()))
        ],
    )
    assert sorted(out) == ["set-up:a", "set-up:bb", "set-up:ccc"]
    metrics = result.metrics()
    assert metrics.counter("bundles") == metrics.counter("finished") >= 1
    [sizes] = metrics.query(MetricsFilter().with_name("sizes"))["distributions"]
    assert (
        sizes.committed.count,
        sizes.committed.sum,
        sizes.committed.min,
        sizes.committed.max,
    ) == (3, 6, 1, 3)


class SplitByParity(beam.DoFn):
    def process(self, element):
        if element < 0:
            return
        yield beam.TaggedOutput("odd" if element % 2 else "even", element)
        yield element * 10


def test_tagged_outputs(runner):
    def build(p):
        outputs = (
            p
            | beam.Create([1, 2, 3, -1])
            | beam.ParDo(SplitByParity()).with_outputs("odd", "even", main="tens")
        )
        return [
            materialize(outputs.tens, "Tens"),
            materialize(outputs.odd, "Odd"),
            materialize(outputs["even"], "Even"),
        ]

    _, (tens, odd, even) = run(runner, build)
    assert (sorted(tens), sorted(odd), sorted(even)) == ([10, 20, 30], [1, 3], [2])


def test_tagged_outputs_unpack_as_beams_do(runner):
    """The main output comes first when ``main`` names it, and is left out when not."""

    def build(p):
        numbers = p | beam.Create([1, 2, 3])
        odd, even = numbers | "Tags" >> beam.ParDo(SplitByParity()).with_outputs("odd", "even")
        tens, odd_too, _ = numbers | "All" >> beam.ParDo(SplitByParity()).with_outputs(
            "odd", "even", main="tens"
        )
        return [materialize(pc, name) for pc, name in [(odd, "O"), (even, "E"), (tens, "T")]]

    _, (odd, even, tens) = run(runner, build)
    assert (sorted(odd), sorted(even), sorted(tens)) == ([1, 3], [2], [10, 20, 30])


class Describe(beam.DoFn):
    def process(
        self,
        element,
        timestamp=beam.DoFn.TimestampParam,
        window=beam.DoFn.WindowParam,
        pane=beam.DoFn.PaneInfoParam,
    ):
        yield element, timestamp, window, pane.is_first


def test_timestamp_window_and_pane_parameters(runner):
    _, [out] = run(
        runner,
        lambda p: [
            materialize(
                p
                | beam.Create([TimestampedValue("x", 7), TimestampedValue("y", 12)])
                | beam.WindowInto(FixedWindows(10))
                | beam.ParDo(Describe())
            )
        ],
    )
    # Before any grouping an element's pane is Beam's NO_FIRING, which is first and last.
    assert sorted(out) == [
        ("x", Timestamp(7), IntervalWindow(0, 10), True),
        ("y", Timestamp(12), IntervalWindow(10, 20), True),
    ]
    assert {type(timestamp) for _, timestamp, _, _ in out} == {Timestamp}


def test_timestamped_outputs_move_elements_in_event_time(runner):
    def build(p):
        stamped = (
            p
            | beam.Create([("a", 1), ("a", 2), ("b", 30)])
            | "Stamp" >> beam.Map(lambda kv: TimestampedValue(kv, kv[1]))
        )
        grouped = (
            stamped
            | beam.WindowInto(FixedWindows(10))
            | "Key" >> beam.Map(lambda kv: (kv[0], kv))
            | beam.GroupByKey()
        )
        return [
            materialize(
                grouped
                | "Describe"
                >> beam.Map(
                    lambda kv, w=beam.DoFn.WindowParam: (kv[0], sorted(kv[1]), int(w.start))
                )
            )
        ]

    _, [out] = run(runner, build)
    assert sorted(out) == [("a", [("a", 1), ("a", 2)], 0), ("b", [("b", 30)], 30)]


def test_partition_flatten_and_reshuffle(runner):
    def build(p):
        parts = p | beam.Create(range(10)) | beam.Partition(lambda x, n: x % n, 3)
        merged = (parts[0], parts[2]) | beam.Flatten()
        return [materialize(parts[1], "One"), materialize(merged | beam.Reshuffle(), "Merged")]

    _, (one, merged) = run(runner, build)
    assert sorted(one) == [1, 4, 7]
    assert sorted(merged) == [0, 2, 3, 5, 6, 8, 9]


def test_key_value_utilities(runner):
    def build(p):
        pairs = p | beam.Create([("a", 1), ("b", 2), ("a", 1)])
        return [
            materialize(pairs | beam.Keys(), "K"),
            materialize(pairs | beam.Values(), "V"),
            materialize(pairs | beam.KvSwap(), "S"),
            materialize(pairs | beam.Distinct(), "D"),
            materialize(pairs | "Vals" >> beam.Values() | beam.WithKeys(lambda v: v * 10), "W"),
            materialize(pairs | "Ks" >> beam.Keys() | "Const" >> beam.WithKeys("k"), "C"),
        ]

    _, (keys, values, swapped, distinct, keyed, constant) = run(runner, build)
    assert sorted(keys) == ["a", "a", "b"]
    assert sorted(values) == [1, 1, 2]
    assert sorted(swapped) == [(1, "a"), (1, "a"), (2, "b")]
    assert sorted(distinct) == [("a", 1), ("b", 2)]
    assert sorted(keyed) == [(10, 1), (10, 1), (20, 2)]
    assert sorted(constant) == [("k", "a"), ("k", "a"), ("k", "b")]


def test_assert_that_checks_after_the_run(runner):
    p = beam.Pipeline(runner=runner)
    assert_that(p | beam.Create([3, 1, 2]) | beam.Map(lambda x: x + 1), equal_to([2, 3, 4]))
    p.run()


class CountingSum(beam.CombineFn):
    """A sum that counts the inputs it adds, to show whose step a combiner's metrics land in."""

    def create_accumulator(self):
        return 0

    def add_input(self, total, value):
        Metrics.counter("fused", "added").inc()
        return total + value

    def merge_accumulators(self, totals):
        return sum(totals)

    def extract_output(self, total):
        return total


@pytest.mark.parametrize(
    "window_fn, windows",
    [
        # The windows of a's sums 12 and 6, then of b's 4 and 8.
        (FixedWindows(60), [(0, 60), (60, 120), (0, 60), (60, 120)]),
        # Merging windows: the combiner runs when the key's windows have been merged.
        (Sessions(10), [(0, 15), (61, 71), (5, 15), (62, 72)]),
    ],
)
def test_fused_stages_run_once_per_element_and_count_under_their_own_step(
    runner, window_fn, windows
):
    """Consecutive Maps, FlatMaps and WindowIntos run in one loop on both runners; each DoFn
    still runs once per element, and metrics name the transform whose code reported them."""

    def parse(line):
        Metrics.counter("fused", "parsed").inc()
        key, value, seconds = line.split(",")
        return TimestampedValue((key, int(value)), int(seconds))

    def twice(pair):
        Metrics.counter("fused", "doubled").inc()
        return [pair, pair]

    lines = ["a,1,0", "b,2,5", "a,3,61", "b,4,62", "a,5,5"]
    p = beam.Pipeline(runner=runner)
    sums = materialize(
        p
        | beam.Create(lines)
        | "Parse" >> beam.Map(parse)
        | "Twice" >> beam.FlatMap(twice)
        | beam.WindowInto(window_fn)
        | "Sum" >> beam.CombinePerKey(CountingSum())
    )
    metrics = p.run().metrics()

    sums_by_key = [("a", 12), ("a", 6), ("b", 4), ("b", 8)]
    expected = [
        (sum_, IntervalWindow(start, end)) for sum_, (start, end) in zip(sums_by_key, windows)
    ]
    assert sorted((wv.value, wv.windows[0]) for wv in sums.windowed_values) == sorted(expected)
    counted = {
        (r.key.step, r.key.metric.name): r.committed
        for r in metrics.query(namespace="fused")["counters"]
    }
    assert counted == {("Parse", "parsed"): 5, ("Twice", "doubled"): 5, ("Sum", "added"): 10}


def test_grouping_nothing_created_gives_nothing(runner):
    """Create([]) says nothing of its elements, so a GroupByKey after it is no misuse (Beam
    types it Any) and groups nothing."""
    p = beam.Pipeline(runner=runner)
    handle = materialize(p | beam.Create([]) | beam.GroupByKey())
    p.run()
    assert handle.values == []
