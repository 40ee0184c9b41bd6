"""The three kinds of error panes raises: at construction, at validation, in user code."""

import os
import sys
import traceback


class PanesError(Exception):
    """Base of every error panes raises on purpose."""


class PipelineConstructionError(PanesError, ValueError):
    """A pipeline was put together wrongly (bad label, wrong input, bad argument)."""


class ValidationError(PanesError, ValueError):
    """The IR cannot run: it names the node that is wrong and how to fix it."""


class UserCodeError(PanesError, RuntimeError):
    """A user function raised while a runner executed it; names the transform, the element
    and where in the user's code it raised (``location``: file:line, found from the cause's
    traceback unless given, as it must be once the cause has crossed processes)."""

    def __init__(self, label: str, element, cause: BaseException, location: str | None = None):
        self.label = label
        self.element = element
        self.cause = cause
        self.location = location if location is not None else user_location(cause)
        where = f" at {self.location}" if self.location else ""
        super().__init__(
            f"{type(cause).__name__} in transform '{label}' while processing element "
            f"{element!r}{where}: {cause}"
        )


_INSTALLED = tuple(
    {os.path.realpath(path) for path in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
)


def user_location(error: BaseException) -> str:
    """``file:line in function`` of the innermost frame of ``error``'s traceback in the
    user's code, outside panes, Python and installed packages ("" when there is none)."""
    runners = sys.modules.get("panes.runners")
    panes = tuple(
        os.path.realpath(path) + os.sep
        for path in [os.path.dirname(__file__), *getattr(runners, "__path__", [])]
    )
    own = [
        (frame.f_code, line)
        for frame, line in traceback.walk_tb(error.__traceback__)
        if not os.path.realpath(frame.f_code.co_filename).startswith((*panes, *_INSTALLED))
    ]
    for code, line in own[-1:]:
        return f"{code.co_filename}:{line} in {code.co_name}"
    return ""


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
        raise UserCodeError(
            label, elements[len(done)], RuntimeError("the function raised StopIteration")
        )
    return done
