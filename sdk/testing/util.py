"""assert_that and its matchers, as Beam's ``apache_beam.testing.util``; an assertion is
checked against the run's captured output when the pipeline has run."""

from __future__ import annotations

import glob
import io
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from panes.testing.capture import Capture, Materialized, _ids
from panes.window import PANE_NO_FIRING


class BeamAssertException(AssertionError):
    """An ``assert_that`` did not hold."""


class TestWindowedValue(NamedTuple):
    """What a matcher sees of each element with ``reify_windows=True``."""

    value: Any
    timestamp: Any
    windows: list
    pane_info: Any = PANE_NO_FIRING


TestWindowedValue.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class


def equal_to(expected, equals_fn=None):
    """Matcher: the actual values equal ``expected`` as multisets; order does not matter, also
    inside nested lists. ``equals_fn(expected, actual)`` compares elements instead of ``==``."""
    expected = list(expected)

    def match(actual):
        actual = list(actual)
        if equals_fn is None:
            if _multiset(actual) == _multiset(expected):
                return
            # What hashes apart may still be equal (a Timestamp and its seconds): Beam
            # compares with ==.
            missing, unexpected = _diff_by(_diff(expected, actual), _diff(actual, expected), _equal)
        else:
            missing, unexpected = _diff_by(expected, actual, equals_fn)
        if not missing and not unexpected:
            return
        message = f"Failed assert: {expected!r} == {actual!r}"
        if unexpected:
            message += f", unexpected elements {unexpected!r}"
        if missing:
            message += f", missing elements {missing!r}"
        raise BeamAssertException(message)

    return match


def is_empty():
    def match(actual):
        actual = list(actual)
        if actual:
            raise BeamAssertException(f"Failed assert: [] == {actual!r}")

    return match


def is_not_empty():
    def match(actual):
        if not list(actual):
            raise BeamAssertException("Failed assert: pcol is empty")

    return match


def contains_in_any_order(iterable):
    """An object equal to any iterable with the same items, in any order."""

    class InAnyOrder:
        def __init__(self, items):
            self._counter = Counter(items)

        def __eq__(self, other):
            return self._counter == Counter(other)

        def __hash__(self):
            return hash(frozenset(self._counter.items()))

        def __repr__(self):
            return f"InAnyOrder({self._counter})"

    return InAnyOrder(iterable)


def _multiset(values) -> Counter:
    return Counter(_hashable(v) for v in values)


def _hashable(value):
    if isinstance(value, list):
        return ("__list__", tuple(sorted(map(_hashable, value), key=repr)))
    if isinstance(value, tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return ("__dict__", tuple(sorted(((k, _hashable(v)) for k, v in value.items()), key=repr)))
    if isinstance(value, set):
        return ("__set__", tuple(sorted(map(_hashable, value), key=repr)))
    return value


def _equal(expected, actual) -> bool:
    return _hashable(expected) == _hashable(actual)


def _diff(left, right) -> list:
    remaining = _multiset(right)
    missing = []
    for value in left:
        key = _hashable(value)
        if remaining[key]:
            remaining[key] -= 1
        else:
            missing.append(value)
    return missing


def _diff_by(expected, actual, equals_fn) -> tuple[list, list]:
    """(missing, unexpected) when elements are matched pairwise by ``equals_fn``."""
    missing, unexpected = list(expected), []
    for element in actual:
        index = next((i for i, e in enumerate(missing) if equals_fn(e, element)), None)
        if index is None:
            unexpected.append(element)
        else:
            missing.pop(index)
    return missing, unexpected


def assert_that(
    actual,
    matcher,
    label: str = "assert_that",
    reify_windows: bool = False,
    use_global_window: bool = True,
):
    """Checks ``matcher(values)`` once the pipeline has run; a label already in use gets a
    number (``assert_that_2``), as in Beam. With ``reify_windows`` the matcher sees a
    ``TestWindowedValue`` per element and window; without ``use_global_window`` it is called
    once per window with ``(values, window)``."""
    pipeline = actual.pipeline
    if pipeline.result is not None:
        raise RuntimeError(
            "assert_that must be used within a Pipeline context, before the pipeline runs: "
            "move the assert_that call into the `with Pipeline() as p:` block"
        )
    if label in pipeline.applied_labels:
        index = 2
        while f"{label}_{index}" in pipeline.applied_labels:
            index += 1
        label = f"{label}_{index}"
    handle = Materialized(f"assert-{next(_ids)}")
    actual | label >> Capture(handle)

    def check(result):
        handle._fill(result)
        values = [wv.value for wv in handle.windowed_values]
        if reify_windows:
            values = [
                TestWindowedValue(wv.value, wv.timestamp, [window], wv.pane_info)
                for wv in handle.windowed_values
                for window in wv.windows
            ]
        if use_global_window:
            matcher(values)
            return
        for window, in_window in _by_window(handle.windowed_values, values).items():
            matcher((in_window, window))

    pipeline.post_run_checks.append(check)


def _by_window(windowed_values, values) -> dict:
    by_window: dict = {}
    for wv, value in zip(windowed_values, values):
        for window in wv.windows:
            by_window.setdefault(window, []).append(value)
    return by_window


def open_shards(glob_pattern: str, mode: str = "rt", encoding: str = "utf-8"):
    """The concatenated contents of the files ``glob_pattern`` matches, as an open stream."""
    data = b"".join(Path(path).read_bytes() for path in sorted(glob.glob(glob_pattern)))
    return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode(encoding))
