"""Runners execute a pipeline's IR: ``direct`` in-process, ``spark`` on Apache Spark."""

from __future__ import annotations

from panes.errors import PipelineConstructionError

_RUNNERS = {
    "direct": ("panes.runners.direct", "DirectRunner"),
    "spark": ("panes.runners.spark", "SparkRunner"),
}


def check_runner(runner) -> None:
    """Raises a clear error for a runner that is neither a known name nor a runner object."""
    if isinstance(runner, str):
        if runner.lower().removesuffix("runner") not in _RUNNERS:
            raise PipelineConstructionError(
                f"unknown runner {runner!r}; choose one of {sorted(_RUNNERS)}")
    elif not hasattr(runner, "run_pipeline"):
        raise PipelineConstructionError(
            f"runner must be a name {sorted(_RUNNERS)} or a runner object, got {runner!r}")


def create_runner(runner):
    """A runner object from a name ("direct", "spark", "DirectRunner", ...) or an instance."""
    check_runner(runner)
    if not isinstance(runner, str):
        return runner
    name = runner.lower().removesuffix("runner")
    import importlib

    module_name, class_name = _RUNNERS[name]
    return getattr(importlib.import_module(module_name), class_name)()
