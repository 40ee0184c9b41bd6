"""The direct runner: in-process execution of the IR, the reference for every other runner."""

from panes.runners.direct.runner import DirectRunner

__all__ = ["DirectRunner"]
