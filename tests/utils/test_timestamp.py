"""Beam's Timestamp and Duration: panes' give what Apache Beam's give for the same operations
(arithmetic, comparisons with numbers, hashing, text, datetimes), checked against Beam itself."""

import datetime as dt
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panes.utils.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP, Duration, Timestamp

beam_timestamp = pytest.importorskip(
    "apache_beam.utils.timestamp", reason="compared with Apache Beam: pip install -e '.[beam]'"
)

# Times a datetime can hold (years 1..9999), in micros, and seconds as users write them.
micros = st.integers(-62_135_596_800 * 10**6, 253_402_300_799 * 10**6)
seconds = st.one_of(
    st.integers(-(10**9), 4 * 10**9),
    st.floats(-(10**9), 4 * 10**9, allow_nan=False).map(lambda s: round(s, 3)),
    st.floats(-100, 100, allow_nan=False),
)
spans = st.integers(-(10**12), 10**12)


def outcome(operation, *args):
    """What an operation gives as text, or the type of error it raises."""
    try:
        return repr(operation(*args))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as error:
        return type(error).__name__


def both(kind, *args, **kwargs):
    """The panes and the Beam object made alike."""
    return kind(*args, **kwargs), getattr(beam_timestamp, kind.__name__)(*args, **kwargs)


@settings(max_examples=300, deadline=None)
@given(seconds, micros)
def test_timestamps_are_made_and_shown_as_beams(given_seconds, given_micros):
    for ours, beams in [
        both(Timestamp, given_seconds),
        both(Timestamp, micros=given_micros),
        both(Timestamp, given_seconds, given_micros % 10**6),
    ]:
        assert ours.micros == beams.micros
        assert repr(ours) == repr(beams) and str(ours) == str(beams)
        assert (float(ours), int(ours), hash(ours)) == (float(beams), int(beams), hash(beams))
        assert (ours.seconds(), ours.subseconds()) == (beams.seconds(), beams.subseconds())
        assert repr(ours.predecessor()) == repr(beams.predecessor())
        assert ours.to_utc_datetime() == beams.to_utc_datetime()
        assert ours.to_utc_datetime(has_tz=True) == beams.to_utc_datetime(has_tz=True)
        assert ours.to_rfc3339() == beams.to_rfc3339()
        assert Timestamp.from_rfc3339(ours.to_rfc3339()) == ours


OPERATIONS = [
    operator.add,
    operator.sub,
    operator.mod,
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
]


@settings(max_examples=300, deadline=None)
@given(micros, spans, seconds, st.sampled_from(OPERATIONS))
def test_arithmetic_and_comparisons_are_beams(at, span, number, operation):
    """Between Timestamps, Durations and seconds, in either order."""
    ours_t, beams_t = both(Timestamp, micros=at)
    ours_d, beams_d = both(Duration, micros=span)
    for ours, beams in [
        ((ours_t, ours_d), (beams_t, beams_d)),
        ((ours_d, ours_t), (beams_d, beams_t)),
        ((ours_t, ours_t), (beams_t, beams_t)),
        ((ours_d, ours_d), (beams_d, beams_d)),
        ((ours_t, number), (beams_t, number)),
        ((number, ours_t), (number, beams_t)),
        ((ours_d, number), (beams_d, number)),
        ((number, ours_d), (number, beams_d)),
    ]:
        assert outcome(operation, *ours) == outcome(operation, *beams)
    assert outcome(operator.mul, ours_d, number) == outcome(operator.mul, beams_d, number)
    assert outcome(operator.neg, ours_d) == outcome(operator.neg, beams_d)
    assert (hash(ours_d), float(ours_d)) == (hash(beams_d), float(beams_d))


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        7,
        dt.datetime(2020, 3, 20, 3, 41, 0, 500, tzinfo=dt.timezone.utc),
        dt.datetime(2020, 3, 20, 3, 41),
        "2020-03-20",
        None,
    ],
)
def test_of_takes_and_refuses_what_beams_does(value):
    assert outcome(Timestamp.of, value) == outcome(beam_timestamp.Timestamp.of, value)
    if not isinstance(value, (dt.datetime, str)):
        assert outcome(Duration.of, value) == outcome(beam_timestamp.Duration.of, value)


@pytest.mark.parametrize(
    "text",
    [
        "2020-03-20T03:41:00Z",
        "2020-03-20T03:41:00.5+01:00",
        "1969-12-31T23:59:59.999999-08:30",
        "2020-03-20t03:41:00z",
    ],
)
def test_rfc3339_is_read_as_beam_reads_it(text):
    assert Timestamp.from_rfc3339(text).micros == beam_timestamp.Timestamp.from_rfc3339(text).micros


def test_the_ends_of_time_are_beams():
    assert (MIN_TIMESTAMP.micros, MAX_TIMESTAMP.micros) == (
        beam_timestamp.MIN_TIMESTAMP.micros,
        beam_timestamp.MAX_TIMESTAMP.micros,
    )
    assert repr(MIN_TIMESTAMP) == repr(beam_timestamp.MIN_TIMESTAMP)


def test_what_panes_cannot_hold_is_refused_by_name():
    with pytest.raises(ValueError, match="microseconds"):
        Timestamp(1, 5, precision=9)
    with pytest.raises(ValueError, match="microseconds"):
        Timestamp.from_rfc3339("2020-03-20T03:41:00.123456789Z")
    with pytest.raises(ValueError, match="Could not parse"):
        Timestamp.from_rfc3339("yesterday")
    with pytest.raises(TypeError, match="as seconds"):
        Timestamp("5")
