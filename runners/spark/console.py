"""The standard error of the JVM that a panes session starts, passed on line by line without
what PySpark's own Python processes print for every streaming query: the JVM copies their
output to its standard error as it is, past Spark's logging, so no log level hides it.

The JVM inherits a pipe as its standard error; a daemon thread of the driver reads it and
writes what it keeps to the driver's own standard error."""

from __future__ import annotations

import contextlib
import os
import re
import threading

# The state schema of a transformWithState operator is read on the driver by a Python process
# that prints five lines, each followed by an empty one, whenever a query starts.
_CHATTER = re.compile(rb"(Starting )?Streaming TransformWithStateInPandas Python worker\b")


@contextlib.contextmanager
def jvm_chatter_hidden():
    """Around the start of the JVM: its standard error leaves the chatter out."""
    read_end, write_end = os.pipe()
    driver_stderr = os.dup(2)
    os.dup2(write_end, 2)  # inherited by the JVM as its standard error
    try:
        yield
    finally:
        os.dup2(driver_stderr, 2)
        os.close(write_end)
    threading.Thread(
        target=_pass_on, args=(read_end, driver_stderr), name="panes JVM console", daemon=True
    ).start()


def _pass_on(read_end: int, out: int) -> None:
    """Copies lines from ``read_end`` to ``out`` until the JVM ends, less the chatter and the
    empty line after each."""
    after_chatter = False
    with os.fdopen(read_end, "rb", buffering=0) as source:
        for line in _lines(source):
            if _CHATTER.match(line):
                after_chatter = True
                continue
            if after_chatter and not line.strip():
                continue
            after_chatter = False
            with contextlib.suppress(OSError):  # the driver's stderr closed: keep draining
                os.write(out, line)


def _lines(source):
    """The lines of an unbuffered stream as they arrive (a partial line once it ends)."""
    pending = b""
    while chunk := source.read(65536):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line + b"\n"
    if pending:
        yield pending
