"""Runs panes pipelines on Apache Spark, with outputs identical to the direct runner.

Its names are imported when first used, so that the Python daemon of Spark's workers
(``panes.runners.spark.daemon``) chooses where PySpark comes from before anything imports it.
"""

__all__ = ["ReadFromDataFrame", "SparkRunner"]


def __getattr__(name: str):
    if name == "ReadFromDataFrame":
        from panes.io.dataframe import ReadFromDataFrame

        return ReadFromDataFrame
    if name == "SparkRunner":
        from panes.runners.spark.runner import SparkRunner

        return SparkRunner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
