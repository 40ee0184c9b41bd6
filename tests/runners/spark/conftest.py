"""A standalone cluster shared by the cluster tests of a test run (started once, slow)."""

import pytest
from cluster import StandaloneCluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    with StandaloneCluster(tmp_path_factory.mktemp("spark-worker"), cores=2) as running:
        yield running
