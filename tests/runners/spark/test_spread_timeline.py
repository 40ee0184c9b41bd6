"""A source read record at a time in time order moves its watermark at every record: the Spark
runner keeps that timeline, and the output watermarks of the groupings it feeds, on the
executors. Whatever consumes them — a second grouping, a Flatten with a driver-held timeline —
still gives the direct runner's panes, at the direct runner's steps, on any partitioning."""

import pytest

import panes as beam
from panes.runners.spark import SparkRunner
from panes.testing import materialize
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, Sessions, TimestampCombiner, TimestampedValue


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """Two logs of ``seconds,key,value`` lines: one in time order (a watermark change per
    line), one with out-of-order lines, some late."""
    folder = tmp_path_factory.mktemp("logs")
    ordered = [f"{i // 2},k{i % 5},{i % 7}" for i in range(300)]
    disordered = [f"{(i * 37) % 150 - (20 if i % 11 == 0 else 0)},k{i % 3},1" for i in range(200)]
    (folder / "ordered.csv").write_text("\n".join(ordered) + "\n")
    (folder / "disordered.csv").write_text("\n".join(disordered) + "\n")
    return folder


def _read(p, path, label, strategy):
    return (
        p
        | label
        >> beam.io.ReadFromText(str(path)).with_watermarks(
            strategy, timestamp_fn=lambda line: int(line.split(",")[0])
        )
        | f"{label}Pairs" >> beam.Map(lambda line: (line.split(",")[1], int(line.split(",")[2])))
    )


def _pipeline(runner, logs):
    """Early, on-time and late sums per key over both logs, stamped at their earliest element
    (so the sums hold the output watermark back); then the sums, flattened with a few created
    records (whose timeline the driver holds), grouped again in sessions, where whatever the
    output watermark did not hold back would be late and dropped."""
    p = beam.Pipeline(runner=runner)
    ordered = _read(
        p, logs / "ordered.csv", "Ordered", WatermarkStrategy.for_monotonous_timestamps()
    )
    disordered = _read(
        p,
        logs / "disordered.csv",
        "Disordered",
        WatermarkStrategy.for_bounded_out_of_orderness(10).with_periodic_emission(3),
    )
    sums = (
        (ordered, disordered)
        | beam.Flatten()
        | beam.WindowInto(
            FixedWindows(60),
            trigger=AfterWatermark(early=AfterCount(3), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=15,
            timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST,
        )
        | "Sums" >> beam.CombinePerKey(sum).with_late_output("late")
    )
    created = beam.Create([("k1", 100, 40), ("k9", 1, 90), ("k1", 5, 160)]).with_watermarks(
        WatermarkStrategy.for_monotonous_timestamps(), timestamp_fn=lambda r: r[2]
    )
    few = p | created | beam.Map(lambda r: TimestampedValue(r[:2], r[2]))
    regrouped = (
        (
            sums.main | "SumSessions" >> beam.WindowInto(Sessions(1)),
            few | "FewSessions" >> beam.WindowInto(Sessions(1)),
        )
        | "Again" >> beam.Flatten()
        | "Regroup" >> beam.GroupByKey()
    )
    handles = [materialize(sums.main, "Main"), materialize(sums.late, "Late")]
    handles.append(materialize(regrouped | beam.MapTuple(lambda k, vs: (k, sorted(vs)))))
    result = p.run()
    return [
        (h.steps, [repr(wv) for wv in h.windowed_values]) for h in handles
    ], result.metrics().counter("dropped_late")


@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_multi_stage_pipelines_over_time_ordered_sources_give_the_direct_runners_panes(
    spark, logs, partitions
):
    direct = _pipeline("direct", logs)
    assert _pipeline(SparkRunner(partitions=partitions), logs) == direct
    (main_steps, main), (_, late), (_, regrouped) = direct[0]
    assert len(set(main_steps)) > 100  # panes fire at many of the sources' steps
    assert late and regrouped
