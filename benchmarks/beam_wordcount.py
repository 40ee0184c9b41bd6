"""Beam's word count example, unchanged, on panes' Spark runner, against the same pipeline
written with panes' API, on the same Spark session settings.

    python -m benchmarks.beam_wordcount [--lines 1000000] [--repeat 3]

``beam``: ``apache_beam.examples.wordcount.run([... '--runner=panes.runners.beam.SparkRunner'])``
(ReadFromText, a DoFn splitting lines with a regex, Map to (word, 1), CombinePerKey(sum),
MapTuple formatting, WriteToText). ``panes``: those transforms from ``panes``;
``panes-flatmap``: the same with the splitting as a ``FlatMap`` of the regex (panes' fastest
form of it). Each run is a fresh process (``--one``) that starts Spark and runs the job once
on 2 000 lines, untimed, then times the job, which includes reading the input and writing the
output; the systems take turns, and all outputs are compared before any time is printed.
Prints each run and the ratios of the medians.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import re
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.datagen import words_text
from benchmarks.fresh import fresh
from benchmarks.one import session

WARM_UP_LINES = 2_000


def beam_job(input_file: str, output: str) -> None:
    from apache_beam.examples import wordcount

    wordcount.run(
        [f"--input={input_file}", f"--output={output}", "--runner=panes.runners.beam.SparkRunner"],
        save_main_session=False,
    )


def panes_job(input_file: str, output: str, as_flat_map: bool = False) -> None:
    import panes as beam

    class WordExtractingDoFn(beam.DoFn):
        def process(self, element):
            return re.findall(r"[\w\']+", element, re.UNICODE)

    def format_result(word, count):
        return f"{word}: {count:d}"

    split = (
        beam.FlatMap(lambda line: re.findall(r"[\w\']+", line, re.UNICODE))
        if as_flat_map
        else beam.ParDo(WordExtractingDoFn())
    )
    with beam.Pipeline(runner="spark") as p:
        (
            p
            | "Read" >> beam.io.ReadFromText(input_file)
            | "Split" >> split
            | "PairWithOne" >> beam.Map(lambda x: (x, 1))
            | "GroupAndSum" >> beam.CombinePerKey(sum)
            | "Format" >> beam.MapTuple(format_result)
            | "Write" >> beam.io.WriteToText(output)
        )


JOBS = {
    "beam": beam_job,
    "panes": panes_job,
    "panes-flatmap": lambda input_file, output: panes_job(input_file, output, as_flat_map=True),
}


def digest(output: str) -> str:
    """Of the sorted lines of every shard the job wrote."""
    prefix = Path(output)
    lines = sorted(
        line
        for shard in prefix.parent.glob(f"{prefix.name}-*")
        for line in shard.read_text().splitlines()
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def one(system: str, lines: int) -> dict:
    """Runs one system once in this process (after an untimed warm-up) and returns its time
    and output digest."""
    session()
    job = JOBS[system]
    with tempfile.TemporaryDirectory() as folder:
        job(str(words_text(WARM_UP_LINES * 10)), f"{folder}/warm/counts")
        gc.collect()
        start = time.perf_counter()
        job(str(words_text(lines * 10)), f"{folder}/timed/counts")
        seconds = time.perf_counter() - start
        return {"seconds": seconds, "digest": digest(f"{folder}/timed/counts")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", choices=sorted(JOBS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.lines)))
        return
    words_text(args.lines * 10)  # generated once, before any timing
    times: dict = {system: [] for system in JOBS}
    digests = set()
    for attempt in range(args.repeat):
        order = list(JOBS)
        for system in order[attempt % len(order) :] + order[: attempt % len(order)]:
            result = fresh("beam_wordcount", system, "--lines", str(args.lines))
            times[system].append(result["seconds"])
            digests.add(result["digest"])
            print(f"{system:6} {result['seconds']:7.2f} s", flush=True)
    if len(digests) != 1:
        raise SystemExit(f"MISMATCH: the systems wrote different counts ({sorted(digests)})")
    medians = {system: statistics.median(seconds) for system, seconds in times.items()}
    print(
        "median: " + ", ".join(f"{system} {seconds:.2f} s" for system, seconds in medians.items())
    )
    for system in ("panes", "panes-flatmap"):
        print(f"beam on panes / {system}: {medians['beam'] / medians[system]:.2f}x")


if __name__ == "__main__":
    main()
