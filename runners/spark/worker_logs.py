"""Log records that user code writes with Python's ``logging`` on a Spark worker, brought to
the driver, as Beam's portable runners bring an SDK harness's records to the runner (the Fn
API logging service).

While a partition loop runs user code (``captured``), a handler on the worker's root logger
keeps the records at the levels of Beam's ``--default_sdk_harness_log_level`` (INFO unless
set) and ``--sdk_harness_log_level_overrides`` (named loggers'): a task's first
``RECORDS_PER_TASK`` and a count of the rest, so that a DoFn logging every element cannot
flood the driver. They leave the task with its metrics report (``panes.runners.spark.metrics``,
a streaming micro-batch's metrics row) or its error (``panes.runners.spark.errors``), and the
driver hands them to its own loggers of the same names (``emit``), where its logging
configuration decides what is shown.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
from operator import itemgetter
from typing import NamedTuple

from panes.errors import PipelineConstructionError
from panes.metrics.execution import current_scope

RECORDS_PER_TASK = 100
MESSAGE_CHARACTERS = 10_000  # of a record's message, and of its traceback
# The Spark local property that carries the levels from the driver to its tasks.
LEVELS_PROPERTY = "panes.worker_log_levels"
_SCALARS = (str, int, float, bool, type(None))
_FORMATTER = logging.Formatter()


class WorkerLogs(NamedTuple):
    """Records of one task as dicts of ``LogRecord`` attributes, and of the records past the
    cap, ``{logger name: (how many, the highest level among them)}``."""

    records: list
    dropped: dict


def worker_log_levels(options) -> dict:
    """The levels a run's workers keep records at, ``{logger name: level}`` (``""``: the
    root logger), from Beam's options; an unknown level is refused naming the option."""
    levels = {"": _level("--default_sdk_harness_log_level", options.default_sdk_harness_log_level)}
    for name, level in (options.sdk_harness_log_level_overrides or {}).items():
        levels[name] = _level(f"--sdk_harness_log_level_overrides ({name!r})", level)
    return levels


def _level(option: str, value) -> int:
    """A level as Beam takes it: a number, or the name of one of ``logging``'s levels."""
    if value is None:
        return logging.INFO
    if isinstance(value, int) or (isinstance(value, str) and value.isdecimal()):
        return int(value)
    level = getattr(logging, str(value), None)
    if not isinstance(level, int) or str(value) != str(value).upper():
        raise PipelineConstructionError(
            f"{option} takes a logging level (DEBUG, INFO, WARNING, ERROR, CRITICAL, or a "
            f"number); got {value!r}"
        )
    return level


def ship_levels(spark_context, levels: dict) -> None:
    """On the driver: the tasks of jobs this thread starts (and streaming queries it starts)
    keep records at ``levels``."""
    spark_context.setLocalProperty(LEVELS_PROPERTY, json.dumps(levels))


class _Capture(logging.Handler):
    """The records of one task attempt (``attempt``): its first ``RECORDS_PER_TASK``, and a
    count of the rest; ``levels`` are the loggers' levels while it captures."""

    def __init__(self, attempt, levels: dict):
        super().__init__()
        self.attempt, self.levels, self.depth = attempt, levels, 0
        self.records: list = []
        self.kept = 0
        self.dropped: dict = {}
        self.saved: dict = {}  # logger name -> its level before the capture

    def emit(self, record: logging.LogRecord) -> None:
        if self.kept >= RECORDS_PER_TASK:
            count, level = self.dropped.get(record.name, (0, logging.NOTSET))
            self.dropped[record.name] = (count + 1, max(level, record.levelno))
            return
        self.kept += 1
        self.records.append(_portable(record))

    def take(self) -> WorkerLogs | None:
        self.acquire()  # records may come from the user's threads
        try:
            if not self.records and not self.dropped:
                return None
            logs = WorkerLogs(self.records, self.dropped)
            self.records, self.dropped = [], {}
        finally:
            self.release()
        return logs

    def install(self) -> None:
        for name, level in self.levels.items():
            logger = logging.getLogger(name)
            self.saved[name] = logger.level
            logger.setLevel(level)
        logging.getLogger().addHandler(self)

    def uninstall(self) -> None:
        logging.getLogger().removeHandler(self)
        for name, level in self.saved.items():
            logging.getLogger(name).setLevel(level)


_capture: _Capture | None = None  # in a worker: the capture of its current (or last) task


@contextlib.contextmanager
def captured():
    """Around a partition loop's user code, on a worker: its log records are kept for the
    driver. Loops of one task (fused, one pulling from another) share one capture."""
    capture = _task_capture()
    if capture.depth == 0:
        capture.install()
    capture.depth += 1
    try:
        yield
    finally:
        capture.depth -= 1
        if capture.depth == 0:
            capture.uninstall()


def _task_capture() -> _Capture:
    """The current task's capture; a new one when the worker has moved on to another task
    (a loop that Spark's ``take`` left unfinished no longer captures)."""
    global _capture
    from pyspark import TaskContext

    task = TaskContext.get()
    attempt = task.taskAttemptId() if task is not None else None
    if _capture is None or _capture.attempt != attempt:
        if _capture is not None and _capture.depth:
            _capture.uninstall()
        shipped = task.getLocalProperty(LEVELS_PROPERTY) if task is not None else None
        levels = json.loads(shipped) if shipped else {"": logging.INFO}
        _capture = _Capture(attempt, levels)
    return _capture


def taken() -> WorkerLogs | None:
    """On a worker: the records captured in this task since the last call, to ship now."""
    return _capture.take() if _capture is not None else None


def _portable(record: logging.LogRecord) -> dict:
    """``record``'s attributes as plain values: the message formatted, an exception as its
    traceback's text, any other object as its ``repr``; marked with the worker and the
    transform whose code wrote it (``panes_worker``, ``panes_transform``)."""
    fields = {
        name: value if isinstance(value, _SCALARS) else repr(value)
        for name, value in vars(record).items()
        if name != "relativeCreated"  # the driver's own, for its formatters
    }
    try:
        message = record.getMessage()
    except Exception:
        message = f"failed to format {record.msg!r} with {record.args!r}"
    trace = record.exc_text
    if record.exc_info and not trace:
        trace = _FORMATTER.formatException(record.exc_info)
    fields.update(msg=_cut(message), args=None, exc_info=None, exc_text=trace and _cut(trace))
    scope = current_scope()
    fields["panes_worker"] = f"{socket.gethostname()}:{record.process}"
    fields["panes_transform"] = scope[1] if scope is not None else None
    return fields


def _cut(text: str) -> str:
    if len(text) <= MESSAGE_CHARACTERS:
        return text
    return f"{text[:MESSAGE_CHARACTERS]} ... ({len(text) - MESSAGE_CHARACTERS} characters cut)"


def emit(shipped) -> None:
    """On the driver: the records of tasks' ``WorkerLogs`` (None: a task without any) through
    the loggers of their names, oldest first, each as its logger's level allows; then, for
    each logger with records dropped, one record of it saying how many, at the highest level
    among them (its ``panes_worker`` None)."""
    records: list = []
    dropped: dict = {}
    for logs in shipped:
        if logs is None:
            continue
        records += logs.records
        for name, (count, level) in logs.dropped.items():
            total, highest = dropped.get(name, (0, logging.NOTSET))
            dropped[name] = (total + count, max(highest, level))
    records.sort(key=itemgetter("created"))
    for fields in records:
        logger = logging.getLogger(fields["name"])
        if logger.isEnabledFor(fields["levelno"]):
            logger.handle(logging.makeLogRecord(fields))
    for name, (count, level) in dropped.items():
        logging.getLogger(name).log(
            level,
            "%d more log records dropped on Spark workers (a task sends the driver its first %d)",
            count,
            RECORDS_PER_TASK,
            extra={"panes_worker": None, "panes_transform": None},
        )
