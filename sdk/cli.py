"""The ``panes`` command: run a pipeline file, print its IR, or draw its graph.

A pipeline file either defines ``build(p)``, which applies its transforms to the pipeline
``p``, or is a script that builds and runs pipelines itself (a Beam example, say). The
command's own options come before the file; everything after it goes to the script, or to the
pipeline's options for ``build(p)``:

    panes run wordcount.py --input in.txt --output out/counts --runner spark
    panes ir [--json] wordcount.py        # readable IR (--json: the JSON the runners read)
    panes graph [--format svg] [-o wordcount.svg] wordcount.py
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import runpy
import shutil
import subprocess
import sys
import time
from pathlib import Path

from panes.compiler.display import describe
from panes.compiler.graph import to_dot
from panes.errors import PanesError
from panes.io.files import shard_pattern
from panes.ir import to_json
from panes.ir.io import ParquetSink, TextSink
from panes.options.pipeline_options import PipelineOptions
from panes.pipeline import Pipeline
from panes.runners import runner_name


class UsageError(Exception):
    """The command line or the pipeline file is not usable; the message says how to fix it."""


class _Built(Exception):
    """Stops a script at its first ``run()`` when only its pipeline is wanted."""


def _module(path: str):
    """The pipeline file as a module that has not run yet."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"no pipeline file {path!r}")
    sys.path.insert(0, str(file.resolve().parent))  # its neighbours import as in `python file`
    spec = importlib.util.spec_from_file_location(f"panes_pipeline_{file.stem}", file)
    assert spec is not None  # a file's path always gives a spec
    return importlib.util.module_from_spec(spec), spec


def pipelines(path: str, argv: list[str], run: bool) -> list:
    """``(pipeline, result)`` for each pipeline the file builds. A file that defines
    ``build(p)`` builds one on options from ``argv``; any other file runs as a script with
    ``argv`` as its arguments, and the pipelines it runs are recorded. With ``run=False`` the
    first pipeline is recorded unrun and the file stops there."""
    module, spec = _module(path)
    recorded: list = []
    with _recording(recorded, run), _arguments([path, *argv]):
        try:
            spec.loader.exec_module(module)
            build = getattr(module, "build", None)
            if not recorded and callable(build):
                p = Pipeline(options=PipelineOptions(argv))
                build(p)
                p.run()
            elif not recorded:
                runpy.run_path(path, run_name="__main__")
        except _Built:
            pass
        except SystemExit as exit_:
            if exit_.code not in (None, 0):
                raise UsageError(f"{path} exited with status {exit_.code}") from None
    if not recorded:
        raise UsageError(
            f"{path} ran no pipeline: define build(p), a function that applies the pipeline's "
            f"transforms to p (def build(p): p | beam.Create([1, 2, 3]) | ...), or run "
            f"pipelines when the file runs as a script"
        )
    return recorded


@contextlib.contextmanager
def _recording(recorded: list, run: bool):
    original = Pipeline.run

    def recording_run(self, *args, **kwargs):
        if not run:
            recorded.append((self, None))
            raise _Built()
        result = original(self, *args, **kwargs)
        recorded.append((self, result))
        return result

    Pipeline.run = recording_run  # type: ignore[method-assign]
    try:
        yield
    finally:
        Pipeline.run = original  # type: ignore[method-assign]


@contextlib.contextmanager
def _arguments(argv: list[str]):
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


def written_files(ir, since: float) -> list[str]:
    """The local files a run's writes produced: each file sink's shards (Beam's shard names of
    its prefix, template and suffix, whatever their count) written after ``since``."""
    files = []
    for node in ir.nodes.values():
        sink = node.payload["sink"] if node.kind == "write" else None
        if isinstance(sink, (TextSink, ParquetSink)):
            folder = os.path.dirname(sink.file_path_prefix) or "."
            shard = shard_pattern(
                sink.file_path_prefix, sink.file_name_suffix, sink.shard_name_template
            )
            names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
            files += [
                path
                for name in names
                if shard.match(name)
                for path in [os.path.join(folder, name)]
                if os.path.getmtime(path) >= math.floor(since)
            ]
    return files


def _size(path: str) -> str:
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        return f"{pq.ParquetFile(path).metadata.num_rows} rows"
    with open(path, "rb") as data:
        return f"{sum(1 for _ in data)} lines"


def report(path: str, p, result, since: float) -> list[str]:
    """What a finished run did: its state, the files it wrote, its metrics."""
    name = runner_name(p.runner) if isinstance(p.runner, str) else type(p.runner).__name__
    lines = [f"{path}: {result.state} on the {name} runner in {time.time() - since:.1f} s"]
    files = written_files(p.to_ir(), since)
    lines += ["wrote:"] + [f"  {f} ({_size(f)})" for f in files] if files else ["wrote no files"]
    queried = result.metrics().query()
    metrics = [
        f"  {r.key.step}: {r.key.metric.namespace}.{r.key.metric.name} = {r.committed}"
        for r in queried["counters"]
    ]
    metrics += [
        f"  {r.key.step}: {r.key.metric.namespace}.{r.key.metric.name} = "
        f"count {d.count}, sum {d.sum}, min {d.min}, max {d.max}, mean {d.mean:g}"
        for r in queried["distributions"]
        for d in [r.committed]
    ]
    return lines + (["metrics:"] + metrics if metrics else [])


def render(dot: str, fmt: str) -> bytes:
    """DOT text, or SVG/PNG drawn by Graphviz's ``dot``."""
    if fmt == "dot":
        return dot.encode("utf-8")
    executable = shutil.which("dot")
    if executable is None:
        raise UsageError(
            f"drawing {fmt.upper()} needs Graphviz's `dot` command, which is not installed: "
            f"install it (apt-get install graphviz, brew install graphviz) or print DOT with "
            f"--format dot and render it elsewhere"
        )
    done = subprocess.run(
        [executable, f"-T{fmt}"], input=dot.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode:
        raise UsageError(f"Graphviz failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="panes", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the pipeline; print what it wrote and its metrics")
    show = commands.add_parser("ir", help="print the pipeline's IR")
    show.add_argument("--json", action="store_true", help="print the IR as JSON")
    graph = commands.add_parser("graph", help="draw the pipeline (DOT; SVG/PNG via Graphviz)")
    graph.add_argument(
        "--format",
        choices=["dot", "svg", "png"],
        default=None,
        help="default: from the output file's extension, else dot",
    )
    graph.add_argument("-o", "--output", default=None, help="a file (default: standard output)")
    for command in (run, show, graph):
        command.add_argument("pipeline", help="a Python file: defines build(p), or runs pipelines")
        command.add_argument(
            "arguments",
            nargs=argparse.REMAINDER,
            help="the script's arguments, or pipeline options for build(p)",
        )
    return parser


def _print(text: str) -> None:
    """Prints, and stays quiet when the reader goes away early (``panes ir x.py | head``)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _graph(args, p) -> None:
    fmt = args.format or (Path(args.output).suffix.lstrip(".") if args.output else "dot")
    if fmt not in ("dot", "svg", "png"):
        raise UsageError(f"cannot draw {args.output!r}: use a .dot, .svg or .png file, or --format")
    drawn = render(to_dot(p.to_ir(), Path(args.pipeline).stem), fmt)
    if args.output:
        Path(args.output).write_bytes(drawn)
        _print(f"wrote {args.output}")
    elif fmt == "dot":
        _print(drawn.decode("utf-8").rstrip("\n"))
    else:
        sys.stdout.buffer.write(drawn)


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        started = time.time()
        built = pipelines(args.pipeline, args.arguments, run=args.command == "run")
        if args.command == "run":
            for p, result in built:
                _print("\n".join(report(args.pipeline, p, result, started)))
        elif args.command == "ir":
            ir = built[0][0].to_ir()
            _print(to_json(ir) if args.json else describe(ir))
        else:
            _graph(args, built[0][0])
        return 0
    except (UsageError, PanesError) as error:
        print(f"panes: {error}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1


if __name__ == "__main__":
    sys.exit(main())
