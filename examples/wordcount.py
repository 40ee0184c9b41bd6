"""Word count: the lines of a text file, split into words, counted, written as text shards.

python examples/wordcount.py [--input FILE] [--output PREFIX] [--runner=spark] [options]
panes run examples/wordcount.py --runner spark
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import panes as beam
from panes.metrics import Metrics
from panes.options.pipeline_options import PipelineOptions

INPUT = str(Path(__file__).parent / "data" / "lighthouse.txt")
OUTPUT = "out/wordcount/counts"


class ExtractWords(beam.DoFn):
    """The words of a line, lower-cased; counts empty lines."""

    def process(self, line):
        if not line.strip():
            Metrics.counter("wordcount", "empty_lines").inc()
        yield from (word.lower() for word in re.findall(r"[A-Za-z']+", line))


def count_words(lines):
    return (
        lines | "Words" >> beam.ParDo(ExtractWords()) | "Count" >> beam.combiners.Count.PerElement()
    )


def build(p, input_file=INPUT, output=OUTPUT):
    counts = count_words(p | "Read" >> beam.io.ReadFromText(input_file))
    (
        counts
        | "Format" >> beam.MapTuple(lambda word, n: f"{word}: {n}")
        | "Write" >> beam.io.WriteToText(output, ".txt")
    )
    return counts


def main(argv=None):
    """Its own flags, and pipeline options (``--runner``, ...) from the rest, as Beam's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", default=INPUT)
    parser.add_argument("--output", default=OUTPUT)
    args, pipeline_args = parser.parse_known_args(argv)
    from panes.testing import materialize

    with beam.Pipeline(options=PipelineOptions(pipeline_args)) as p:
        top = materialize(
            build(p, args.input, args.output)
            | beam.combiners.Top.Of(5, key=lambda kv: (kv[1], kv[0]))
        )
    print(f"wrote {args.output}-*-of-*.txt; most frequent: {top.values[0]}")


if __name__ == "__main__":
    main()
