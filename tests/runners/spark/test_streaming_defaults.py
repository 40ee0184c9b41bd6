"""What a streaming run gets without settings: its state in as many partitions as the session
has cores (or as ``--spark_partitions`` or a ``spark.sql.shuffle.partitions`` the user set
say), not Spark's 200; the checkpoint keeps the first run's choice. A checkpoint on the local
file system is written through Hadoop's FileSystem, unless the session names another way."""

import json

import panes as beam
from panes.runners.spark.streaming.runner import (
    LOCAL_CHECKPOINT_CONF,
    SHUFFLE_PARTITIONS,
    default_partitions,
)
from panes.testing import TestStream
from panes.window import FixedWindows, TimestampedValue


def test_state_partitions_follow_the_session(spark):
    set_by_the_tests = spark.conf.getAll.get(SHUFFLE_PARTITIONS)
    try:
        spark.conf.set(SHUFFLE_PARTITIONS, "4")  # a user's choice, not the cores
        assert default_partitions(spark) == 4
        assert default_partitions(spark, 3) == 3
        spark.conf.unset(SHUFFLE_PARTITIONS)
        assert default_partitions(spark) == spark.sparkContext.defaultParallelism == 2
    finally:
        spark.conf.set(SHUFFLE_PARTITIONS, set_by_the_tests)


def _run(checkpoint, partitions):
    p = beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "checkpoint_location": str(checkpoint),
            "spark_partitions": partitions,
        },
    )
    events = (
        TestStream()
        .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("b", 2), 2)])
        .advance_watermark_to_infinity()
    )
    p | events | beam.WindowInto(FixedWindows(10)) | beam.CombinePerKey(sum)
    return p.run()


def test_a_checkpoint_keeps_the_state_partitions_of_its_first_run(spark, tmp_path):
    checkpoint = tmp_path / "checkpoint"
    _run(checkpoint, 3)
    _run(checkpoint, 5)  # a restart: the state is laid out in 3 partitions
    layout = json.loads((checkpoint / "panes" / "layout.json").read_text())
    assert layout == {"state_partitions": 3, "key_buckets": 48}
    for offsets in (checkpoint / "offsets").glob("[0-9]*"):
        metadata = json.loads(offsets.read_text().splitlines()[1])
        assert metadata["conf"][SHUFFLE_PARTITIONS] == "3"
    state = (checkpoint / "state" / "0").iterdir()
    assert sorted(p.name for p in state if p.name.isdigit()) == ["0", "1", "2"]
    assert spark.conf.get(SHUFFLE_PARTITIONS) == "2"  # the session's own, as it was


def _told(result):
    """The checkpoint file manager the run's query was told to use (None: Spark's choice)."""
    [(name, _)] = LOCAL_CHECKPOINT_CONF.items()
    return result.query._jsq.streamingQuery().sparkSessionForStream().conf().get(name, None)


def _managers(result) -> set:
    """The classes of the file managers that wrote the run's offset and commit logs."""
    query = result.query._jsq.streamingQuery()
    return {
        log.fileManager().getClass().getName() for log in (query.offsetLog(), query.commitLog())
    }


def test_a_local_checkpoint_is_written_through_hadoops_file_system(spark, tmp_path, hadoop_uri):
    [(name, manager)] = LOCAL_CHECKPOINT_CONF.items()
    assert _managers(_run(tmp_path / "local", 2)) == {manager}
    assert spark.conf.get(name, None) is None  # the session's own, as it was
    assert _told(_run(hadoop_uri(tmp_path / "elsewhere"), 2)) is None
    chosen = manager.replace("FileSystemBased", "FileContextBased")  # Spark's default, named
    spark.conf.set(name, chosen)
    try:
        assert _managers(_run(tmp_path / "chosen", 2)) == {chosen}
        assert spark.conf.get(name) == chosen
    finally:
        spark.conf.unset(name)
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()  # spark.hadoop.<name> at the start
    hadoop.set(name, chosen)
    try:
        assert _managers(_run(tmp_path / "hadoop", 2)) == {chosen}
    finally:
        hadoop.unset(name)
