"""Checks an IR before any runner starts; every error names the node and the fix: the version
and requirements, every value against the IR's annotations (as ``from_json`` reads them), the
graph, and windowing that cannot run."""

from __future__ import annotations

from panes.errors import ValidationError
from panes.ir.model import IR_VERSION, NODE_KINDS, STATEFUL_PAR_DO, PipelineIR, checked

_INPUT_COUNTS = {
    "create": (0, 0),
    "read": (0, 0),
    "test_stream": (0, 0),
    "par_do": (1, 1),
    "assign_windows": (1, 1),
    "group_by_key": (1, 1),
    "combine_per_key": (1, 1),
    "flatten": (1, None),
    "write": (1, 1),
}


def validate(ir: PipelineIR, allow_unsafe_triggers: bool = False) -> PipelineIR:
    """Checks that ``ir`` can run; ``allow_unsafe_triggers`` is the pipeline-wide opt-in."""
    if not isinstance(ir, PipelineIR):
        raise ValidationError(f"expected a PipelineIR, got {type(ir).__name__}")
    if ir.version != IR_VERSION:
        raise ValidationError(
            f"IR version {ir.version} is not supported (this panes reads version {IR_VERSION}); "
            f"recompile the pipeline with this version of panes"
        )
    for requirement in ir.requirements:
        kind = requirement.split(":")[2] if requirement.startswith("panes:node:") else None
        if kind not in NODE_KINDS and requirement != STATEFUL_PAR_DO:
            raise ValidationError(
                f"the IR requires {requirement!r}, which this panes does not understand; "
                f"upgrade panes or drop the transform that needs it"
            )
    if not ir.nodes:
        raise ValidationError(
            "the pipeline is empty: apply at least one transform, e.g. p | Create([...])"
        )
    checked(ir)  # every value fits its annotation, however the IR was built
    produced: set = set()
    for node in ir.nodes.values():
        _check_node(node, produced, ir, allow_unsafe_triggers)
        produced.update(node.outputs.values())
    return ir


def _check_node(node, produced, ir, allow_unsafe_triggers):
    if node.kind not in NODE_KINDS:
        raise ValidationError(
            f"node '{node.id}' has unknown kind {node.kind!r}; known kinds are {list(NODE_KINDS)}"
        )
    low, high = _INPUT_COUNTS[node.kind]
    if len(node.inputs) < low or (high is not None and len(node.inputs) > high):
        raise ValidationError(
            f"node '{node.id}' ({node.kind}) has {len(node.inputs)} inputs; it takes "
            f"{low if low == high else f'at least {low}'}"
        )
    for pcollection in (*node.inputs, *(side.pcollection for side in node.side_inputs)):
        if pcollection not in produced:
            raise ValidationError(
                f"node '{node.id}' reads '{pcollection}', which is not produced before it"
            )
    if node.kind == "assign_windows":
        _check_windowing(node, ir, allow_unsafe_triggers)
    if ir.is_stateful(node):
        _check_stateful(node, ir)


def _check_stateful(node, ir):
    """State and timers are per key and window: a window that may merge away has no state of
    its own to keep (Beam's StatefulDoFnRunner refuses merging window functions)."""
    from panes.windowing import window_fn_kinds

    window_fn = ir.pcollections[node.inputs[0]].windowing.window_fn
    if window_fn_kinds.from_ir(window_fn).is_merging():
        raise ValidationError(
            f"node '{node.id}' is a stateful DoFn under merging windows "
            f"({type(window_fn).__name__}), whose state could not be kept per window; window "
            f"its input without merging (e.g. FixedWindows, or GlobalWindows with a timer "
            f"per key) or group first"
        )


def _check_windowing(node, ir, allow_unsafe_triggers):
    from panes.windowing import validate_strategy

    strategy = ir.pcollections[node.outputs["main"]].windowing
    try:
        validate_strategy(
            strategy,
            node.id,
            allow_unsafe_triggers or bool(node.payload.get("allow_unsafe_triggers")),
        )
    except ValueError as error:
        raise ValidationError(str(error)) from error
