"""Pipeline: builds a tree of applied transforms, compiles it to IR and hands it to a runner."""

from __future__ import annotations

from dataclasses import dataclass, field

from panes.errors import PipelineConstructionError
from panes.metrics import MetricResults, MetricsContainer
from panes.options import PipelineOptions
from panes.pvalue import DoOutputsTuple, PBegin, PCollection, PValue


@dataclass(eq=False)
class AppliedTransform:
    """One application of a transform: its full label, inputs, outputs and nested parts."""

    transform: object
    full_label: str
    parent: "AppliedTransform | None"
    inputs: tuple = ()
    outputs: dict = field(default_factory=dict)
    parts: list = field(default_factory=list)

    def is_primitive(self) -> bool:
        from panes.transforms.ptransform import PrimitiveTransform

        return isinstance(self.transform, PrimitiveTransform)


class Pipeline:
    """A graph of transforms, run on exit when used as a context manager (as in Beam)."""

    def __init__(self, runner=None, options=None, argv=None):
        if options is None or isinstance(options, dict):
            options = PipelineOptions(options or {})
        elif not isinstance(options, PipelineOptions):
            raise PipelineConstructionError(
                f"options must be a PipelineOptions or a dict, got {type(options).__name__}")
        if argv:
            options = options.with_values(**PipelineOptions.from_args(argv).get_all_options())
        self.options = options
        self.runner = runner if runner is not None else options.runner
        from panes.runners import check_runner

        check_runner(self.runner)
        self.root = AppliedTransform(None, "", None)
        self._stack = [self.root]
        self._labels: set[str] = set()
        self.post_run_checks: list = []
        self.result: PipelineResult | None = None

    # -- construction --------------------------------------------------------------------------

    def __or__(self, transform):
        return self.apply(transform, PBegin(self))

    def apply(self, transform, pvalue):
        from panes.transforms.ptransform import PTransform

        if not isinstance(transform, PTransform):
            raise PipelineConstructionError(
                f"expected a PTransform after '|', got {type(transform).__name__} {transform!r}; "
                f"wrap functions as Map(fn) or ParDo(DoFn)")
        parent = self._stack[-1]
        label = transform.label or transform.default_label()
        full_label = f"{parent.full_label}/{label}" if parent.full_label else label
        if full_label in self._labels:
            raise PipelineConstructionError(
                f"a transform labelled '{full_label}' already exists in this pipeline; "
                f"give each application a unique label: pcoll | 'Another{label}' >> ...")
        self._labels.add(full_label)
        applied = AppliedTransform(transform, full_label, parent, _as_inputs(pvalue))
        parent.parts.append(applied)
        self._stack.append(applied)
        try:
            outputs = transform.expand(pvalue)
        finally:
            self._stack.pop()
        applied.outputs = _as_outputs(outputs, full_label)
        return outputs

    @property
    def current_transform(self) -> AppliedTransform:
        return self._stack[-1]

    def new_output(self, tag="main", windowing=None, element_kind="unknown") -> PCollection:
        """Called by primitive transforms' ``expand`` to make their outputs."""
        return PCollection(self, self.current_transform, tag, windowing, element_kind)

    # -- running -------------------------------------------------------------------------------

    def to_ir(self):
        from panes.ir.compile import compile_pipeline

        return compile_pipeline(self)

    def run(self) -> "PipelineResult":
        from panes.ir.validate import validate
        from panes.runners import create_runner

        ir = self.to_ir()
        validate(ir, allow_unsafe_triggers=bool(self.options.allow_unsafe_triggers))
        runner = create_runner(self.runner)
        self.result = runner.run_pipeline(ir, self.options)
        for check in self.post_run_checks:
            check(self.result)
        return self.result

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.run().wait_until_finish()  # as Beam: a streaming pipeline runs until it ends
        return False


class PipelineResult:
    """What a finished run reports: its state, metrics and captured collections."""

    def __init__(self, metrics: MetricsContainer, captures: dict):
        self.state = "DONE"
        self._metrics = metrics
        self.captures = captures

    def wait_until_finish(self, duration=None) -> str:
        return self.state

    def metrics(self) -> MetricResults:
        return MetricResults(self._metrics)


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
        f"PCollection, a tuple/dict of PCollections, or None")
