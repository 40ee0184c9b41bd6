"""Checks a windowing strategy before it runs: unsafe triggers (Beam's ``may_lose_data``) and
combinations the engine cannot run."""

from __future__ import annotations

from panes.ir import triggers
from panes.ir.windowing import WindowingStrategy
from panes.windowing import trigger_kinds, window_fn_kinds
from panes.windowing.strategy import effective_windowing


def validate_strategy(
    strategy: WindowingStrategy, transform_label: str, allow_unsafe: bool = False
) -> None:
    """Raises ``ValueError`` naming ``transform_label`` and the fix when ``strategy`` cannot
    run, or uses a trigger that may finish and silently drop data (unless ``allow_unsafe``)."""
    trigger = effective_windowing(strategy).trigger
    window_fn = strategy.window_fn
    if window_fn_kinds.from_ir(window_fn).is_merging() and trigger_kinds.contains(
        trigger, triggers.DeltaTrigger
    ):
        raise ValueError(
            f"{transform_label}: DeltaTrigger cannot be used with merging windows "
            f"({window_fn_kinds.display(window_fn)}); use a CountTrigger or a time trigger"
        )
    if not allow_unsafe and trigger_kinds.may_finish(trigger, strategy.allowed_lateness):
        raise ValueError(
            f"{transform_label}: unsafe trigger {trigger_kinds.display(trigger)} may lose data "
            f"(reason: MAY_FINISH): once it finishes, its window drops all further data. Wrap "
            f"it in Repeatedly(...), give AfterWatermark a late trigger (late=AfterCount(1)), "
            f"or pass allow_unsafe_triggers=True to WindowInto (or the --allow_unsafe_triggers "
            f"pipeline option) to accept the data loss."
        )
