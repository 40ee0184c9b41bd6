"""Shared fixtures: every pipeline a test runs also proves its IR round-trips through JSON."""

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
    """The one SparkSession of the test process (local[2]); the Spark runner picks it up."""
    from panes.runners.spark.session import start_session

    session = start_session("local[2]", "panes-tests", {"spark.ui.enabled": "false",
                                                         "spark.sql.shuffle.partitions": "4"})
    yield session
    session.stop()


@pytest.fixture
def runner(request):
    """A runner name; tests using it run once per runner in RUNNERS."""
    if request.param == "spark":
        request.getfixturevalue("spark")
    return request.param


def pytest_generate_tests(metafunc):
    if "runner" in metafunc.fixturenames:
        from runners_under_test import RUNNERS

        metafunc.parametrize("runner", RUNNERS, indirect=True)
