"""Triggers and accumulation modes at Beam's module path ``apache_beam.transforms.trigger``
(they are defined in ``panes.trigger``)."""

from panes.trigger import *  # noqa: F401,F403
from panes.trigger import __all__  # noqa: F401
