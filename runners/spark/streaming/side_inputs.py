"""Side inputs under streaming: a ParDo that takes side inputs runs in the tail (``tail``).

The tail keeps the elements of its side collections. The ParDo finishes a step once every side
window that the step's elements read is complete: the side collection's watermark has passed
the window's garbage-collection time (its end plus allowed lateness), after which no pane of it
is to come. Until then the ParDo, and the tail nodes after it, wait at that step; the elements
then see what the direct runner shows them — every element of the side window — and what
follows sees them at their own step, as on the direct runner.
"""

from __future__ import annotations

from operator import itemgetter

from panes.runners.fusion import Chunk
from panes.transforms.side_inputs import SideInputResolver, side_window
from panes.window import windowed_value
from panes.windowing import window_fn_kinds
from panes.windowing.engine import garbage_collection_time


class SideInputParDo:
    """A ParDo with side inputs, as the tail runs it."""

    def __init__(self, ir, node):
        self.node, self.label, self.specs = node, node.id, node.side_inputs
        windowings = [ir.pcollections[spec.pcollection].windowing for spec in self.specs]
        self.window_fns = [window_fn_kinds.from_ir(w.window_fn) for w in windowings]
        self.lateness = [w.allowed_lateness for w in windowings]
        self._resolver = None
        self._sizes: tuple = ()  # how many records of each side collection it views

    def complete(self, records: list, watermarks: list) -> bool:
        """Whether the side collections' ``watermarks`` complete every side window that
        ``records`` read."""
        return all(
            watermark
            > garbage_collection_time(side_window(fn, window).max_timestamp_micros, lateness)
            for fn, lateness, watermark in zip(self.window_fns, self.lateness, watermarks)
            for record in records
            for window in record[3]
        )

    def run(self, records: list, sides: dict, router) -> None:
        """Pushes ``records`` through the ParDo into ``router``, with views of ``sides``."""
        if records:
            sizes = tuple(len(sides.get(spec.pcollection, ())) for spec in self.specs)
            if self._resolver is None or sizes != self._sizes:  # side collections only grow
                self._resolver, self._sizes = self._views(sides), sizes
            router.push_through(self.node, Chunk(*map(list, zip(*records))), self.resolve)

    def resolve(self, main_window, args, kwargs):
        """The DoFn's arguments with the views of ``main_window``'s side windows."""
        return self._resolver(main_window, args, kwargs)

    def _views(self, sides: dict) -> SideInputResolver:
        values = [
            [
                windowed_value(record[1:])
                for record in sorted(sides.get(spec.pcollection, ()), key=itemgetter(0))
            ]
            for spec in self.specs
        ]
        return SideInputResolver(self.label, self.specs, values, self.window_fns)
