"""Sessions merged as windows arrive end where Sessions' merge of all windows at once ends."""

from hypothesis import given, settings, strategies as st

from panes.window import IntervalWindow, MergeContext, merge_overlapping_intervals
from panes.windowing.session_slots import SessionSlots

windows = st.lists(st.tuples(st.integers(0, 60), st.integers(1, 8)), max_size=40).map(
    lambda pairs: [IntervalWindow(start, start + length) for start, length in pairs])


def _merged_at_once(windows: list) -> list:
    """Each final session with the windows it holds, by Sessions' own merge."""
    context = MergeContext(dict.fromkeys(windows))
    merge_overlapping_intervals(context)
    result_of = {source: result for sources, result in context.merges for source in sources}
    sessions: dict = {}
    for window in windows:
        sessions.setdefault(result_of.get(window, window), []).append(window)
    return sorted((session, sorted(members)) for session, members in sessions.items())


def _placed(sessions: SessionSlots, windows: list) -> None:
    """Places each window, its slot the list of windows it holds."""
    for window in windows:
        index = sessions.place(window.start, window.end, _merge_lists)
        sessions.slots[index] = (sessions.slots[index] or []) + [window]


def _merge_lists(slots: list) -> list:
    return [window for slot in slots for window in slot]


def _contents(sessions: SessionSlots) -> list:
    return [(IntervalWindow(start, end), sorted(slot))
            for start, end, slot in zip(sessions.starts, sessions.ends, sessions.slots)]


@settings(max_examples=300, deadline=None)
@given(windows, st.randoms(use_true_random=False), st.integers(0, 40))
def test_sessions_merged_on_arrival_match_merging_at_once(windows, random, split):
    """In any arrival order, and when two partial sets of sessions are joined."""
    shuffled = list(windows)
    random.shuffle(shuffled)
    whole, part, rest = SessionSlots(), SessionSlots(), SessionSlots()
    _placed(whole, shuffled)
    _placed(part, shuffled[:split])
    _placed(rest, shuffled[split:])
    part.merge_from(rest, _merge_lists)
    expected = _merged_at_once(windows)
    assert _contents(whole) == expected
    assert _contents(part) == expected
    assert all(end <= start for end, start in zip(whole.ends, whole.starts[1:]))


def test_a_bridging_window_joins_the_sessions_on_both_sides():
    sessions = SessionSlots()
    _placed(sessions, [IntervalWindow(0, 5), IntervalWindow(10, 15), IntervalWindow(20, 25),
                       IntervalWindow(4, 21)])
    assert _contents(sessions) == [(IntervalWindow(0, 25), sorted(
        [IntervalWindow(0, 5), IntervalWindow(10, 15), IntervalWindow(20, 25),
         IntervalWindow(4, 21)]))]


def test_touching_windows_stay_apart():
    """Sessions merge overlapping windows only: [0, 5) and [5, 10) share no instant."""
    sessions = SessionSlots()
    _placed(sessions, [IntervalWindow(5, 10), IntervalWindow(0, 5)])
    assert sessions.starts == [0, 5] and sessions.ends == [5, 10]
