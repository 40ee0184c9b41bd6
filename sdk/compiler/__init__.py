"""The compiler: a constructed pipeline to its IR (``compile``) and IR payloads back to what a
runner executes (``lift``); the checks an IR passes before it runs (``validate``) and its
display as text (``display``) and as a graph (``graph``), which read windowing through the
engine's kinds."""

from panes.compiler.validate import validate
