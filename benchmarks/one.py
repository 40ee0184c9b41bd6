"""Runs one system on one workload and size in this process, and prints a JSON line: seconds,
peak resident memory of this (driver) process, and a digest of the normalized result — or,
when the system cannot be imported or does not implement the job, why it is not available.

    python -m benchmarks.one panes-spark 1 1000000

Each measurement gets a fresh process, so memory peaks and Python's heap are its own; the same
job first runs untimed on a small input, so the JVM and the Python workers are warm.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import resource
import sys
import time

from benchmarks import workloads as w

SPARK_SYSTEMS = {"rdd", "dataframe", "panes-spark", "panes-spark-sql"}


def session():
    from panes.runners.spark.session import start_session

    compiled_panes()
    spark = start_session(
        f"local[{os.cpu_count()}]",
        "panes-benchmarks",
        {
            "spark.sql.shuffle.partitions": str(2 * os.cpu_count()),
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.memory": "8g",
            "spark.ui.enabled": "false",
        },
    )
    return spark


def compiled_panes() -> None:
    """Compiles panes' modules into their ``__pycache__``, as installing a package does. Under
    ``PYTHONDONTWRITEBYTECODE`` (set on some machines, this one included) a checkout's modules
    are otherwise compiled again by every process that imports them — the driver, each Python
    worker, the Python process PySpark starts to plan a ``transformWithState`` — which no
    installed panes pays."""
    import compileall

    import panes
    import panes.runners

    for path in {*panes.__path__, *panes.runners.__path__}:
        compileall.compile_dir(path, quiet=1)


def streaming_pipeline(checkpoint, **options):
    """A panes pipeline under ``--streaming`` on Spark that reads what its sources hold now
    (``available_now``), with its checkpoint at ``checkpoint``."""
    import panes as beam

    return beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "checkpoint_location": str(checkpoint),
            "trigger_interval": "available_now",
            **options,
        },
    )


def run(system, workload, size, spark):
    if system == "rdd":
        return w.rdd(spark, workload, size) if workload != 4 else None
    if system == "dataframe":
        return w.dataframe(spark, workload, size)
    if system == "panes-spark":
        return w.panes("spark", workload, size)
    if system == "panes-spark-sql":
        return w.panes_sql(workload, size)
    if system == "panes-direct":
        return w.panes("direct", workload, size)
    if system == "beam":
        return w.beam_direct(workload, size)
    raise KeyError(system)


WARM_UP_SIZE = 20_000


def main(system, workload, size):
    try:
        spark = session() if system in SPARK_SYSTEMS else None
        run(system, int(workload), WARM_UP_SIZE, spark)  # the same job on a small input, untimed
        gc.collect()  # the garbage of imports, start-up and warm-up is not the timed job's
        start = time.perf_counter()
        result = run(system, int(workload), int(size), spark)
        seconds = time.perf_counter() - start
    except (ImportError, NotImplementedError) as error:
        print(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}))
        return
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    digest = None if result is None else hashlib.sha256(repr(result).encode()).hexdigest()
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_mb": peak_mb,
                "digest": digest,
                "rows": None if result is None else len(result),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
