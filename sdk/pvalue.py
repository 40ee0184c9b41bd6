"""Values that flow between transforms: PCollections, tagged outputs and side-input views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from panes.pipeline import AppliedTransform, Pipeline


class PValue:
    """Something a transform can be applied to with ``|``."""

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline

    def __or__(self, transform):
        return self.pipeline.apply(transform, self)

    def __ror__(self, other):
        raise NotImplementedError


class PBegin(PValue):
    """The input of root transforms such as ``Create``: ``pipeline | Create(...)``."""


class PCollection(PValue):
    """A collection of windowed elements produced by one transform output."""

    def __init__(
        self,
        pipeline,
        producer: AppliedTransform | None = None,
        tag: str = "main",
        windowing=None,
        element_kind: str = "unknown",
    ):
        super().__init__(pipeline)
        self.producer = producer
        self.tag = tag
        self.windowing = windowing
        # What a validator can know of the elements: "kv", "not_kv" or "unknown".
        self.element_kind = element_kind
        self._element_type = None
        self._type_inference = None

    @property
    def element_type(self):
        """The elements' type hint (panes.typehints), or None when unknown. An inferred one
        is worked out when first read (a Create of a million values infers from each)."""
        if self._type_inference is not None:
            self._element_type, self._type_inference = self._type_inference(), None
        return self._element_type

    @element_type.setter
    def element_type(self, hint) -> None:
        self._element_type, self._type_inference = hint, None

    def infer_element_type(self, inference) -> None:
        """Gives the collection ``inference()`` as its element type, unless it has one."""
        if self._element_type is None and self._type_inference is None:
            self._type_inference = inference

    @property
    def label(self) -> str:
        return f"{self.producer.full_label}.{self.tag}" if self.producer else "<unattached>"

    def __repr__(self) -> str:
        return f"PCollection[{self.label}]"


class PDone(PValue):
    """The result of a transform that writes and produces no collection."""


class TaggedOutput:
    """Emitted from a DoFn to send ``value`` to the output named ``tag``."""

    __slots__ = ("tag", "value")

    def __init__(self, tag: str, value: Any):
        if not isinstance(tag, str):
            raise TypeError(f"TaggedOutput tag must be a string, got {tag!r}")
        self.tag = tag
        self.value = value


class DoOutputsTuple:
    """The outputs of a multi-output transform, by attribute or index: ``res.main``,
    ``res['odd']``; unpacked, they give the main output (unless ``main_unpacked`` is false, as
    for a ParDo whose ``with_outputs`` did not name it) and then the others."""

    def __init__(
        self, outputs: dict[str, PCollection], main_tag: str = "main", main_unpacked: bool = True
    ):
        self._outputs = outputs
        self._main_tag = main_tag
        self._unpacked = [pc for tag, pc in outputs.items() if main_unpacked or tag != main_tag]

    def __getattr__(self, tag: str) -> PCollection:
        if tag.startswith("_"):
            raise AttributeError(tag)
        return self[tag]

    def __getitem__(self, tag) -> PCollection:
        if isinstance(tag, int):
            return list(self._outputs.values())[tag]
        if tag is None:
            tag = self._main_tag
        try:
            return self._outputs[tag]
        except KeyError:
            raise AttributeError(
                f"no output tagged {tag!r}; declared outputs are {sorted(self._outputs)}"
            ) from None

    def __iter__(self):
        return iter(self._unpacked)

    def __len__(self):
        return len(self._unpacked)


class AsSideInput:
    """Marks a PCollection passed to a DoFn or Map as a side input, and how to view it."""

    view = ""

    def __init__(self, pcoll: PCollection):
        if not isinstance(pcoll, PCollection):
            from panes.errors import PipelineConstructionError

            raise PipelineConstructionError(
                f"{type(self).__name__} takes a PCollection, got {type(pcoll).__name__}; make "
                f"one first, e.g. {type(self).__name__}(p | 'Side' >> Create([...]))"
            )
        self.pvalue = pcoll


_NO_DEFAULT = object()


class AsSingleton(AsSideInput):
    """The side input's one element (or ``default_value`` when it is empty)."""

    view = "singleton"

    def __init__(self, pcoll, default_value=_NO_DEFAULT):
        super().__init__(pcoll)
        self.has_default = default_value is not _NO_DEFAULT
        self.default_value = None if default_value is _NO_DEFAULT else default_value


class AsIter(AsSideInput):
    """The side input's elements as an iterable."""

    view = "iter"


class AsList(AsSideInput):
    """The side input's elements as a list."""

    view = "list"


class AsDict(AsSideInput):
    """The side input's ``(key, value)`` elements as a dict."""

    view = "dict"
