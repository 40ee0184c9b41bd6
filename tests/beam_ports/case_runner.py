"""Runs a Beam port case on one SDK (panes, or Apache Beam itself for the recording) and
returns what it produced, in a form that compares across SDKs and runners.

A case (cases.yaml) names a file of the installed ``apache_beam`` package (read as
``tests/beam_files.py`` checks it: the recorded Beam version, each file's sha256) and how Beam
runs it:

* ``pipeline``: an example program; its entry point gets ``args`` (``{input}`` and
  ``{output}`` filled in) plus ``--runner``; its output is the lines it wrote.
* ``test``: a Beam unittest module; every test runs with ``TestPipeline`` options
  ``--runner ... --temp_location ...`` (Beam's ``--test-pipeline-options``); its output is
  each test's outcome.
* ``snippet``: a transform example from Beam's documentation, a function ``entry(test)`` that
  prints its result; as Beam's own tests do, ``print`` is ``str`` and ``beam.Pipeline`` is
  ``TestPipeline``, and ``test`` receives the printed collection.

A program that reads Pub/Sub or writes BigQuery, which neither SDK reaches here, gets
``cloud`` stand-ins on both SDKs alike: ``ReadFromPubSub`` gives the input's lines as
messages, ``WriteToBigQuery`` writes each row as a line (``wall_clock`` fields, which hold the
time of the run, left out).

For every kind, the values each ``assert_that`` checked are recorded too (canonically
ordered), so a case compares what the pipelines computed, not only that they passed.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import fnmatch
import importlib
import io
import itertools
import json
import os
import re
import shlex
import shutil
import sys
import unittest
import zipfile
from pathlib import Path

import yaml
from rewrite import port_source

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for beam_files when run as a script

from beam_files import beam_file, manifest, package_root  # noqa: E402

EXPECTED = HERE / "expected"
REPOSITORY = HERE.parents[1]
_packages = itertools.count()
# What matchers saw. Apache Beam pickles a matcher and runs the copy (in this process), so
# the copy finds this list through the module, never through a captured reference.
_SEEN: list = []


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "pipeline", "test" or "snippet"
    module: str  # path under apache_beam/, e.g. examples/wordcount.py
    entry: str | None = None
    args: tuple = ()
    runner_args: dict | None = None  # what a runner needs besides ``args``, by runner
    input: str | None = None  # a file or folder of the repository, e.g. examples/data/...
    compare: tuple | None = None  # what to compare; by default what the kind produces
    tests: tuple | None = None  # the test methods to run, by name or pattern (default: all)
    files: tuple = ()  # Beam's files the module reads, e.g. testing/data/trigger_transcripts.yaml
    cloud: tuple = ()  # stand-ins: ReadFromPubSub, WriteToBigQuery
    wall_clock: tuple = ()  # fields of BigQuery rows that hold the time of the run
    differs: dict | None = None  # {rule, and what panes gives instead of Beam's recording}
    pending: str | dict | None = None  # why it still differs from Beam's recording (by runner)

    def parts(self) -> tuple:
        return self.compare or DEFAULT_PARTS[self.kind]

    def pending_on(self, runner: str) -> str | None:
        return self.pending.get(runner) if isinstance(self.pending, dict) else self.pending

    @property
    def module_name(self) -> str:
        return self.module.removesuffix(".py").replace("/", ".")


def expected_of(case: Case) -> dict:
    """What the case must produce on panes: Beam's recording, with the classes it printed
    ported (``ported_classes``) and the parts ``differs`` names replaced (test outcomes one by
    one)."""
    recorded = json.loads((EXPECTED / f"{case.name}.json").read_text(encoding="utf-8"))
    expected = {part: ported_classes(recorded[part]) for part in case.parts()}
    for part, value in (case.differs or {}).items():
        if part == "outcomes":
            expected[part] = {**expected[part], **value}
        elif part != "rule":
            expected[part] = list(value)
    return expected


_BEAM_CLASS = re.compile(r"<class \\?'apache_beam\.([\w.]+)\.(\w+)\\?'>")


def ported_classes(recorded):
    """A recording in which each class Beam printed (``<class 'apache_beam.M.C'>``) is the
    class a port finds at the ported path ``panes.M.C``, printed as panes prints it: a program
    that prints ``type(x)`` prints that class on panes, wherever panes defines it."""
    if isinstance(recorded, list):
        return [ported_classes(item) for item in recorded]
    if isinstance(recorded, dict):
        return {key: ported_classes(value) for key, value in recorded.items()}
    if not isinstance(recorded, str):
        return recorded

    def ported(match):
        module, name = match.groups()
        try:
            cls = getattr(importlib.import_module(f"panes.{module}"), name)
        except (ImportError, AttributeError):
            return match.group(0)  # no such class in panes: the port cannot print Beam's text
        return match.group(0).replace(
            f"apache_beam.{module}.{name}", f"{cls.__module__}.{cls.__qualname__}"
        )

    return _BEAM_CLASS.sub(ported, recorded)


def load_cases() -> list[Case]:
    with open(HERE / "cases.yaml", encoding="utf-8") as data:
        return [
            Case(**{k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()})
            for entry in yaml.safe_load(data)
        ]


def port_tree(target: Path, sdk: str) -> str:
    """Writes every Beam file the cases use (the manifest's), Python modules ported to
    ``sdk`` and other files as they are, into a fresh package under ``target``; returns the
    package's name."""
    package = f"beam_port_{sdk}_{next(_packages)}"
    for path in manifest():
        original = beam_file(path).read_text(encoding="utf-8")
        ported = target / package / path
        ported.parent.mkdir(parents=True, exist_ok=True)
        text = port_source(original, sdk, package) if path.endswith(".py") else original
        ported.write_text(text, encoding="utf-8")
    for directory in [target / package, *(target / package).rglob("*")]:
        if directory.is_dir():
            (directory / "__init__.py").touch()
    return package


def files_used(cases) -> set[str]:
    """The Beam files ``cases`` use: their modules, the files they read, and the example
    modules they import, transitively (paths under ``apache_beam/``)."""
    root = package_root()
    pending = [path for case in cases for path in (case.module, *case.files)]
    used: set[str] = set()
    while pending:
        path = pending.pop()
        if path in used:
            continue
        used.add(path)
        if path.endswith(".py"):
            pending += _example_imports((root / path).read_text(encoding="utf-8"), root)
    return used


def _example_imports(source: str, root: Path) -> list[str]:
    """The files of the ``apache_beam.examples`` modules ``source`` imports."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("apache_beam."):
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    paths = (name.removeprefix("apache_beam.").replace(".", "/") for name in names)
    return [
        f"{path}.py"
        for path in paths
        if path.startswith("examples/") and (root / f"{path}.py").exists()
    ]


def canonical(value):
    """A value as text in which collections compare regardless of their order (Beam's
    groupings give values in no defined order): tuples keep theirs, lists, sets, dicts and
    other iterables are sorted."""
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(map(canonical, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        items = sorted(f"{canonical(k)}: {canonical(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if hasattr(value, "__iter__"):
        return "[" + ", ".join(sorted(map(canonical, value))) + "]"
    return repr(value)


class Sdk:
    """What differs between running a case on panes and on Apache Beam."""

    def __init__(self, name: str, runner: str):
        self.name = name
        self.runner = runner  # a runner name as the SDK's --runner takes it

    def module(self, path: str):
        return importlib.import_module(f"{self.name}.{path}")


def run_case(case: Case, sdk: Sdk, workdir: Path, ship=None) -> dict:
    """Ports the originals into ``workdir``, runs ``case`` there on ``sdk`` and returns
    ``{"outputs": ..., "asserted": ..., "outcomes": ...}`` (the parts ``case.compare``
    names). ``ship(zip_path)`` makes the ported package importable where a runner's workers
    run (Spark: ``SparkContext.addPyFile``)."""
    package = port_tree(workdir, sdk.name)
    if ship is not None:
        ship(_zipped(workdir, package))
    sys.path.insert(0, str(workdir))
    _SEEN.clear()
    try:
        with (
            _recording_asserts(sdk),
            _test_pipeline_options(sdk, workdir),
            _patched(_cloud_stand_ins(case, sdk, workdir)),
        ):
            module = importlib.import_module(f"{package}.{case.module_name}")
            result = KINDS[case.kind](case, sdk, module, workdir)
        asserted = [values for kind, values in _SEEN if kind == "asserted"]
    finally:
        sys.path.remove(str(workdir))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
    found = {
        "outputs": result.get("outputs"),
        "asserted": sorted(asserted),
        "outcomes": result.get("outcomes"),
    }
    return {part: found[part] for part in case.parts()}


def _cloud_stand_ins(case: Case, sdk: Sdk, workdir: Path) -> list:
    """``(sdk.io, name, stand-in)`` for each of the case's ``cloud`` stand-ins."""
    beam = importlib.import_module(sdk.name)
    input_file, prefix, wall_clock = (
        workdir / "input" / Path(case.input or "").name,
        workdir,
        case.wall_clock,
    )

    class ReadFromPubSub(beam.PTransform):
        def __init__(self, topic=None, subscription=None, **kwargs):
            super().__init__()

        def expand(self, pbegin):
            # The messages as an event log: a streaming run replays them and ends.
            lines = input_file.read_text(encoding="utf-8").splitlines()
            return pbegin | beam.Create(lines) | beam.Map(str.encode)

    class WriteToBigQuery(beam.PTransform):
        def __init__(self, table, dataset=None, project=None, schema=None, **kwargs):
            super().__init__()
            self.table = table

        def expand(self, rows):
            table = self.table

            def line(row):
                kept = {name: value for name, value in row.items() if name not in wall_clock}
                return f"{table}: {json.dumps(kept, sort_keys=True)}"

            return (
                rows | beam.Map(line) | beam.io.WriteToText(str(prefix / "out" / f"result-{table}"))
            )

    stand_ins = {"ReadFromPubSub": ReadFromPubSub, "WriteToBigQuery": WriteToBigQuery}
    return [(beam.io, name, stand_ins[name]) for name in case.cloud]


def _zipped(workdir: Path, package: str) -> str:
    path = workdir / f"{package}.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in (workdir / package).rglob("*.py"):
            archive.write(file, file.relative_to(workdir))
    return str(path)


def _seen(kind: str, values) -> None:
    sys.modules[__name__]._SEEN.append((kind, values))


@contextlib.contextmanager
def _recording_asserts(sdk: Sdk):
    """Makes every ``assert_that`` also record the values its matcher sees."""
    util = sdk.module("testing.util")
    original = util.assert_that

    def recording_assert_that(actual, matcher, *args, **kwargs):
        def recording_matcher(values):
            _seen("asserted", canonical(list(values)))
            return matcher(values)

        return original(actual, recording_matcher, *args, **kwargs)

    with _patched(
        [
            (util, "assert_that", recording_assert_that),
            *_reexports(sdk.module("testing"), original, recording_assert_that),
        ]
    ):
        yield


def _reexports(module, original, replacement) -> list:
    return [
        (module, name, replacement) for name, value in vars(module).items() if value is original
    ]


@contextlib.contextmanager
def _test_pipeline_options(sdk: Sdk, workdir: Path):
    """Beam's ``--test-pipeline-options``, as its pytest plugin passes them."""
    test_pipeline = sdk.module("testing.test_pipeline").TestPipeline
    temp = workdir / "temp"
    temp.mkdir(exist_ok=True)
    options = f"--runner={sdk.runner} --temp_location={shlex.quote(str(temp))}"
    with _patched([(test_pipeline, "pytest_test_pipeline_options", options)]):
        yield


_MISSING = object()


@contextlib.contextmanager
def _patched(patches):
    saved = [(target, name, vars(target).get(name, _MISSING)) for target, name, _ in patches]
    for target, name, value in patches:
        setattr(target, name, value)
    try:
        yield
    finally:
        for target, name, value in saved:
            if value is _MISSING:
                delattr(target, name)
            else:
                setattr(target, name, value)


def _run_pipeline(case: Case, sdk: Sdk, module, workdir: Path) -> dict:
    """Runs the program in ``workdir``, as a user runs it in their own folder: relative
    paths, as ``{input}`` is, are the driver's there."""
    output = workdir / "out" / "result"
    arguments = {"output": str(output), "input": _input(case, workdir), "workdir": workdir}
    args = [*case.args, *(case.runner_args or {}).get(sdk.runner, ())]
    argv = [arg.format(**arguments) for arg in args] + [f"--runner={sdk.runner}"]
    with _working_directory(workdir):
        getattr(module, case.entry)(argv)
    lines = [
        line
        for path in sorted(output.parent.glob(output.name + "*"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    return {"outputs": sorted(lines)}


@contextlib.contextmanager
def _working_directory(path: Path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _input(case: Case, workdir: Path) -> str | None:
    """The case's input copied into ``workdir/input``, named relative to ``workdir``."""
    if case.input is None:
        return None
    source = REPOSITORY / case.input
    target = workdir / "input" / source.name
    target.parent.mkdir(exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)
    return str(target.relative_to(workdir))


def _run_tests(case: Case, sdk: Sdk, module, workdir: Path) -> dict:
    suite = unittest.TestSuite(
        test
        for test in _tests(unittest.defaultTestLoader.loadTestsFromModule(module))
        if case.tests is None
        or any(fnmatch.fnmatchcase(_test_name(test), pattern) for pattern in case.tests)
    )
    outcomes = {_test_name(test): "passed" for test in suite}
    result = unittest.TestResult()
    with contextlib.redirect_stderr(io.StringIO()):
        suite.run(result)
    for test, trace in result.failures + result.errors:
        error = trace.strip().splitlines()[-1].split(":")[0]
        outcomes[_test_name(test)] = "failed: " + error.rsplit(".", 1)[-1]
    for test, reason in result.skipped:
        outcomes[_test_name(test)] = f"skipped: {reason}"
    return {"outcomes": outcomes}


def _tests(suite):
    for test in suite:
        yield from _tests(test) if isinstance(test, unittest.TestSuite) else [test]


def _test_name(test) -> str:
    return f"{type(test).__name__}.{test._testMethodName}"


def _run_snippet(case: Case, sdk: Sdk, module, workdir: Path) -> dict:
    test_pipeline = sdk.module("testing.test_pipeline").TestPipeline
    assert_that = sdk.module("testing.util").assert_that

    def test(*pcolls):  # the partition snippets pass one collection per partition
        for index, pcoll in enumerate(pcolls):
            assert_that(
                pcoll,
                lambda values, i=index: _seen("printed", (i, list(values))),
                label=f"Printed{index}",
            )

    with _patched(
        [(module, "print", str), (importlib.import_module(sdk.name), "Pipeline", test_pipeline)]
    ):
        getattr(module, case.entry)(test)
    printed = [seen for kind, seen in _SEEN if kind == "printed"]
    return {
        "outputs": sorted(
            canonical((index, _printed_value(line))) for index, lines in printed for line in lines
        )
    }


def _printed_value(line: str):
    """A printed element as the value it shows (so a set prints in any order), as Beam's
    snippet tests read printed lines."""
    try:
        return ast.literal_eval(line)
    except (SyntaxError, ValueError):
        return line


KINDS = {"pipeline": _run_pipeline, "test": _run_tests, "snippet": _run_snippet}
DEFAULT_PARTS = {
    "pipeline": ("outputs", "asserted"),
    "test": ("outcomes", "asserted"),
    "snippet": ("outputs",),
}
