"""The ``panes`` command: print a pipeline file's IR, or run it on a runner.

A pipeline file defines ``build(p)``, which applies its transforms to the pipeline ``p``:

    def build(p):
        p | beam.io.ReadFromText("in.txt") | ... | beam.io.WriteToText("out")

    panes ir wordcount.py            # readable IR (--json: the JSON the runners read)
    panes run wordcount.py --runner spark [--spark_partitions=4 ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from panes.errors import PanesError
from panes.ir import to_json
from panes.ir.display import describe
from panes.options import PipelineOptions
from panes.pipeline import Pipeline


class UsageError(Exception):
    """The command line or the pipeline file is not usable; the message says how to fix it."""


def load_build(path: str):
    """The ``build(p)`` function of a pipeline file."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"no pipeline file {path!r}")
    spec = importlib.util.spec_from_file_location(f"panes_pipeline_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(file.resolve().parent))  # its neighbours import as in `python file`
    spec.loader.exec_module(module)
    build = getattr(module, "build", None)
    if not callable(build):
        raise UsageError(f"{path} must define build(p), a function that applies the pipeline's "
                         f"transforms to p, e.g. def build(p): p | beam.Create([1, 2, 3]) | ...")
    return build


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="panes", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("ir", help="print the pipeline's IR")
    show.add_argument("pipeline", help="a Python file that defines build(p)")
    show.add_argument("--json", action="store_true", help="print the IR as JSON")
    run = commands.add_parser("run", help="run the pipeline")
    run.add_argument("pipeline", help="a Python file that defines build(p)")
    run.add_argument("--runner", default="direct", choices=["direct", "spark"])
    return parser


def _print(text: str) -> None:
    """Prints, and stays quiet when the reader goes away early (``panes ir x.py | head``)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv=None) -> int:
    args, extra = _parser().parse_known_args(argv)
    try:
        options = PipelineOptions.from_args(extra)
        p = Pipeline(runner=getattr(args, "runner", "direct"), options=options)
        load_build(args.pipeline)(p)
        if args.command == "ir":
            ir = p.to_ir()
            _print(to_json(ir) if args.json else describe(ir))
            return 0
        result = p.run()
        print(f"{args.pipeline}: {result.state} on the {args.runner} runner")
        for counter in result.metrics().query()["counters"]:
            print(f"{counter.step}: {counter.name.namespace}.{counter.name.name} = {counter.committed}")
        return 0
    except (UsageError, PanesError) as error:
        print(f"panes: {error}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1


if __name__ == "__main__":
    sys.exit(main())
