"""A standalone Spark cluster on loopback — a master and a worker the test starts from the pip
pyspark itself, on free ports — for tests whose closures must cross process boundaries."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster_env() -> dict:
    return {**os.environ, "SPARK_HOME": str(SPARK_HOME), "PYSPARK_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1"}


def _spark_class(*args):
    return subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), *args], env=cluster_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@contextlib.contextmanager
def standalone_cluster():
    """The master URL of a cluster with one 2-core worker; both are stopped afterwards."""
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    master = _spark_class("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                          "--port", str(port), "--webui-port", str(_free_port()))
    worker = _spark_class("org.apache.spark.deploy.worker.Worker", master_url, "--host",
                          "127.0.0.1", "--cores", "2", "--memory", "1g",
                          "--webui-port", str(_free_port()))
    try:
        deadline = time.time() + 60
        while time.time() < deadline:  # the master needs a moment to listen
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        yield master_url
    finally:
        for process in (worker, master):
            process.terminate()
            process.wait(timeout=30)
