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


def map_user_fn(label: str, fn, items, elements=None) -> list:
    """``fn`` of each item, under C-level ``map``; a failure on the i-th item raises a
    UserCodeError naming ``elements[i]`` (the item itself by default). ``map`` takes a
    StopIteration for the end of its input, so one is caught by the count of results."""
    elements = items if elements is None else elements
    done: list = []
    try:
        done.extend(map(fn, items))  # on failure, holds the results before it
    except UserCodeError:
        raise
    except Exception as error:
        raise UserCodeError(label, elements[len(done)], error) from error
    if len(done) < len(items):
        raise UserCodeError(label, elements[len(done)],
                            RuntimeError("the function raised StopIteration"))
    return done
