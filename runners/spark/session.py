"""The one SparkSession of a process, started only once Java is known to be usable."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from panes.errors import RunnerError
from panes.runners.spark.console import jvm_chatter_hidden

MIN_JAVA = 17
# Embedded Spark on every core, retrying a failed task up to 4 times, as a cluster does.
DEFAULT_MASTER = "local[*, 4]"
QUIET_LOGGING = Path(__file__).with_name("log4j2.properties")
QUIET_DAEMON = "panes.runners.spark.daemon"
_INSTALL_HINT = (
    "install a JDK 17 or newer (e.g. `sudo apt-get install openjdk-17-jre-headless`, or "
    "https://adoptium.net) and put it on PATH or point JAVA_HOME at it"
)


def java_version() -> int:
    """The major version of the Java that Spark will start, or a RunnerError saying what to do."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise RunnerError(
            f"the Spark runner needs Java {MIN_JAVA}+, but no `java` was found: {_INSTALL_HINT}"
        )
    try:
        banner = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30
        ).stderr
    except (OSError, subprocess.SubprocessError) as error:
        raise RunnerError(f"could not run {java} -version ({error}): {_INSTALL_HINT}") from error
    return parse_java_version(banner)


def parse_java_version(banner: str) -> int:
    match = re.search(r'version "(\d+)(?:\.(\d+))?', banner)
    if not match:
        raise RunnerError(f"could not read the Java version from {banner!r}: {_INSTALL_HINT}")
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 else major  # "1.8" is Java 8


def get_session(options):
    """The process's SparkSession: ``spark_session`` if given, else the active one, else a new
    one on ``spark_master`` (default ``local[*, 4]``) with ``spark_conf``."""
    if options.spark_session is not None:
        return checked_workers(options.spark_session)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return checked_workers(active)
    return start_session(
        options.spark_master,
        options.job_name or "panes",
        options.spark_conf,
        options.spark_log_level,
    )


_WORKERS_CHECKED: set = set()


def checked_workers(session):
    """``session``, once its local workers' Python is known to import panes. A session made
    outside panes runs them on ``PYSPARK_PYTHON`` as it was when the session was made, else
    ``python3``: often not this Python, and without panes every task fails with a trace."""
    context = session.sparkContext
    python = context.pythonExec
    if python == sys.executable or python in _WORKERS_CHECKED:
        return session
    conf = context.getConf()
    if not context.master.startswith("local") or conf.get("spark.submit.pyFiles"):
        # A cluster's workers run their own Python; shipped files are not on this one's path.
        return session
    env = dict(os.environ)
    shipped = conf.get("spark.executorEnv.PYTHONPATH")
    if shipped:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [shipped, env.get("PYTHONPATH")]))
    try:
        imports = subprocess.run(
            [python, "-c", "import panes"], capture_output=True, env=env, timeout=120
        )
        failed = imports.returncode != 0
    except subprocess.TimeoutExpired:
        return session  # a slow start says nothing
    except OSError:
        failed = True
    if failed:
        raise RunnerError(
            f"the Spark session's workers run {python!r}, which cannot import panes (the "
            f"session was made before PYSPARK_PYTHON named this Python). Make the session "
            f"with panes.runners.spark.session.start_session(), or set "
            f"PYSPARK_PYTHON={sys.executable} before making it"
        )
    _WORKERS_CHECKED.add(python)
    return session


def start_session(master=None, app_name="panes", conf=None, log_level=None):
    """Starts (or joins) the SparkSession after checking Java; workers run this Python.

    Without ``master``, Spark runs embedded on every core and retries a failed task as a
    cluster does (``local[*, 4]``) — unless ``spark-submit`` started this driver, whose
    ``--master`` holds. Without ``log_level``, Spark logs errors only and no start-up banner
    (``panes/runners/spark/log4j2.properties``), its Python daemon no trace of a task it
    killed (``panes.runners.spark.daemon``), and a JVM started here leaves PySpark's
    streaming chatter out of its standard error (``console``); a level (``WARN``, ``INFO``,
    ...) keeps Spark's own logging at that level, and everything it prints."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    version = java_version()
    if version < MIN_JAVA:
        raise RunnerError(
            f"the Spark runner needs Java {MIN_JAVA}+, found Java {version}: {_INSTALL_HINT}"
        )
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started the JVM
    master = master or (None if submitted else DEFAULT_MASTER)
    conf = dict(conf or {})
    if log_level is None:
        option = f"-Dlog4j2.configurationFile={QUIET_LOGGING}"
        conf["spark.driver.extraJavaOptions"] = " ".join(
            filter(None, [conf.get("spark.driver.extraJavaOptions"), option])
        )
        conf.setdefault("spark.python.daemon.module", QUIET_DAEMON)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if master and master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        # Local workers import what the driver imports (modules beside the pipeline file).
        entries = [*os.environ.get("PYTHONPATH", "").split(os.pathsep), *sys.path]
        os.environ["PYTHONPATH"] = os.pathsep.join(
            dict.fromkeys(p for p in entries if p and os.path.isdir(p))
        )
    builder = SparkSession.builder.appName(app_name).config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    for name, value in conf.items():
        builder = builder.config(name, value)
    launches_jvm = not submitted and SparkContext._gateway is None
    with jvm_chatter_hidden() if log_level is None and launches_jvm else contextlib.nullcontext():
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel(log_level or "ERROR")
    if log_level is None:
        _quiet_query_errors()
        quiet_gateway()
    return session


def quiet_gateway() -> None:
    """PySpark's gateway (py4j) logs at WARNING and above only: at INFO it logs each call of a
    Python callback (a streaming query's ``foreachBatch``) and its connection's close at exit,
    which a pipeline's own INFO logging would show."""
    import logging

    logging.getLogger("py4j").setLevel(logging.WARNING)


def _quiet_query_errors() -> None:
    """PySpark logs every failed Spark SQL query, with its JVM trace, before raising it; the
    raised error (which panes reports, naming the transform) says the same."""
    import logging

    from pyspark.logger import PySparkLogger

    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
