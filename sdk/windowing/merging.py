"""Window merging for merging window functions (Sessions, custom ``merge``): which windows of
one key merge into which (Beam's ``MergingActiveWindowSet``, simplified to its semantics).

The window function sees the key's active windows plus the bundle's new ones; closed windows
(whose trigger finished) are not active, so they never absorb new elements.
"""

from __future__ import annotations

from panes.window import MergeContext


def merge_windows(window_fn, active: list, new: list) -> list:
    """``(sources, result)`` for every merge ``window_fn`` decides over active + new windows;
    a result may itself be one of the sources."""
    candidates = list(dict.fromkeys([*active, *new]))
    context = MergeContext(candidates)
    window_fn.merge(context)
    return [(tuple(sources), result) for sources, result in context.merges if sources]
