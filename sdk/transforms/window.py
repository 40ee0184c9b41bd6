"""Windows and window functions at Beam's module path ``apache_beam.transforms.window``
(they are defined in ``panes.window``)."""

from panes.window import *  # noqa: F401,F403
from panes.window import __all__  # noqa: F401
