"""Carries a user function's error from a Spark worker to the driver as a UserCodeError.

A worker's exception reaches the driver as text inside a JVM error. The worker wraps the
UserCodeError's label, element and cause between markers, with the log records its task's
user code wrote (``worker_logs``: a failed task reports no metrics, and they often say why);
the driver finds them, passes the records on and raises the same UserCodeError a direct run
would, instead of a JVM stack trace.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import logging
import pickle
import re

from panes.errors import RunnerError, UserCodeError
from panes.runners.collector import cycle_collection_paused
from panes.runners.spark import worker_logs

_MARK = "@@panes-user-code-error@@"
_PATTERN = re.compile(re.escape(_MARK) + r"([A-Za-z0-9+/=]+)" + re.escape(_MARK))


class TransportedError(Exception):
    """Raised in a worker; its message holds the pickled UserCodeError parts."""


def _portable(value):
    try:
        pickle.dumps(value)
        return value
    except Exception:
        return repr(value)


def _encode(error: UserCodeError) -> str:
    cause = error.cause
    try:
        pickle.loads(pickle.dumps(cause))
    except Exception:
        cause = RuntimeError(f"{type(cause).__name__}: {cause}")
    payload = pickle.dumps(
        (error.label, _portable(error.element), cause, error.location, worker_logs.taken())
    )
    return _MARK + base64.b64encode(payload).decode() + _MARK


def transported(error: UserCodeError) -> str:
    """``error`` as text that ``surfaced_errors`` raises again as itself, wherever the text
    ends up in a Spark failure (a worker's exception, or a Spark SQL ``raise_error``)."""
    return _encode(error)


def worker_function(fn):
    """Wraps a function Spark runs on workers so UserCodeErrors survive the trip."""

    @functools.wraps(fn)
    def wrapper(*args):
        try:
            return fn(*args)
        except UserCodeError as error:
            raise TransportedError(_encode(error)) from None

    return wrapper


def worker_generator(fn):
    """``worker_function`` for a partition function that yields; the partition is processed
    with the cycle collector paused."""

    @functools.wraps(fn)
    def wrapper(*args):
        try:
            with cycle_collection_paused():
                yield from fn(*args)
        except UserCodeError as error:
            raise TransportedError(_encode(error)) from None

    return wrapper


@contextlib.contextmanager
def surfaced_errors(step: str):
    """Around a Spark action: a worker's UserCodeError comes back as itself; any other failure
    as a RunnerError that names the step."""
    try:
        yield
    except UserCodeError:
        raise
    except Exception as error:
        transported = _transported(error)
        if transported:
            user_error, logs = transported
            worker_logs.emit([logs])
            raise user_error from None
        raise RunnerError(f"Spark failed while running '{step}': {error}") from error


def failure_summary(error) -> str:
    """A Spark failure in one line: the user's error when a worker sent one, else the first
    line of Spark's."""
    transported = _transported(error)
    if transported:
        return str(transported[0])
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


# The JVM exceptions Spark takes for a stop of the query when a Python callback fails with one.
_INTERRUPTIONS = (
    "java.lang.InterruptedException",
    "java.io.InterruptedIOException",
    "java.nio.channels.ClosedByInterruptException",
)


class StoppedMidBatch(Exception):
    """A stop of the query interrupted a micro-batch's callback, its job with it."""


def stopped_mid_batch(error) -> StoppedMidBatch | None:
    """The short error a ``foreachBatch`` callback fails with when ``error``, met while the
    query is being stopped, is the stop's interruption; or None. Spark tells a stop from a
    failure by reading the callback's error with a regular expression that recurses once per
    character: a whole JVM trace overflows the JVM's stack, and the stream's thread dies
    printing a thousand lines."""
    text = str(error)
    name = next((name for name in _INTERRUPTIONS if name in text), None)
    if name is None:
        return None
    return StoppedMidBatch(
        f"py4j.protocol.Py4JJavaError: An error occurred while calling the micro-batch's job.\n"
        f": {name}"
    )


def reported_by_the_query(error):
    """Marks ``error``, raised by panes' ``foreachBatch`` callback, as one the query's failure
    reports in a line of panes' (``failure_summary``): py4j's record of it with its trace is
    for DEBUG (``ReportedByTheQuery``)."""
    error.panes_reported = True
    return error


class ReportedByTheQuery(logging.Filter):
    """Moves to DEBUG py4j's record of an exception that panes' ``foreachBatch`` callback
    raised, when it is a failure of Spark's (a JVM error, or a worker's, the user's error
    inside) or a stop: panes reports it in one line. A callback of the user's, and panes' own
    bugs (a Python error), keep their trace at ERROR."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if getattr(error, "panes_reported", False) and isinstance(error, _spark_failures()):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def _spark_failures() -> tuple:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    return (CapturedException, Py4JJavaError, TransportedError, StoppedMidBatch)


def _transported(error):
    """The UserCodeError a worker sent inside ``error``'s text, and its task's log records;
    None when there is none."""
    match = _PATTERN.search(str(error))
    if not match:
        return None
    label, element, cause, location, logs = pickle.loads(base64.b64decode(match.group(1)))
    return UserCodeError(label, element, cause, location), logs
