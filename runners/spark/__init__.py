"""Runs panes pipelines on Apache Spark, with outputs identical to the direct runner."""

from panes.io.dataframe import ReadFromDataFrame
from panes.runners.spark.runner import SparkRunner

__all__ = ["ReadFromDataFrame", "SparkRunner"]
