"""Spark's Python daemon (``pyspark.daemon``) in the sessions panes starts, with two changes to
its workers, and two to how it starts them:

- no trace for every task Spark kills: a job that fails cancels its other running tasks, the
  JVM closes their workers' sockets, and each worker's last flush fails with a BrokenPipeError
  that the daemon prints. The driver already reports why the job ended.
- a reused worker's objects from imports are frozen (``gc.freeze``): the daemon runs a full
  ``gc.collect()`` after every task, which scans every object of the worker — a third of a
  second per task once a DoFn has imported Apache Beam, most of the worker's time on small
  tasks.

- before it imports anything of PySpark, it takes pyspark and py4j from the installed
  packages, not from the zips of them that Spark puts first on its workers' path, when those
  zips are the installed pyspark's own (a pip install, whose package is ``SPARK_HOME``): the
  same files, but a zip's modules are compiled again in every worker (half a second of CPU for
  ``pyspark.sql``), the package's come compiled;
- it imports what nearly every task imports (``PRELOADED``) before it forks any worker, so
  each worker starts with them. Profiled on the streaming benchmark at 1,000 keys, the
  workers' CPU samples fell by a third, most of them imports.
"""

import contextlib
import importlib
import importlib.machinery
import os
import re
import sys

# Spark's Arrow data path (pyarrow, and pandas, which it imports), PySpark's SQL types, panes.
PRELOADED = ("pyarrow", "pandas", "pyspark.sql", "panes")
_ZIPPED = re.compile(r"(pyspark|py4j-[\d.]+-src)\.zip\Z")


def _installed_pyspark_first() -> None:
    zips = [path for path in sys.path if _ZIPPED.match(os.path.basename(path))]
    if not zips:
        return
    rest = [path for path in sys.path if path not in zips]
    spec = importlib.machinery.PathFinder.find_spec("pyspark", rest)
    if spec is None or not spec.submodule_search_locations:
        return
    own = os.path.join(spec.submodule_search_locations[0], "python", "lib")
    if all(os.path.dirname(path) == own for path in zips):
        sys.path[:] = rest + zips


_installed_pyspark_first()

from pyspark import daemon  # noqa: E402

from panes.runners.collector import freeze_alive  # noqa: E402

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
        freeze_alive()
        _modules_when_frozen = len(sys.modules)


def _preload() -> None:
    """Imports what nearly every task of a panes pipeline imports, once, before the daemon
    forks its workers: each worker starts with them instead of importing them again."""
    for name in PRELOADED:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _freeze_after_imports()


daemon.worker = _quiet_worker

if __name__ == "__main__":
    _preload()
    daemon.manager()
