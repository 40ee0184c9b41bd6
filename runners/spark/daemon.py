"""Spark's Python daemon (``pyspark.daemon``) in the sessions panes starts, with two changes to
its workers:

- no trace for every task Spark kills: a job that fails cancels its other running tasks, the
  JVM closes their workers' sockets, and each worker's last flush fails with a BrokenPipeError
  that the daemon prints. The driver already reports why the job ended.
- a reused worker's objects from imports are frozen (``gc.freeze``): the daemon runs a full
  ``gc.collect()`` after every task, which scans every object of the worker — a third of a
  second per task once a DoFn has imported Apache Beam, most of the worker's time on small
  tasks.
"""

import gc
import os
import sys

from pyspark import daemon

_worker = daemon.worker
_modules_when_frozen = 0


def _quiet_worker(sock, authenticated):
    """The daemon's worker loop: a socket the JVM closed ends the worker as the daemon would
    (exit status 1), without printing the trace; a task that imported modules leaves the
    worker's objects frozen."""
    try:
        code = _worker(sock, authenticated)
    except (BrokenPipeError, ConnectionResetError):
        os._exit(1)
    _freeze_after_imports()
    return code


def _freeze_after_imports() -> None:
    """After a task that imported modules, collects once and freezes what is alive: the
    modules and what they hold, which later collections then skip. Only then, so that a
    long-lived worker does not freeze the garbage of every task."""
    global _modules_when_frozen
    if len(sys.modules) != _modules_when_frozen:
        gc.collect()
        gc.freeze()
        _modules_when_frozen = len(sys.modules)


daemon.worker = _quiet_worker

if __name__ == "__main__":
    daemon.manager()
