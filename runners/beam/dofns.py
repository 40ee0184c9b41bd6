"""Beam's user code as panes runs it, on Spark's workers as in the direct runner.

``FastBeamFn`` puts a plain callable (Beam's ``Map``, ``FlatMap``, ``Filter`` function, or a
parameterless DoFn's ``process``) on panes' fused path, converting the few Beam values it may
return (``TimestampedValue``, ``WindowedValue``) as Beam's DoFnRunner would. ``BeamDoFn``
runs any other DoFn through Beam's own ``DoFnRunner``, a bundle at a time: parameters,
generators, tagged outputs, side inputs and lifecycle methods behave as Beam defines them,
with values, windows, timestamps and panes converted at the boundary.
"""

from __future__ import annotations

import collections

from apache_beam import pvalue as beam_pvalue
from apache_beam.options.value_provider import RuntimeValueProvider
from apache_beam.portability import common_urns
from apache_beam.runners import common as beam_common
from apache_beam.transforms import window as beam_window
from apache_beam.utils import windowed_value as beam_wv

from panes.pvalue import TaggedOutput
from panes.runners.beam.metrics import use_panes_metrics
from panes.runners.beam.values import (
    to_beam_pane,
    to_beam_window,
    to_panes_window,
    to_panes_windowed_value,
)
from panes.transforms.dofn import CallableWrapperDoFn, DoFn
from panes.window import GLOBAL_WINDOW, PANE_NO_FIRING, windowed_value

BEAM_SPECIAL = frozenset(
    {beam_window.TimestampedValue, beam_wv.WindowedValue, beam_pvalue.TaggedOutput}
)
_MULTIMAP = common_urns.side_inputs.MULTIMAP.urn


class FastBeamFn(CallableWrapperDoFn):
    """A Beam callable in panes' ``mode`` (``map``, ``flat_map`` or ``filter``), run unwrapped:
    the runner converts the Beam values it returns (``convert_output``). ``window_fn`` is the
    input's Beam window function: a ``TimestampedValue`` output is assigned its windows, as
    Beam assigns them. ``dofn``: the DoFn whose ``process`` ``fn`` is, set up and torn down
    with it; what it returns is checked as Beam checks it."""

    foreign_outputs = BEAM_SPECIAL

    def __init__(self, fn, mode: str, label: str, window_fn=None, dofn=None):
        super().__init__(_checked(fn) if dofn is not None else fn, mode, label)
        self.dofn = dofn
        self._convert = converter(window_fn)

    def convert_output(self, item):
        return self._convert(item)

    def setup(self):
        prepare_process()
        if self.dofn is not None:
            self.dofn.setup()

    def teardown(self):
        if self.dofn is not None:
            self.dofn.teardown()


def prepare_process() -> None:
    """What Beam's code expects of the process (a Spark worker, or the driver) that runs it:
    its metrics reported (to panes'), and runtime options as Beam's DirectRunner sets them
    (none, so that a ``RuntimeValueProvider`` gives its default)."""
    use_panes_metrics()
    if RuntimeValueProvider.runtime_options is None:
        RuntimeValueProvider.set_runtime_options({})


def _checked(process):
    """A DoFn's ``process`` that may not return a string, bytes or a dict, as Beam checks."""

    def checked(value, *args, **kwargs):
        items = process(value, *args, **kwargs)
        if isinstance(items, (str, bytes, dict)):
            raise TypeError(
                f"Returning a {type(items).__name__} from a ParDo or FlatMap is not "
                f"allowed. Please use list({items!r}) if you really want this behavior."
            )
        return items

    return checked


def converter(window_fn):
    """Converts Beam's special outputs: a ``TimestampedValue`` gets the windows ``window_fn``
    assigns at its timestamp (Beam's DoFnRunner reassigns them) and no pane."""
    is_global = window_fn is None or isinstance(window_fn, beam_window.GlobalWindows)

    def convert(item):
        kind = type(item)
        if kind is beam_window.TimestampedValue:
            micros = item.timestamp.micros
            if is_global:
                windows = (GLOBAL_WINDOW,)
            else:
                context = beam_window.WindowFn.AssignContext(item.timestamp, item.value)
                windows = tuple(to_panes_window(w) for w in window_fn.assign(context))
            return windowed_value((item.value, micros, windows, PANE_NO_FIRING))
        if kind is beam_wv.WindowedValue:
            return to_panes_windowed_value(item)
        return TaggedOutput(
            item.tag, convert(item.value) if type(item.value) in BEAM_SPECIAL else item.value
        )

    return convert


class BeamDoFn(DoFn):
    """A Beam DoFn run by Beam's ``DoFnRunner``. ``tags`` maps Beam's output tags (None: the
    main output) to panes'; outputs to other tags are dropped, as Beam's DirectRunner drops
    them. ``side_inputs``: Beam's ``SideInputData`` of each side input, whose values arrive
    as ``side_<i>`` (every element with its window, in the global window), so that Beam's own
    window mapping and view functions apply. ``sized_restrictions``: the input holds a
    splittable DoFn's elements with their restrictions (``panes.runners.beam.splittable``)."""

    def __init__(
        self,
        label: str,
        dofn,
        args,
        kwargs,
        side_inputs,
        windowing,
        tags: dict,
        sized_restrictions: bool = False,
    ):
        self.label, self.dofn, self.args, self.kwargs = label, dofn, tuple(args), dict(kwargs)
        self.side_inputs, self.windowing, self.tags = list(side_inputs), windowing, tags
        self.sized_restrictions = sized_restrictions

    def __getstate__(self):
        return {name: value for name, value in vars(self).items() if not name.startswith("_")}

    def setup(self):
        prepare_process()
        self._outputs: list = []
        self._sides = [_SideInput(data) for data in self.side_inputs]
        self._runner = beam_common.DoFnRunner(
            self.dofn,
            self.args,
            self.kwargs,
            self._sides,
            self.windowing,
            tagged_receivers=_Receivers(self._outputs, self.tags),
            step_name=self.label,
        )
        self._runner.setup()
        self._started = False

    def start_bundle(self):
        """Beam's bundle starts with its first element: a runner's empty bundle (a Spark
        partition with no elements) is no bundle to Beam."""

    def process(
        self,
        element,
        timestamp=DoFn.TimestampParam,
        window=DoFn.WindowParam,
        pane=DoFn.PaneInfoParam,
        **side_values,
    ):
        if not self._started:
            self._start()
        for index, side in enumerate(self._sides):
            side.take(side_values[f"side_{index}"])
        wv = beam_wv.create(element, timestamp.micros, [to_beam_window(window)], to_beam_pane(pane))
        if self.sized_restrictions:
            residuals = list(self._runner.process_with_sized_restriction(wv) or ())
            while residuals:  # a restriction deferred: resumed at once, its bundle going on
                residual = residuals.pop()
                residuals += (
                    self._runner.process_with_sized_restriction(residual.residual_value) or ()
                )
        else:
            self._runner.process(wv)
        return self._drained()

    def finish_bundle(self):
        if not self._started:
            return []
        self._started = False
        self._runner.finish()
        return self._drained()

    def teardown(self):
        self._runner.teardown()

    def _start(self) -> None:
        self._started = True
        self._runner.start()

    def _drained(self) -> list:
        outputs = [
            to_panes_windowed_value(wv)
            if tag is None
            else TaggedOutput(tag, to_panes_windowed_value(wv))
            for tag, wv in self._outputs
        ]
        self._outputs.clear()
        return outputs

    def default_label(self) -> str:
        return type(self.dofn).__name__


class _Receiver(beam_common.Receiver):
    """Collects a Beam output tag's values as ``(panes tag or None for the main output, value)``."""

    def __init__(self, outputs: list, tag):
        self.outputs, self.tag = outputs, tag

    def receive(self, windowed_value):
        self.outputs.append((self.tag, windowed_value))


class _Dropped(beam_common.Receiver):
    def receive(self, windowed_value):
        pass


class _Receivers(dict):
    """Beam's receivers by tag; an undeclared tag's outputs are dropped."""

    def __init__(self, outputs: list, tags: dict):
        super().__init__(
            {
                beam_tag: _Receiver(outputs, None if beam_tag is None else panes_tag)
                for beam_tag, panes_tag in tags.items()
            }
        )

    def __missing__(self, tag):
        return _Dropped()


class _SideInput:
    """A side input as Beam's DoFnRunner reads it: the view for a main window, made by Beam's
    window mapping and view functions from the side input's values in the mapped window."""

    def __init__(self, data):
        self.data = data
        self._values = None
        self._by_window: dict = {}
        self._views: dict = {}

    def take(self, values) -> None:
        """``values``: the side input's ``(value, panes window)`` pairs (the same list object
        while they do not change)."""
        if values is self._values:
            return
        self._values, self._views = values, {}
        self._by_window = collections.defaultdict(list)
        for value, window in values:
            self._by_window[to_beam_window(window)].append(value)

    def is_globally_windowed(self) -> bool:
        return False  # the view is looked up per window, as the values come per element

    def __getitem__(self, main_window):
        side_window = self.data.window_mapping_fn(main_window)
        view = self._views.get(side_window, _MISSING)
        if view is _MISSING:
            raw = self._by_window.get(side_window, [])
            if self.data.access_pattern == _MULTIMAP:
                grouped = collections.defaultdict(list)
                for key, value in raw:
                    grouped[key].append(value)
                raw = grouped
            view = self._views[side_window] = self.data.view_fn(raw)
        return view


_MISSING = object()


class ByTag(DoFn):
    """A tagged TestStream's ``(Beam tag, value)`` elements, each to its tag's output
    (``tags``: Beam's tag to panes')."""

    def __init__(self, tags: dict):
        self.tags = tags

    def process(self, element):
        tag, value = element
        return [TaggedOutput(self.tags[tag], value)]


class ReifyWindows(DoFn):
    """Each element with its window, as a pair: how a side input's values reach ``BeamDoFn``."""

    def process(self, element, window=DoFn.WindowParam):
        return [(element, window)]
