"""Checks a windowing strategy before it runs: unsafe triggers (Beam's ``may_lose_data``) and
combinations the core cannot run."""

from __future__ import annotations

from panes import trigger as t
from panes.windowing.strategy import WindowingStrategy, effective_windowing


def may_finish(trigger, allowed_lateness: int) -> bool:
    """Whether ``trigger`` may finish, after which its window drops new data (Beam Python's
    ``DataLossReason.MAY_FINISH``). Flink-family triggers repeat and never finish."""
    if isinstance(trigger, t.PurgingTrigger):
        return may_finish(trigger.trigger, allowed_lateness)
    if isinstance(trigger, (t.FlinkTrigger, t.DefaultTrigger, t.Never, t.Repeatedly)):
        return False
    if isinstance(trigger, (t.AfterCount, t.AfterProcessingTime)):
        return True
    if isinstance(trigger, t.AfterWatermark):
        if allowed_lateness == 0:
            return False
        return trigger.late is None  # a late trigger is implicitly repeated
    if isinstance(trigger, t.AfterAny):
        return any(may_finish(sub, allowed_lateness) for sub in trigger.triggers)
    if isinstance(trigger, t.OrFinally):
        return any(may_finish(sub, allowed_lateness) for sub in (trigger.trigger, trigger.finally_))
    if isinstance(trigger, (t.AfterAll, t.AfterEach)):
        return all(may_finish(sub, allowed_lateness) for sub in trigger.triggers)
    raise TypeError(f"{trigger!r} is not a panes trigger")


def _contains(trigger, kind) -> bool:
    if isinstance(trigger, kind):
        return True
    children = []
    for name in ("early", "late", "underlying", "trigger", "finally_"):
        child = getattr(trigger, name, None)
        if isinstance(child, t.Trigger):
            children.append(child)
    children.extend(getattr(trigger, "triggers", ()))
    return any(_contains(child, kind) for child in children)


def validate_strategy(strategy: WindowingStrategy, transform_label: str,
                      allow_unsafe: bool = False) -> None:
    """Raises ``ValueError`` naming ``transform_label`` and the fix when ``strategy`` cannot
    run, or uses a trigger that may finish and silently drop data (unless ``allow_unsafe``)."""
    trigger = effective_windowing(strategy).trigger
    if not isinstance(trigger, t.Trigger):
        raise ValueError(f"{transform_label}: {trigger!r} is not a trigger; use one from "
                         f"panes.trigger, e.g. AfterWatermark(early=AfterCount(10))")
    if strategy.window_fn.is_merging() and _contains(trigger, t.DeltaTrigger):
        raise ValueError(
            f"{transform_label}: DeltaTrigger cannot be used with merging windows "
            f"({type(strategy.window_fn).__name__}); use a CountTrigger or a time trigger")
    if not allow_unsafe and may_finish(trigger, strategy.allowed_lateness.micros):
        raise ValueError(
            f"{transform_label}: unsafe trigger {trigger!r} may lose data (reason: MAY_FINISH): "
            f"once it finishes, its window drops all further data. Wrap it in Repeatedly(...), "
            f"give AfterWatermark a late trigger (late=AfterCount(1)), or pass "
            f"allow_unsafe_triggers=True to WindowInto (or the --allow_unsafe_triggers pipeline "
            f"option) to accept the data loss.")
