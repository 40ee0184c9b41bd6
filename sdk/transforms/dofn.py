"""DoFn: user code run once per element, with lifecycle hooks and parameters by default value."""

from __future__ import annotations

from panes.transforms.userstate import StateParam, TimerParam


class _Param:
    """A sentinel default value that asks the runner to pass something to ``process``."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"DoFn.{self.name}"

    def __reduce__(self):
        # Unpickles to the one sentinel, so ``is`` checks hold in workers.
        return (_param, (self.name,))


def _param(name: str) -> _Param:
    return getattr(DoFn, name)


class DoFn:
    """Per-element processing. Hooks, in the order a runner calls them: ``setup`` once per
    instance, ``start_bundle`` before each bundle, ``process`` per element (and per window when
    it asks for ``WindowParam``, state or timers), ``finish_bundle`` after each bundle,
    ``teardown`` at the end; a stateful DoFn's ``@on_timer`` callbacks when its timers fire."""

    ElementParam = _Param("ElementParam")
    TimestampParam = _Param("TimestampParam")
    WindowParam = _Param("WindowParam")
    PaneInfoParam = _Param("PaneInfoParam")
    # Stateful DoFns (``panes.transforms.userstate``): the element's key, a state cell, a
    # timer, and in a timer callback the dynamic tag of the timer that fired.
    KeyParam = _Param("KeyParam")
    StateParam = StateParam
    TimerParam = TimerParam
    DynamicTimerTagParam = _Param("DynamicTimerTagParam")

    def setup(self):
        pass

    def start_bundle(self):
        pass

    def process(self, element, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement process()")

    def finish_bundle(self):
        pass

    def teardown(self):
        pass

    def default_label(self) -> str:
        return type(self).__name__


class CallableWrapperDoFn(DoFn):
    """Adapts a plain function for Map, FlatMap and Filter; ``label`` names the function the
    user gave (MapTuple wraps it)."""

    def __init__(self, fn, mode: str, label: str | None = None):
        from panes.transforms.ptransform import label_from_callable

        self.fn = fn
        self.mode = mode  # "map", "flat_map" or "filter"
        self.label = label or label_from_callable(fn)

    # Output types of another SDK (Beam's) that ``convert_output`` makes panes' own: the runner
    # converts them a chunk at a time, so the function runs unwrapped.
    foreign_outputs: frozenset = frozenset()

    def default_label(self) -> str:
        return self.label

    def convert_output(self, item):
        return item

    def process(self, element, *args, **kwargs):
        raise AssertionError("CallableWrapperDoFn is invoked by the DoFn runner directly")


class StructuredMapFn(CallableWrapperDoFn):
    """A Map whose function is data: subclasses are frozen dataclasses that build their
    per-element function in an ``fn`` property, so the IR holds their configuration (a row
    function of ``panes.ir.rows``, see ``panes.transforms.row_fns``), not a pickle, and a
    planner can read it. Runners run them exactly as a ``Map`` of that function."""

    mode = "map"

    def default_label(self) -> str:
        return type(self).__name__
