"""``panesfs://cluster/<path>``: a file system scheme only Hadoop knows — its view file system
under a scheme of its own, every path falling back to the local one — so Spark's readers and
writers and panes' Hadoop calls serve it, never Python's local file functions."""

from pathlib import Path

SCHEME = "panesfs"
# As ``spark_conf`` (``--spark_conf``) of a session panes starts.
SPARK_CONF = {
    f"spark.hadoop.fs.{SCHEME}.impl": "org.apache.hadoop.fs.viewfs.ViewFileSystemOverloadScheme",
    "spark.hadoop.fs.viewfs.mounttable.cluster.linkFallback": "file:///",
}


def uri(path) -> str:
    """The local ``path`` (absolute) as a URI of the scheme."""
    return f"{SCHEME}://cluster{Path(path)}"


def register(spark) -> None:
    """Registers the scheme in a running session's Hadoop configuration."""
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for name, value in SPARK_CONF.items():
        conf.set(name.removeprefix("spark.hadoop."), value)
