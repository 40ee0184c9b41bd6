"""Runs panes pipelines on Apache Spark, with outputs identical to the direct runner."""

from panes.runners.spark.runner import SparkRunner

__all__ = ["SparkRunner"]
