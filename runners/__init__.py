"""Runners execute a pipeline's IR: ``direct`` in-process, ``spark`` on Apache Spark."""

from __future__ import annotations

import importlib
import importlib.util

from panes.errors import PipelineConstructionError

_RUNNERS = {
    "direct": ("panes.runners.direct", "DirectRunner"),
    "spark": ("panes.runners.spark", "SparkRunner"),
}
# What a runner needs beyond the base install: the module it imports, and the extra that has it.
_NEEDS = {"spark": ("pyspark", "spark")}

# Beam's names for its in-process runners all mean the direct runner here (as Beam's
# TestPipeline maps them to its own local runner); SparkRunner is the Spark runner.
_ALIASES = {
    "direct": "direct",
    "directrunner": "direct",
    "fnapirunner": "direct",
    "bundlebaseddirectrunner": "direct",
    "switchingdirectrunner": "direct",
    "testdirectrunner": "direct",
    "prismrunner": "direct",
    "spark": "spark",
    "sparkrunner": "spark",
}


def runner_name(runner: str) -> str:
    """``direct`` or ``spark`` for a runner name such as ``DirectRunner``, ``FnApiRunner``,
    ``SparkRunner`` or ``spark``; a clear error for any other name."""
    name = _ALIASES.get(runner.rsplit(".", 1)[-1].lower())
    if name is None:
        raise PipelineConstructionError(
            f"unknown runner {runner!r}; panes runs pipelines on the direct runner (direct, "
            f"DirectRunner, FnApiRunner, PrismRunner, ...) or on Spark (spark, SparkRunner)"
        )
    return name


def check_runner(runner) -> None:
    """Raises a clear error for a runner that is neither a known name nor a runner object."""
    if isinstance(runner, str):
        name = runner_name(runner)
        module, extra = _NEEDS.get(name, (None, None))
        if module is not None and importlib.util.find_spec(module) is None:
            raise PipelineConstructionError(
                f"the {name} runner needs {module}, which is not installed: "
                f"pip install 'panes[{extra}]'"
            )
    elif not hasattr(runner, "run_pipeline"):
        raise PipelineConstructionError(
            f"runner must be a name {sorted(_RUNNERS)} or a runner object, got {runner!r}"
        )


def create_runner(runner):
    """A runner object from a name ("direct", "spark", "DirectRunner", ...) or an instance."""
    check_runner(runner)
    if not isinstance(runner, str):
        return runner
    module_name, class_name = _RUNNERS[runner_name(runner)]
    return getattr(importlib.import_module(module_name), class_name)()
