"""A real Spark standalone cluster on loopback, from the pip pyspark alone: a master and a
worker on free ports, started by the test and stopped (only the processes it started) after.
Drivers run as separate Python processes, so a test can kill them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


class StandaloneCluster:
    """``with StandaloneCluster(work_dir) as cluster:`` a master and one worker of ``cores``
    cores; ``cluster.url`` is the master URL, ``cluster.run_driver(script, ...)`` runs a
    driver script against it."""

    def __init__(self, work_dir: Path, cores: int = 2, memory: str = "2g"):
        self.work_dir, self.cores, self.memory = Path(work_dir), cores, memory
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "SPARK_HOME": str(SPARK_HOME),
            "PYSPARK_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_WORKER_DIR": str(self.work_dir),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent), *sys.path])),
        }
        self.processes: list = []

    def _spark_class(self, *args) -> subprocess.Popen:
        process = subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def __enter__(self) -> StandaloneCluster:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self._spark_class(
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--webui-port",
            str(free_port()),
        )
        _wait_for_port(self.port)
        self.worker = self._spark_class(
            "org.apache.spark.deploy.worker.Worker",
            self.url,
            "--host",
            "127.0.0.1",
            "--cores",
            str(self.cores),
            "--memory",
            self.memory,
            "--webui-port",
            str(free_port()),
            "--work-dir",
            str(self.work_dir),
        )
        return self

    def __exit__(self, *exc) -> None:
        for process in reversed(self.processes):
            # Each was started in its own process group: the group holds what it launched
            # (the worker's executors), and nothing else.
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)

    def run_python(self, *args, timeout: float = 600) -> subprocess.CompletedProcess:
        """Runs ``python args...`` (a driver program) in the cluster's environment."""
        return subprocess.run(
            [sys.executable, *map(str, args)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def run_driver(self, script: Path, *args, timeout: float = 600) -> subprocess.CompletedProcess:
        """Runs ``python script <master url> args...``."""
        return self.run_python(script, self.url, *args, timeout=timeout)
