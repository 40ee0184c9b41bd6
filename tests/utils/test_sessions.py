"""Sessions merge every group of overlapping windows into their span — the connected parts of
the windows' union — whether all at once (``Sessions.merge``) or as windows arrive, in any
order and in parts joined later (``SessionSlots``, as batch groupings and Spark partitions
keep them)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from panes.utils.sessions import SessionSlots
from panes.window import IntervalWindow, MergeContext, Sessions, interval_window

windows = st.lists(st.tuples(st.integers(0, 60), st.integers(1, 8)), max_size=40).map(
    lambda pairs: [IntervalWindow(start, start + length) for start, length in pairs]
)


def _connected(windows: list) -> list:
    """The reference: windows joined while any two of different groups overlap, each group
    as ``(span, sorted members)``."""
    groups = [[window] for window in windows]
    joined = True
    while joined:
        joined = False
        for i, group in enumerate(groups):
            for other in groups[i + 1 :]:
                if any(a.intersects(b) for a in group for b in other):
                    group.extend(other)
                    groups.remove(other)
                    joined = True
                    break
            if joined:
                break
    return sorted(
        (IntervalWindow(min(w.start for w in group), max(w.end for w in group)), sorted(group))
        for group in groups
    )


def _placed(sessions: SessionSlots, windows: list) -> None:
    """Places each window, its slot the list of windows it holds."""
    for window in windows:
        index = sessions.place(window.start_micros, window.end_micros, _merge_lists)
        sessions.slots[index] = (sessions.slots[index] or []) + [window]


def _merge_lists(slots: list) -> list:
    return [window for slot in slots for window in slot]


def _contents(sessions: SessionSlots) -> list:
    return [
        (interval_window((start, end)), sorted(slot))
        for start, end, slot in zip(sessions.starts, sessions.ends, sessions.slots)
    ]


@settings(max_examples=300, deadline=None)
@given(windows, st.randoms(use_true_random=False), st.integers(0, 40))
def test_sessions_merged_on_arrival_are_the_connected_spans(windows, random, split):
    """In any arrival order, and when two partial sets of sessions are joined."""
    shuffled = list(windows)
    random.shuffle(shuffled)
    whole, part, rest = SessionSlots(), SessionSlots(), SessionSlots()
    _placed(whole, shuffled)
    _placed(part, shuffled[:split])
    _placed(rest, shuffled[split:])
    part.merge_from(rest, _merge_lists)
    expected = _connected(windows)
    assert _contents(whole) == expected
    assert _contents(part) == expected
    assert all(end <= start for end, start in zip(whole.ends, whole.starts[1:]))


@settings(max_examples=300, deadline=None)
@given(windows)
def test_sessions_merge_names_each_span_of_several_windows_once(windows):
    context = MergeContext(windows)
    Sessions(1).merge(context)
    assert sorted(context.merges) == sorted(
        (tuple(members), span) for span, members in _connected(windows) if len(members) > 1
    )


def test_a_bridging_window_joins_the_sessions_on_both_sides():
    sessions = SessionSlots()
    _placed(
        sessions,
        [
            IntervalWindow(0, 5),
            IntervalWindow(10, 15),
            IntervalWindow(20, 25),
            IntervalWindow(4, 21),
        ],
    )
    assert _contents(sessions) == [
        (
            IntervalWindow(0, 25),
            sorted(
                [
                    IntervalWindow(0, 5),
                    IntervalWindow(10, 15),
                    IntervalWindow(20, 25),
                    IntervalWindow(4, 21),
                ]
            ),
        )
    ]


def test_touching_windows_stay_apart():
    """Sessions merge overlapping windows only: [0, 5) and [5, 10) share no instant."""
    sessions = SessionSlots()
    _placed(sessions, [IntervalWindow(5, 10), IntervalWindow(0, 5)])
    assert sessions.starts == [0, 5_000_000] and sessions.ends == [5_000_000, 10_000_000]
