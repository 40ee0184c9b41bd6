"""CPU time a Spark job spends, split by where it runs: the JVM (driver and, in local mode, the
executors), the Python processes running under it (Spark's worker daemon and its workers), the
JVM's children that ended (Spark's planning workers on the driver, Hadoop's ``chmod`` and
``readlink`` of the local file system: ``/proc`` counts them together), and this Python
process. Seconds of CPU add up over cores and vary less than a run's wall time on a shared
machine, so they say where a system's time goes.

Read from Linux's ``/proc``: elsewhere only this process's figure is given. A process counts
its ended children once it has reaped them, as Spark's daemon reaps its workers."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Cpu(NamedTuple):
    """Seconds of CPU, each None where ``/proc`` cannot say."""

    jvm: float | None
    python_workers: float | None
    jvm_children_ended: float | None
    driver_python: float

    def __sub__(self, earlier: Cpu) -> Cpu:
        return Cpu(*(_less(now, then) for now, then in zip(self, earlier)))


def cpu(spark) -> Cpu:
    """The CPU used so far by the session's JVM, the Python processes under it, the JVM's
    ended children, and this process."""
    driver = time.process_time()
    try:
        jvm = spark._jvm.java.lang.ProcessHandle.current().pid()
        own, ended = _times(jvm)
    except OSError:
        return Cpu(None, None, None, driver)
    if not Path(f"/proc/{jvm}/task/{jvm}/children").exists():  # a kernel without the list
        return Cpu(own, None, ended, driver)
    return Cpu(own, sum(map(_python_cpu, _descendants(jvm))), ended, driver)


def _times(pid: int) -> tuple:
    """A process's own CPU seconds and its reaped children's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = map(int, fields[11:15])
    return (utime + stime) / _TICKS, (cutime + cstime) / _TICKS


def _python_cpu(pid: int) -> float:
    """A Python process's CPU seconds with its reaped children's; 0 for another program, or a
    process that ended meanwhile (its parent counts it once reaped)."""
    try:
        if not Path(f"/proc/{pid}/comm").read_text().startswith("python"):
            return 0.0
        return sum(_times(pid))
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def _descendants(pid: int) -> list:
    """The processes under ``pid``, children before theirs."""
    found = [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in _read(task / "children").split()
    ]
    for child in list(found):
        try:
            found += _descendants(child)
        except (FileNotFoundError, ProcessLookupError):  # it ended meanwhile
            continue
    return found


def _read(path: Path) -> str:
    """A file of ``/proc``, empty if its thread ended meanwhile."""
    try:
        return path.read_text()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _less(now, then):
    return None if now is None or then is None else now - then
