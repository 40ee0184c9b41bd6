"""A Beam pipeline's translation into panes' IR: windowing one-to-one, composites panes
translates whole, the fast path, and refusals that name the transform and what is missing.
Each pipeline is translated as built and as ``TestPipeline`` rebuilds it from the Runner API
proto."""

import pytest

beam = pytest.importorskip(
    "apache_beam", reason="Beam's pipelines need apache-beam: pip install 'panes[beam]'"
)

from apache_beam.options.pipeline_options import PipelineOptions  # noqa: E402
from apache_beam.testing.test_stream import TestStream  # noqa: E402
from apache_beam.transforms import trigger, window  # noqa: E402
from beam_reference import EveryTenSeconds  # noqa: E402

from panes.compiler.lift import lift  # noqa: E402
from panes.errors import PipelineConstructionError  # noqa: E402
from panes.ir import io as ir_io  # noqa: E402
from panes.ir import triggers as ir_triggers  # noqa: E402
from panes.ir import windowing as ir  # noqa: E402
from panes.runners.beam.translate import translate  # noqa: E402
from panes.transforms.combinefn import SumFn  # noqa: E402
from panes.utils.timestamp import MAX_TIMESTAMP  # noqa: E402

SECOND = 1_000_000


def rebuilt(pipeline):
    """The pipeline as ``TestPipeline.run`` hands it to a runner: through the proto."""
    return beam.Pipeline.from_runner_api(
        pipeline.to_runner_api(use_fake_coders=True), pipeline.runner, pipeline._options
    )


@pytest.fixture(params=["built", "rebuilt"])
def translated(request):
    """Translates the pipeline ``build(p)`` makes, as built or as rebuilt from the proto."""

    def run(build, flags=()):
        p = beam.Pipeline(options=PipelineOptions(list(flags)))
        build(p)
        return translate(p if request.param == "built" else rebuilt(p))

    return run


def node(ir, suffix):
    (found,) = [n for n in ir.nodes.values() if n.id.endswith(suffix)]
    return found


def test_windowing_strategies_translate_one_to_one(translated):
    def build(p):
        (
            p
            | beam.Create([("a", 1)])
            | "Window"
            >> beam.WindowInto(
                window.FixedWindows(60, offset=15),
                trigger=trigger.AfterWatermark(
                    early=trigger.AfterProcessingTime(30),
                    late=trigger.AfterAny(trigger.AfterCount(3), trigger.AfterProcessingTime(5)),
                ),
                accumulation_mode=trigger.AccumulationMode.ACCUMULATING,
                timestamp_combiner=window.TimestampCombiner.OUTPUT_AT_EARLIEST,
                allowed_lateness=3600,
            )
            | beam.GroupByKey()
        )

    ir_ = translated(build)
    windowing = ir_.pcollections[node(ir_, "Window").outputs["main"]].windowing
    assert windowing == ir.WindowingStrategy(
        ir.FixedWindows(60 * SECOND, 15 * SECOND),
        ir_triggers.AfterEndOfWindow(
            ir_triggers.AfterProcessingTime(30 * SECOND),
            ir_triggers.AfterAny(
                (ir_triggers.ElementCount(3), ir_triggers.AfterProcessingTime(5 * SECOND))
            ),
        ),
        ir.AccumulationMode.ACCUMULATING,
        3600 * SECOND,
        ir.TimestampCombiner.OUTPUT_AT_EARLIEST,
    )


@pytest.mark.parametrize(
    "beam_window, expected",
    [
        (window.GlobalWindows(), ir.GlobalWindows()),
        (
            window.SlidingWindows(30, 10, offset=5),
            ir.SlidingWindows(30 * SECOND, 10 * SECOND, 5 * SECOND),
        ),
        (window.Sessions(600), ir.Sessions(600 * SECOND)),
    ],
)
def test_window_functions(translated, beam_window, expected):
    ir_ = translated(lambda p: p | beam.Create([1]) | "Window" >> beam.WindowInto(beam_window))
    assert node(ir_, "Window").payload["window_fn"] == expected


@pytest.mark.parametrize(
    "beam_trigger, expected",
    [
        (
            trigger.Repeatedly(trigger.AfterCount(2)),
            ir_triggers.Repeat(ir_triggers.ElementCount(2)),
        ),
        (
            trigger.AfterEach(trigger.AfterCount(1), trigger.AfterWatermark()),
            ir_triggers.AfterEach((ir_triggers.ElementCount(1), ir_triggers.AfterEndOfWindow())),
        ),
        (
            trigger.OrFinally(trigger.Repeatedly(trigger.AfterCount(2)), trigger.AfterCount(5)),
            ir_triggers.OrFinally(
                ir_triggers.Repeat(ir_triggers.ElementCount(2)), ir_triggers.ElementCount(5)
            ),
        ),
        (
            trigger.AfterAll(trigger.AfterCount(2), trigger.AfterProcessingTime(1)),
            ir_triggers.AfterAll(
                (ir_triggers.ElementCount(2), ir_triggers.AfterProcessingTime(SECOND))
            ),
        ),
        (trigger.Always(), ir_triggers.Repeat(ir_triggers.ElementCount(1))),
    ],
)
def test_triggers(translated, beam_trigger, expected):
    def build(p):
        windowed = (
            p
            | beam.Create([(1, 2)])
            | "Window"
            >> beam.WindowInto(
                window.GlobalWindows(),
                trigger=beam_trigger,
                accumulation_mode=trigger.AccumulationMode.DISCARDING,
            )
        )
        windowed | beam.GroupByKey()

    ir_ = translated(build, ["--allow_unsafe_triggers"])
    assert ir_.pcollections[node(ir_, "Window").outputs["main"]].windowing.trigger == expected


def test_a_grouping_carries_the_continuation_trigger(translated):
    def build(p):
        (
            p
            | beam.Create([(1, 2)])
            | beam.WindowInto(
                window.FixedWindows(10),
                trigger=trigger.Repeatedly(trigger.AfterCount(5)),
                accumulation_mode=trigger.AccumulationMode.DISCARDING,
            )
            | "Group" >> beam.GroupByKey()
        )

    ir_ = translated(build)
    grouped = ir_.pcollections[node(ir_, "Group").outputs["main"]].windowing
    assert grouped.trigger == ir_triggers.Repeat(ir_triggers.ElementCount(1))


def test_a_user_window_function_is_kept_whole(translated):
    ir_ = translated(
        lambda p: p | beam.Create([1]) | "Window" >> beam.WindowInto(EveryTenSeconds())
    )
    window_fn = node(ir_, "Window").payload["window_fn"]
    assert isinstance(window_fn, ir.CustomWindowFn)
    assert window_fn.name.endswith("EveryTenSeconds")


def test_composites_panes_has_translate_whole(translated, tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("a b\n")

    def build(p):
        (
            p
            | "Read" >> beam.io.ReadFromText(str(text))
            | beam.FlatMap(str.split)
            | beam.Map(lambda word: (word, 1))
            | "Count" >> beam.CombinePerKey(sum)
            | beam.Reshuffle()
            | beam.MapTuple(lambda word, count: f"{word}: {count}")
            | "Write" >> beam.io.WriteToText(str(tmp_path / "out"))
        )

    ir_ = translated(build)
    assert [n.kind for n in ir_.nodes.values()] == [
        "read",
        "par_do",
        "par_do",
        "combine_per_key",
        "par_do",
        "write",
    ]
    assert node(ir_, "Read").payload["source"] == ir_io.TextSource(str(text))
    assert isinstance(lift(node(ir_, "Count").payload["combine_fn"]), SumFn)
    sink = node(ir_, "Write/WriteImpl").payload["sink"]
    assert sink == ir_io.TextSink(str(tmp_path / "out"))


def test_a_plain_map_takes_the_fast_path_and_a_dofn_with_parameters_does_not(translated):
    class WithWindow(beam.DoFn):
        def process(self, element, w=beam.DoFn.WindowParam):
            yield element

    def build(p):
        numbers = p | beam.Create([1, 2])
        numbers | "Plain" >> beam.Map(lambda x: x + 1)
        numbers | "Params" >> beam.ParDo(WithWindow())

    ir_ = translated(build)
    assert type(lift(node(ir_, "Plain").payload["fn"])).__name__ == "FastBeamFn"
    assert type(lift(node(ir_, "Params").payload["fn"])).__name__ == "BeamDoFn"


def test_a_tagged_test_stream_is_split_by_tag_with_its_tags_least_watermark(translated):
    def build(p):
        stream = p | "Events" >> (
            TestStream(output_tags=["left", "right"])
            .advance_watermark_to(5, tag="left")
            .add_elements([1], tag="left")
            .advance_watermark_to(3, tag="right")
            .add_elements([2], tag="right")
            .advance_watermark_to_infinity(tag="left")
            .advance_watermark_to_infinity(tag="right")
        )
        stream["left"] | "Left" >> beam.Map(lambda x: x)
        stream["right"] | "Right" >> beam.Map(lambda x: x)

    ir_ = translated(build, ["--streaming"])
    events = ir_.nodes["Events/Events"].payload["events"]
    assert [type(e).__name__ for e in events] == [
        "AddElements",
        "AdvanceWatermark",
        "AddElements",
        "AdvanceWatermark",
    ]
    # left at 5 s, right still at -inf; right at 3 s: 3 s; left at +inf, then right: +inf
    assert [e.watermark for e in events if type(e).__name__ == "AdvanceWatermark"] == [
        3 * SECOND,
        MAX_TIMESTAMP.micros,
    ]
    assert set(ir_.nodes["Events"].outputs) == {"left", "right"}


def test_a_trigger_of_the_users_own_is_refused():
    """(Rebuilt from the proto, it would be Beam's AfterCount(3): the proto keeps only that.)"""

    class EveryThird(trigger.AfterCount):
        def __init__(self):
            super().__init__(3)

    def build(p):
        (
            p
            | beam.Create([(1, 2)])
            | "Window"
            >> beam.WindowInto(
                window.GlobalWindows(),
                trigger=trigger.Repeatedly(EveryThird()),
                accumulation_mode=trigger.AccumulationMode.DISCARDING,
            )
            | beam.GroupByKey()
        )

    p = beam.Pipeline()
    build(p)
    with pytest.raises(PipelineConstructionError, match="'Window': panes cannot run the trigger"):
        translate(p)
