"""Runners execute a pipeline's IR: ``direct`` in-process, ``spark`` on Apache Spark."""

from __future__ import annotations

from panes.errors import PipelineConstructionError

_RUNNERS = {
    "direct": ("panes.runners.direct", "DirectRunner"),
    "spark": ("panes.runners.spark", "SparkRunner"),
}


def create_runner(runner):
    """A runner object from a name ("direct", "spark", "DirectRunner", ...) or an instance."""
    if not isinstance(runner, str):
        if not hasattr(runner, "run_pipeline"):
            raise PipelineConstructionError(
                f"runner must be a name {sorted(_RUNNERS)} or a runner object, got {runner!r}")
        return runner
    name = runner.lower().removesuffix("runner")
    if name not in _RUNNERS:
        raise PipelineConstructionError(
            f"unknown runner {runner!r}; choose one of {sorted(_RUNNERS)}")
    import importlib

    module_name, class_name = _RUNNERS[name]
    return getattr(importlib.import_module(module_name), class_name)()
