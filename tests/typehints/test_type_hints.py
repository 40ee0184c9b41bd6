"""Type hints as Beam's: declared with decorators, annotations or on transforms, checked when
the pipeline is built with Beam's error, and off with --no_pipeline_type_check."""

import typing

import pytest

import panes as beam
from panes import typehints
from panes.options.pipeline_options import PipelineOptions
from panes.typehints import KV, Iterable, Tuple, with_input_types, with_output_types
from panes.typehints.decorators import TypeCheckError
from panes.typehints.typehints import is_consistent_with


@pytest.mark.parametrize(
    "sub, base, consistent",
    [
        (int, float, True),
        (str, int, False),
        (typing.Any, str, True),
        (str, typing.Any, True),
        (Tuple[str, int], KV[str, int], True),
        (Tuple[str, int], KV[int, int], False),
        (Tuple[str, int], Tuple[str, ...], False),
        (Tuple[str, str], Tuple[str, ...], True),
        (list[int], Iterable[int], True),
        (list[str], Iterable[int], False),
        (typing.Union[int, str], typing.Union[int, str, float], True),
        (typing.Union[int, bytes], str, False),
        (bool, int, True),
        (list, Iterable[int], True),
        (dict[str, int], dict[str, float], True),
    ],
)
def test_consistency_as_pep_483(sub, base, consistent):
    assert is_consistent_with(sub, base) is consistent


def test_a_contradicting_input_hint_fails_with_beams_error():
    p = beam.Pipeline()
    with pytest.raises(TypeCheckError) as caught:
        p | beam.Create([1, 2]) | "Upper" >> beam.Map(str.upper).with_input_types(str)
    assert str(caught.value) == (
        "The transform 'Upper' requires PCollections of type '<class 'str'>' but was applied "
        "to a PCollection of type '<class 'int'>' (produced by the transform 'Create'). "
    )


def test_decorators_and_annotations_declare_element_types():
    @with_input_types(int)
    @with_output_types(str)
    def show(x):
        return str(x)

    def halve(x: float) -> float:
        return x / 2

    p = beam.Pipeline()
    shown = p | beam.Create([1]) | beam.Map(show)
    assert shown.element_type is str
    with pytest.raises(TypeCheckError, match="requires PCollections of type '<class 'float'>'"):
        shown | beam.Map(halve)


def test_hints_flow_through_groupings_and_dofns():
    class Split(beam.DoFn):
        def process(self, line: str) -> typing.Iterable[str]:
            yield from line.split()

    p = beam.Pipeline()
    words = p | beam.Create(["a b"]) | beam.ParDo(Split())
    grouped = words | beam.Map(lambda w: (w, 1)).with_output_types(KV[str, int]) | beam.GroupByKey()
    assert words.element_type is str
    assert grouped.element_type == Tuple[str, Iterable[int]]
    with pytest.raises(TypeCheckError):
        grouped | beam.Map(len).with_input_types(int)


def test_the_check_is_off_with_no_pipeline_type_check():
    p = beam.Pipeline(options=PipelineOptions(["--no_pipeline_type_check"]))
    p | beam.Create([1]) | beam.Map(str).with_input_types(str)
    assert p.run().state == "DONE"


def test_beams_type_hint_names_are_there():
    for name in (
        "Any",
        "Union",
        "Optional",
        "Tuple",
        "List",
        "KV",
        "Dict",
        "Set",
        "FrozenSet",
        "Iterable",
        "Iterator",
        "Generator",
        "with_input_types",
        "with_output_types",
    ):
        assert hasattr(typehints, name), name
