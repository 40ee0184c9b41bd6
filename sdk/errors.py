"""The three kinds of error panes raises: at construction, at validation, in user code."""


class PanesError(Exception):
    """Base of every error panes raises on purpose."""


class PipelineConstructionError(PanesError, ValueError):
    """A pipeline was put together wrongly (bad label, wrong input, bad argument)."""


class ValidationError(PanesError, ValueError):
    """The IR cannot run: it names the node that is wrong and how to fix it."""


class UserCodeError(PanesError, RuntimeError):
    """A user function raised while a runner executed it; names the transform and element."""

    def __init__(self, label: str, element, cause: BaseException):
        self.label = label
        self.element = element
        self.cause = cause
        super().__init__(
            f"{type(cause).__name__} in transform '{label}' while processing element "
            f"{element!r}: {cause}")


class RunnerError(PanesError, RuntimeError):
    """A runner cannot start or finish for a reason outside user code (e.g. no Java)."""
