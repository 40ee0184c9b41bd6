"""Pipeline: builds a tree of applied transforms, compiles it to IR and hands it to a runner."""

from __future__ import annotations

from dataclasses import dataclass, field

from panes.errors import PipelineConstructionError
from panes.options.pipeline_options import PipelineOptions, StandardOptions, TypeOptions
from panes.pvalue import AsSideInput, DoOutputsTuple, PBegin, PCollection, PValue
from panes.typehints.decorators import check_input_type
from panes.typehints.typehints import Any, union_of


@dataclass(eq=False)
class AppliedTransform:
    """One application of a transform: its full label, inputs, outputs and nested parts."""

    transform: object
    full_label: str
    parent: AppliedTransform | None
    inputs: tuple = ()
    outputs: dict = field(default_factory=dict)
    parts: list = field(default_factory=list)

    def is_primitive(self) -> bool:
        """A primitive transform that did not expand into parts (a grouping by a key coder
        does)."""
        from panes.transforms.ptransform import PrimitiveTransform

        return isinstance(self.transform, PrimitiveTransform) and not self.parts


class Pipeline:
    """A graph of transforms, run on exit when used as a context manager (as in Beam).

    ``options`` is a ``PipelineOptions`` (or, in panes, a dict of option values); without
    it, ``argv`` is parsed as flags. ``runner`` defaults to the ``--runner`` option, then to
    the direct runner."""

    def __init__(self, runner=None, options=None, argv=None):
        if isinstance(options, dict):
            options = PipelineOptions([], **options)
        elif options is None:
            if argv is not None and not isinstance(argv, list):
                raise PipelineConstructionError(
                    f"argv must be a list of flags, got {type(argv).__name__}"
                )
            options = PipelineOptions(argv or [])
        elif not isinstance(options, PipelineOptions):
            raise PipelineConstructionError(
                f"options must be a PipelineOptions or a dict, got {type(options).__name__}"
            )
        self.options = options
        self._options = options  # Beam's name, which Beam's own tests use (trigger_test)
        if runner is None:
            runner = options.view_as(StandardOptions).runner or StandardOptions.DEFAULT_RUNNER
        self.runner = runner
        from panes.runners import check_runner

        check_runner(self.runner)
        self.root = AppliedTransform(None, "", None)
        self._stack = [self.root]
        self.applied_labels: set[str] = set()
        self.post_run_checks: list = []
        self.result = None

    # -- construction --------------------------------------------------------------------------

    def __or__(self, transform):
        return self.apply(transform, PBegin(self))

    def apply(self, transform, pvalue):
        from panes.transforms.ptransform import PTransform

        if not isinstance(transform, PTransform):
            raise PipelineConstructionError(
                f"expected a PTransform after '|', got {type(transform).__name__} {transform!r}; "
                f"wrap functions as Map(fn) or ParDo(DoFn)"
            )
        parent = self._stack[-1]
        label = transform.label or transform.default_label()
        full_label = self._unique(f"{parent.full_label}/{label}".lstrip("/"))
        if self.options.view_as(TypeOptions).pipeline_type_check and isinstance(
            pvalue, PCollection
        ):
            check_input_type(transform, full_label, pvalue, transform.input_type_hint())
        self.applied_labels.add(full_label)
        applied = AppliedTransform(transform, full_label, parent, _as_inputs(pvalue))
        parent.parts.append(applied)
        self._stack.append(applied)
        try:
            outputs = transform.expand(pvalue)
        finally:
            self._stack.pop()
        applied.outputs = _as_outputs(outputs, full_label)
        _type_main_output(transform, applied.inputs, outputs)
        return outputs

    def _unique(self, full_label: str) -> str:
        """The label itself, or with ``--auto_unique_labels`` the first free ``label_N``."""
        if full_label not in self.applied_labels:
            return full_label
        if not self.options.view_as(StandardOptions).auto_unique_labels:
            raise PipelineConstructionError(
                f"a transform labelled '{full_label}' already exists in this pipeline; give each "
                f"application a unique label, pcoll | 'Another label' >> transform, or pass "
                f"--auto_unique_labels"
            )
        index = 2
        while f"{full_label}_{index}" in self.applied_labels:
            index += 1
        return f"{full_label}_{index}"

    @property
    def current_transform(self) -> AppliedTransform:
        return self._stack[-1]

    def new_output(self, tag="main", windowing=None, element_kind="unknown") -> PCollection:
        """Called by primitive transforms' ``expand`` to make their outputs."""
        return PCollection(self, self.current_transform, tag, windowing, element_kind)

    # -- running -------------------------------------------------------------------------------

    def to_ir(self):
        from panes.compiler.compile import compile_pipeline

        return compile_pipeline(self)

    def run(self):
        """Runs the pipeline to completion and returns its ``PipelineResult``."""
        from panes.compiler.validate import validate
        from panes.io import dataframe
        from panes.runners import create_runner

        self.options.warn_unknown_flags()
        ir = self.to_ir()
        try:
            validate(
                ir,
                allow_unsafe_triggers=bool(self.options.view_as(TypeOptions).allow_unsafe_triggers),
            )
            runner = create_runner(self.runner)
            self.result = runner.run_pipeline(ir, self.options)
        finally:
            dataframe.release(ir)  # the live inputs its compilation registered
        for check in self.post_run_checks:
            check(self.result)
        return self.result

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.run().wait_until_finish()  # as Beam: a streaming pipeline runs until it ends
        return False


def _type_main_output(transform, inputs, outputs) -> None:
    """Sets the element type of the main output: the declared one, else (for a collection the
    transform itself made) the one it infers from its input's, when first read."""
    main = outputs[None] if isinstance(outputs, DoOutputsTuple) else outputs
    if not isinstance(main, PCollection):
        return
    if transform._output_type_hint is not None:
        main.element_type = transform._output_type_hint
    else:
        main.infer_element_type(
            lambda: transform.infer_output_type(
                union_of(pc.element_type or Any for pc in inputs) if inputs else None
            )
        )


def _as_inputs(pvalue) -> tuple:
    if isinstance(pvalue, PBegin):
        return ()
    if isinstance(pvalue, PCollection):
        return (pvalue,)
    if isinstance(pvalue, (list, tuple)):
        return tuple(pvalue)
    if isinstance(pvalue, dict):
        return tuple(pvalue.values())
    return ()


def _as_outputs(outputs, label) -> dict:
    if isinstance(outputs, AsSideInput):  # e.g. CombineGlobally(...).as_singleton_view()
        return {"main": outputs.pvalue}
    if outputs is None or isinstance(outputs, PValue) and not isinstance(outputs, PCollection):
        return {}
    if isinstance(outputs, PCollection):
        return {"main": outputs}
    if isinstance(outputs, DoOutputsTuple):
        return {pc.tag: pc for pc in outputs}
    if isinstance(outputs, (list, tuple)):
        return {str(i): pc for i, pc in enumerate(outputs)}
    if isinstance(outputs, dict):
        return dict(outputs)
    raise PipelineConstructionError(
        f"transform '{label}' returned {type(outputs).__name__} from expand(); return a "
        f"PCollection, a tuple/dict of PCollections, or None"
    )
