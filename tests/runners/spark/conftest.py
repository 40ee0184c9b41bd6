"""Fixtures of the Spark runner's tests."""

import pytest

import standalone


@pytest.fixture
def standalone_cluster():
    """The master URL of a standalone cluster on loopback, stopped after the test."""
    with standalone.standalone_cluster() as master_url:
        yield master_url
