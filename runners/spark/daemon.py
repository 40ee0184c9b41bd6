"""Spark's Python daemon (``pyspark.daemon``) in the sessions panes starts, without the trace
it prints for every task Spark kills: a job that fails cancels its other running tasks, the
JVM closes their workers' sockets, and each worker's last flush fails with a BrokenPipeError
that the daemon prints. The driver already reports why the job ended."""

import os

from pyspark import daemon

_worker = daemon.worker


def _worker_of_a_task_that_may_be_killed(sock, authenticated):
    """The daemon's worker loop; a socket the JVM closed ends the worker as the daemon would
    (exit status 1), without printing the trace."""
    try:
        return _worker(sock, authenticated)
    except (BrokenPipeError, ConnectionResetError):
        os._exit(1)


daemon.worker = _worker_of_a_task_that_may_be_killed

if __name__ == "__main__":
    daemon.manager()
