"""Triggers and accumulation modes at Beam's module path ``apache_beam.transforms.trigger``
(they are defined in ``panes.trigger``), with the names Beam's own trigger tests use from it:
its trigger base class ``TriggerFn``, ``_Never``, ``_AfterSynchronizedProcessingTime``, its
drivers and their state (``panes.transforms.trigger_driver``)."""

from panes.timestamp import Duration
from panes.transforms.trigger_driver import (  # noqa: F401
    BatchGlobalTriggerDriver,
    GeneralTriggerDriver,
    InMemoryUnmergedState,
)
from panes.trigger import *  # noqa: F401,F403
from panes.trigger import AfterProcessingTime, Never, Trigger
from panes.trigger import __all__ as _public
from panes.window import GlobalWindow  # noqa: F401

__all__ = [*_public, "TriggerFn", "GeneralTriggerDriver", "InMemoryUnmergedState"]

TriggerFn = Trigger
_Never = Never


def _AfterSynchronizedProcessingTime() -> AfterProcessingTime:  # noqa: N802 - Beam's name
    """The continuation of ``AfterProcessingTime``: as soon as processing time passes the
    upstream panes' arrival."""
    return AfterProcessingTime(Duration(0))
