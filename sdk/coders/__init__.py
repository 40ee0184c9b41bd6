"""Coders, as Beam's ``apache_beam.coders``: ``coders.Coder`` to subclass, standard coders,
and ``coders.registry``."""

from panes.coders.coders import *  # noqa: F401,F403 - Beam's module exports its coders
from panes.coders.coders import __all__ as _coders
from panes.coders.typecoders import CoderRegistry, registry

__all__ = [*_coders, "CoderRegistry", "registry"]
