"""Shared fixtures: every pipeline a test runs also proves its IR round-trips through JSON.

Two tiers: plain ``pytest`` is the fast one (unit tests, the direct runner, and the Spark tests
marked ``smoke``); ``pytest --full`` (what CI runs) adds every other Spark test and the ``slow``
ones (clusters, faults, fresh installs).
"""

import pytest

from panes.ir import from_json, to_json
from panes.pipeline import Pipeline


@pytest.fixture(autouse=True)
def ir_round_trip(monkeypatch):
    """Checks ``from_json(to_json(ir)) == ir`` for every pipeline run during the test."""
    original = Pipeline.to_ir

    def checked(self):
        ir = original(self)
        assert from_json(to_json(ir)) == ir, "IR did not round-trip through JSON"
        return ir

    monkeypatch.setattr(Pipeline, "to_ir", checked)


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test process (local[2]); the Spark runner picks it up.

    Shuffles get 2 partitions, the cores — what a streaming query's state gets by default,
    and what the batch runner uses: each state partition is a store every micro-batch opens
    and commits, so more would slow each of the many streaming tests. Tests of partitioning
    name their own counts (1 and 7 in the conformance suite)."""
    from panes.runners.spark.session import start_session

    session = start_session(
        "local[2]",
        "panes-tests",
        {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"},
    )
    yield session
    session.stop()


@pytest.fixture
def runner(request):
    """A runner name; tests using it run once per runner in RUNNERS."""
    if request.param == "spark":
        request.getfixturevalue("spark")
    return request.param


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="run the full suite: every Spark test and the slow ones (CI)",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "cluster" in item.fixturenames:
            # One standalone cluster per test process: under ``-n``, its tests share a worker.
            item.add_marker(pytest.mark.xdist_group("cluster"))
    if config.getoption("--full"):
        return
    fast, left_out = [], []
    for item in items:
        (left_out if _full_only(item) else fast).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = fast


def _full_only(item) -> bool:
    """Whether a test belongs to the full tier only: slow, or on Spark and not a smoke test."""
    if item.get_closest_marker("slow"):
        return True
    callspec = getattr(item, "callspec", None)
    on_spark = "spark" in item.fixturenames or (
        callspec is not None and callspec.params.get("runner") == "spark"
    )
    return on_spark and item.get_closest_marker("smoke") is None


def pytest_generate_tests(metafunc):
    if "runner" in metafunc.fixturenames:
        from runners_under_test import RUNNERS

        metafunc.parametrize("runner", RUNNERS, indirect=True)
