"""A standalone cluster shared by the cluster tests of a test run (started once, slow), and a
Hadoop file system scheme of the tests' own."""

import hadoop_scheme
import pytest
from cluster import StandaloneCluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    with StandaloneCluster(tmp_path_factory.mktemp("spark-worker"), cores=2) as running:
        yield running


@pytest.fixture(scope="session")
def hadoop_uri(spark):
    """``hadoop_uri(local path)``: the path as a ``panesfs://`` URI the test session serves."""
    hadoop_scheme.register(spark)
    return hadoop_scheme.uri
