"""Positions: where an element sits in the event log, so Spark can restore the direct order.

A position is a flat tuple of non-negative ints that sorts like the direct runner's stream:
``(step, index, ...)`` for source elements, one more index per ParDo output, the input's index
after the step for Flatten, and for a grouping's output the step, then its key's first arrival
(prefix-free encoded), then its place among that key's outputs of the step.
"""

from __future__ import annotations

from operator import itemgetter

# finish_bundle outputs come after every element of their step (Spark's bundle is a partition).
FINISH = 2**63

# On streaming, a bundle's finish_bundle outputs sit at ``(step, FINISH, *bundle id, index)``; a
# bundle id starts with its kind, so that no two bundles of a step share positions: an ingest
# task (then its partition), a bucket call's panes (then the earliest first arrival of the keys
# that emitted), the bundle after a stateful DoFn's finish_bundle outputs of a bucket call (then
# the bucket), a tail node's step (then the node's rank in the tail). Those outputs themselves
# sit at ``(step, FINISH, BUCKET_FINISHED, bucket, index)``.
INGEST_TASK, BUCKET_PANES, BUCKET_FINISHED, AFTER_FINISHED, TAIL_STEP = range(5)


def nested(position: tuple) -> tuple:
    """``position`` embedded in another so that tuple order still holds: shift and terminate."""
    return tuple(component + 1 for component in position) + (0,)


def key_prefix(step: int, key_first: tuple) -> tuple:
    """What positions of a key's grouped outputs at ``step`` start with."""
    return (step, *nested(key_first))


def grouped(step: int, key_first: tuple, index: int) -> tuple:
    return (*key_prefix(step, key_first), index)


def flattened(position: tuple, input_index: int) -> tuple:
    return (position[0], input_index, *position[1:])


# The sort key of ``(position, ...)`` records.
by_position = itemgetter(0)
