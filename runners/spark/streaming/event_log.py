"""The event logs of a pipeline's static sources as a Spark stream: a text file per tick (one
event-log step), written beside the checkpoint and read by Spark's own file source a tick per
micro-batch (``maxFilesPerTrigger``), oldest first — each file's modification time is its
tick. With ``Trigger.AvailableNow`` the query stops by itself once the last tick, the end of
input, has been processed.

A tick's file holds a line per chunk of a source's elements, ``<tick> <source> <chunk>`` (the
chunk pickled, in base64), and a line ``<tick>`` alone, which delivers the tick when no source
has elements then. Every row's watermark column is its tick, so Spark's watermark after a
micro-batch is the last tick delivered. The files are written once per checkpoint, and a
restart replays them; a Python data source would cost a Python process on the driver per query
and more per micro-batch.
"""

from __future__ import annotations

import base64
import datetime
import pickle
import posixpath

from pyspark import cloudpickle

from panes.runners.fusion import Chunk

CHUNK = 4096  # elements per line
COMPLETE = "_complete"  # written last; Spark's file source skips names starting with "_"
# Modification time of tick 0, in ms: the file source orders files by it, a tick a second apart.
FIRST_MODIFIED_MS = 1_000_000_000_000
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def tick_time(tick: int) -> datetime.datetime:
    """The watermark column's value for ``tick``: ``tick`` milliseconds after the epoch."""
    return _EPOCH + datetime.timedelta(milliseconds=tick)


def write_event_log(fs, directory: str, bundles: dict, end_tick: int) -> None:
    """Writes the files of ticks 1 to ``end_tick`` into ``directory`` through ``fs``
    (``HadoopFileSystems``), unless a run on the same checkpoint wrote them; ``bundles``: source
    node id -> its elements by tick (``StaticInputs.bundles``)."""
    if fs.exists(posixpath.join(directory, COMPLETE)):
        return
    for tick in range(1, end_tick + 1):
        lines = [str(tick)]
        for source, by_tick in bundles.items():
            records = by_tick.get(tick, [])
            for start in range(0, len(records), CHUNK):
                chunk = cloudpickle.dumps(records[start : start + CHUNK])
                lines.append(f"{tick} {source} {base64.b64encode(chunk).decode('ascii')}")
        path = posixpath.join(directory, f"tick-{tick:08d}.txt")
        with fs.create(path) as out:
            out.write(("\n".join(lines) + "\n").encode("ascii"))
        fs.set_modification_time(path, FIRST_MODIFIED_MS + 1000 * tick)
    fs.create(posixpath.join(directory, COMPLETE)).close()


def event_log_frame(spark, directory: str, ticks_per_batch: int):
    """The ticks' lines as a stream, ``ticks_per_batch`` ticks per micro-batch."""
    return spark.readStream.option("maxFilesPerTrigger", ticks_per_batch).text(directory)


def event_log_decoder(outputs: dict):
    """Decodes the lines (see ``ingest.ingest``): ``outputs`` maps a source node to its output
    collection."""

    def decode(batch, task):
        pushes, last = [], None
        for line in batch.column(0).to_pylist():
            tick, _, rest = line.partition(" ")
            last = max(last or 0, int(tick))
            if rest:
                source, chunk = rest.rsplit(" ", 1)  # a label may hold spaces
                records = pickle.loads(base64.b64decode(chunk))
                pushes.append((outputs[source], Chunk(*zip(*records))))
        return pushes, None if last is None else tick_time(last)

    return decode
