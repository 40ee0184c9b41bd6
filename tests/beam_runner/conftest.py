"""Runs Apache Beam's own test modules, from the installed apache-beam package and unmodified,
with Beam's default runner set to panes' (``panes.runners.beam``).

``suites.yaml`` names the modules (Beam's examples, and the ValidatesRunner tests of
``apache_beam/transforms``) and the tiers; ``beam_baseline.yaml`` (written by
``record_baseline.py``) which tests do not pass on Beam's own DirectRunner (left out);
``expected.yaml`` which fail on panes, and why (strict expected failures). Each test runs
once per runner, as
``tests/beam_runner/suites.yaml::<runner>::<path in apache_beam>::<class>::<test>``.

Options: ``--beam-runners=direct,spark`` (``beam``: Beam's own DirectRunner, as
``record_baseline.py`` runs it), ``--beam-all`` (every test on Spark, not only the ``spark``
subset), ``--beam-record=FILE`` (each test's outcome, for ``record_baseline.py``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).parent
SUITES = "tests/beam_runner/suites.yaml::"
RUNNERS = {
    "beam": None,  # Beam's own default, DirectRunner
    "direct": "panes.runners.beam.DirectRunner",
    "spark": "panes.runners.beam.SparkRunner",
}


def pytest_addoption(parser):
    parser.addoption(
        "--beam-runners",
        default="direct,spark",
        help="runners for Beam's own test modules (direct, spark; beam: Beam's DirectRunner)",
    )
    parser.addoption(
        "--beam-all",
        action="store_true",
        help="run every one of Beam's tests on Spark too, not only suites.yaml's Spark subset",
    )
    parser.addoption(
        "--beam-record",
        default=None,
        help="write each of Beam's tests' outcome to this YAML file (record_baseline.py)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "beam_suite: a test of Apache Beam's own, run on a runner")
    config.pluginmanager.register(RunnerSwitch(), "panes-beam-runner-switch")
    if config.getoption("--beam-record"):
        config.pluginmanager.register(Recorder(config.getoption("--beam-record")))
    # Beam's modules use markers of Beam's own CI and import its TestPipeline class.
    config.addinivalue_line("filterwarnings", "ignore:Unknown pytest.mark")
    config.addinivalue_line("filterwarnings", "ignore:cannot collect test class 'Test")


def pytest_collect_file(file_path, parent):
    if file_path == HERE / "suites.yaml":
        return Suites.from_parent(parent, path=file_path)
    return None


def _beam_root() -> Path | None:
    spec = importlib.util.find_spec("apache_beam")
    return None if spec is None else Path(spec.origin).parent


class Suites(pytest.File):
    """suites.yaml: one collector per runner, each holding every suite's modules."""

    def collect(self):
        root = _beam_root()
        if root is None:
            pytest.skip("Beam's test modules need apache-beam: pip install 'panes[beam]'")
        spec = yaml.safe_load(self.path.read_text())
        for runner in self.config.getoption("--beam-runners").split(","):
            yield RunnerSuites.from_parent(self, name=runner, runner=runner, spec=spec, root=root)


class RunnerSuites(pytest.Collector):
    """Beam's test modules of every suite, on one runner."""

    def __init__(self, *, runner, spec, root, **kwargs):
        super().__init__(**kwargs)
        self.runner, self.spec, self.root = runner, spec, root
        if runner == "spark":  # the test process's one SparkSession
            self.add_marker(pytest.mark.usefixtures("spark"))

    def collect(self):
        for name, suite in self.spec["suites"].items():
            for path in _modules(self.root, suite):
                relative = path.relative_to(self.root.parent).as_posix()
                yield BeamModule.from_parent(
                    self,
                    path=path,
                    name=relative,
                    nodeid=f"{self.nodeid}::{relative}",
                    suite=name,
                    marker=suite.get("marker"),
                )


def _modules(root: Path, suite: dict) -> list[Path]:
    found = {path for pattern in suite["modules"] for path in root.glob(pattern)}
    excluded = {path for pattern in suite.get("exclude", ()) for path in root.glob(pattern)}
    return sorted(found - excluded)


class BeamModule(pytest.Module):
    """One of Beam's test modules, imported by its package name (its own imports need it);
    one that needs a package not installed is skipped, naming it."""

    def __init__(self, *, suite, marker, **kwargs):
        super().__init__(**kwargs)
        self.suite, self.marker = suite, marker

    def _getobj(self):
        name = ".".join(self.path.relative_to(_beam_root().parent).with_suffix("").parts)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            pytest.skip(
                f"{name} needs {error.name}, which is not installed", allow_module_level=True
            )
        _pickled_by_value(module)
        return module


def _pickled_by_value(module) -> None:
    """Classes a test defines as it runs (``global Player`` inside a test method) exist in this
    process only: Spark's workers, importing the module afresh, would not find them, so the
    test module's code is pickled by value — by panes (the IR) and by PySpark (its tasks)."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(module)
    if importlib.util.find_spec("pyspark") is not None:
        from pyspark import cloudpickle as spark_cloudpickle

        spark_cloudpickle.register_pickle_by_value(module)


def test_id(item) -> str:
    """The test's id within Beam's package: ``apache_beam/...py::Class::test``."""
    return str(item.nodeid).split("::", 2)[2]


def _runner_of(item) -> str | None:
    node = item
    while node is not None and not isinstance(node, RunnerSuites):
        node = node.parent
    return None if node is None else node.runner


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keeps a suite's marked tests only; leaves out what does not pass on Beam's DirectRunner;
    marks panes' expected failures; sorts the rest into tiers: suites.yaml's ``fast`` tests run
    in the fast tier, the others in the full one, and on Spark only its ``spark`` subset runs
    unless ``--beam-all`` (its ``smoke`` tests in the fast tier)."""
    expected = yaml.safe_load((HERE / "expected.yaml").read_text())
    baseline = yaml.safe_load((HERE / "beam_baseline.yaml").read_text())["fails_on_beam"] or {}
    spec = yaml.safe_load((HERE / "suites.yaml").read_text())
    every = config.getoption("--beam-all")
    kept = []
    for item in items:
        runner = _runner_of(item)
        if runner is None:
            kept.append(item)
            continue
        module = _module_of(item)
        name = test_id(item)
        if module.marker and item.get_closest_marker(module.marker) is None:
            continue
        if runner == "spark" and not every and name not in spec["spark"]:
            continue
        item.add_marker(pytest.mark.beam_suite)
        if runner != "beam":
            _expect(item, name, runner, expected, baseline)
        if runner == "spark" and name in spec["smoke"]:
            item.add_marker(pytest.mark.smoke)
        elif runner == "direct" and name not in spec["fast"]:
            item.add_marker(pytest.mark.slow)
        kept.append(item)
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


def _expect(item, name: str, runner: str, expected: dict, baseline: dict) -> None:
    beam = baseline.get(name)
    if beam is not None:
        item.add_marker(pytest.mark.skip(reason=f"does not pass on Beam's DirectRunner: {beam}"))
        return
    for reason, entry in expected["fails_on_panes"].items():
        if name in entry["tests"] and runner in entry["runners"]:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


def _module_of(item) -> BeamModule:
    node = item
    while not isinstance(node, BeamModule):
        node = node.parent
    return node


class RunnerSwitch:
    """Sets Beam's default runner to the item's runner while it runs, and checks that every
    pipeline the translation made round-trips through JSON."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        runner = _runner_of(item)
        if runner is None or runner == "beam":
            yield
            return
        with _default_runner(RUNNERS[runner]), _round_trips_checked():
            yield


@contextlib.contextmanager
def _default_runner(runner: str):
    from apache_beam.options.pipeline_options import StandardOptions

    default = StandardOptions.DEFAULT_RUNNER
    StandardOptions.DEFAULT_RUNNER = runner
    try:
        yield
    finally:
        StandardOptions.DEFAULT_RUNNER = default


@contextlib.contextmanager
def _round_trips_checked():
    from panes.ir import from_json, to_json
    from panes.runners.beam import runner

    translate = runner.translate

    def checked(pipeline):
        ir = translate(pipeline)
        assert from_json(to_json(ir)) == ir, "IR did not round-trip through JSON"
        return ir

    runner.translate = checked
    try:
        yield
    finally:
        runner.translate = translate


class Recorder:
    """Writes ``{test id: [outcome, message]}`` of Beam's tests when the session ends."""

    def __init__(self, path: str):
        self.path, self.outcomes = Path(path), {}

    def pytest_runtest_logreport(self, report):
        nodeid = str(report.nodeid)
        if not nodeid.startswith(SUITES) or (report.when != "call" and report.passed):
            return
        name = nodeid.split("::", 2)[2]
        if hasattr(report, "wasxfail"):
            self.outcomes[name] = ["xfailed", report.wasxfail]
        elif report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
            self.outcomes[name] = ["failed", message.splitlines()[0][:200]]
        elif report.skipped:
            self.outcomes.setdefault(name, ["skipped", str(report.longrepr[2])])
        else:
            self.outcomes.setdefault(name, ["passed", ""])

    def pytest_sessionfinish(self, session):
        self.path.write_text(yaml.safe_dump(self.outcomes, width=120))
