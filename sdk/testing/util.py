"""assert_that and matchers, checked against the run's captured output."""

from __future__ import annotations

from collections import Counter

from panes.testing.capture import Capture, Materialized, _ids


class BeamAssertException(AssertionError):
    """An ``assert_that`` did not hold."""


def equal_to(expected):
    """Matcher: the actual values equal ``expected`` as multisets (order does not matter)."""
    expected = list(expected)

    def match(actual):
        if _multiset(actual) != _multiset(expected):
            missing = _diff(expected, actual)
            unexpected = _diff(actual, expected)
            raise BeamAssertException(
                f"Failed assert: {expected!r} == {actual!r}, "
                f"missing elements {missing!r}, unexpected elements {unexpected!r}")

    return match


def is_empty():
    def match(actual):
        if actual:
            raise BeamAssertException(f"Failed assert: expected no elements, got {actual!r}")

    return match


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


def assert_that(actual, matcher, label: str = "assert_that", reify_windows: bool = False):
    """Checks ``matcher(values)`` after the pipeline runs; with ``reify_windows`` the matcher
    sees ``(value, timestamp_micros, window)`` triples instead of values."""
    handle = Materialized(f"assert-{next(_ids)}")
    actual | label >> Capture(handle)

    def check(result):
        handle._fill(result)
        if reify_windows:
            matcher([(wv.value, wv.timestamp, window)
                     for wv in handle.windowed_values for window in wv.windows])
        else:
            matcher([wv.value for wv in handle.windowed_values])

    actual.pipeline.post_run_checks.append(check)
