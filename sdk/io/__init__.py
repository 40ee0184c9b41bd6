"""Sources and sinks."""

from panes.io.base import Read, Sink, Source, Write
