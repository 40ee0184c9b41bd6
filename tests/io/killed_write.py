"""A write a test kills mid-way: ``python killed_write.py RUNNER PREFIX [READY]`` writes 1000
lines with WriteToText (2 shards); with READY, the writer stops at the 500th line, after
creating the file READY, until the process is killed."""

import sys
import time
from pathlib import Path

import panes as beam


class Line:
    """A line whose text, asked for by the writer, blocks when ``ready`` names a file."""

    def __init__(self, text, ready=None):
        self.text, self.ready = text, ready

    def __str__(self):
        if self.ready:
            Path(self.ready).touch()
            time.sleep(600)
        return self.text


def main(runner, prefix, ready=None):
    p = beam.Pipeline(runner=runner)
    lines = [Line(f"line {i}", ready if i == 500 else None) for i in range(1000)]
    p | beam.Create(lines) | beam.io.WriteToText(prefix, num_shards=2)
    p.run()


if __name__ == "__main__":
    main(*sys.argv[1:])
