"""Small composite transforms over key-value pairs, as in Beam's ``transforms.util``."""

from __future__ import annotations

from panes.transforms.core import CombinePerKey, Map
from panes.transforms.ptransform import PTransform


def Keys(label="Keys"):  # noqa: N802 - Beam's name
    """The key of each ``(key, value)`` pair."""
    return label >> Map(lambda kv: kv[0])


def Values(label="Values"):  # noqa: N802
    """The value of each ``(key, value)`` pair."""
    return label >> Map(lambda kv: kv[1])


def KvSwap(label="KvSwap"):  # noqa: N802
    """``(value, key)`` for each ``(key, value)`` pair."""
    return label >> Map(lambda kv: (kv[1], kv[0]))


def WithKeys(key, label="WithKeys"):  # noqa: N802
    """``(key, element)`` pairs: ``key`` is a constant or a function of the element."""
    if callable(key):
        return label >> Map(lambda element: (key(element), element))
    return label >> Map(lambda element: (key, element))


class Distinct(PTransform):
    """Each distinct element once per window."""

    def expand(self, pcoll):
        return (pcoll
                | "PairWithNone" >> Map(lambda element: (element, None))
                | "OnePerElement" >> CombinePerKey(lambda values: None)
                | "Elements" >> Map(lambda kv: kv[0]))
