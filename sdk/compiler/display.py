"""The IR as text a person reads: nodes in order, their inputs, payloads and output windowing,
window functions and triggers written as the API writes them."""

from __future__ import annotations

from panes.ir import io
from panes.ir.windowing import WindowFn
from panes.timestamp import MAX_MICROS, MICROS_PER_SECOND, MIN_MICROS
from panes.windowing import evicting, trigger_kinds, window_fn_kinds


def describe(ir) -> str:
    lines = [f"panes IR version {ir.version}", f"requires: {', '.join(ir.requirements)}", ""]
    for node in ir.nodes.values():
        inputs = f" <- {', '.join(node.inputs)}" if node.inputs else ""
        lines.append(f"{node.id} [{node.kind}]{inputs}")
        for side in node.side_inputs:
            lines.append(f"  side input {side.view}: {side.pcollection}")
        for name, value in node.payload.items():
            if value not in (None, (), {}, False):
                lines.append(f"  {name}: {_shown(value)}")
        for pcollection in node.outputs.values():
            lines.append(f"  -> {pcollection}: {windowing(ir.pcollections[pcollection].windowing)}")
    if ir.composites:
        lines += ["", "composites:"]
        lines += [f"  {c.id}: {', '.join(c.parts)}" for c in ir.composites]
    return "\n".join(lines)


def windowing(strategy) -> str:
    parts = [
        window_fn_kinds.display(strategy.window_fn),
        trigger_kinds.display(strategy.trigger),
        strategy.accumulation_mode.value,
        f"lateness {strategy.allowed_lateness / 1e6:g}s",
        strategy.timestamp_combiner.value,
    ]
    if strategy.evictor is not None:
        parts.append(repr(evicting.from_ir(strategy.evictor)))
    return ", ".join(parts)


def _shown(value) -> str:
    if isinstance(value, WindowFn):
        return window_fn_kinds.display(value)
    if isinstance(value, tuple) and value and isinstance(value[0], io.TestStreamEvent):
        return ", ".join(map(_event, value))
    return repr(value)


def _event(event) -> str:
    if isinstance(event, io.AddElements):
        return f"{len(event.timestamps)} elements"
    if isinstance(event, io.AdvanceWatermark):
        return f"watermark {_time(event.watermark)}"
    return f"processing time +{event.advance / 1e6:g}s"


def _time(micros: int) -> str:
    """A time in micros as seconds, or ``-inf`` / ``+inf``."""
    if micros <= MIN_MICROS:
        return "-inf"
    if micros >= MAX_MICROS:
        return "+inf"
    return f"{micros / MICROS_PER_SECOND:g}s"
