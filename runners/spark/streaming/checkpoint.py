"""What panes keeps beside Spark's checkpoint: the pipeline's structure, to refuse a restart
with another pipeline, the layout of its state, and one commit record per micro-batch whose
outputs are published.

Spark's checkpoint holds the sources' offsets and the groupings' state; its commit log says
which micro-batches finished. panes' commit records are written by the sink step of a
micro-batch once its outputs are in place, so a micro-batch Spark replays after a crash finds
its record and is not published twice; each record carries the metrics of every committed
micro-batch so far, so metrics count committed micro-batches only, across restarts. Everything
goes through Hadoop's ``FileSystem`` (``panes.runners.spark.hadoop``): a checkpoint may be on
any file system Spark's own checkpoint may be on.
"""

from __future__ import annotations

import functools
import json
import pickle
import posixpath

from panes.errors import PipelineConstructionError
from panes.ir.codec import encode
from panes.ir.windowing import WindowingStrategy
from panes.metrics import MetricsContainer
from panes.runners.keyed import is_keyed
from panes.transforms.userstate import TimerSpec

# Commit records kept behind the newest: Spark replays at most the micro-batch after its last
# commit, so older records are never read again (Spark keeps 100 of its own log entries).
RETAINED_RECORDS = 100
_RECORD_SUFFIX = ".metrics"
SPARK_AGGREGATION = "spark-aggregation"
_PATHS = {
    None: "on panes' windowing engine",
    SPARK_AGGREGATION: "as Spark's streaming aggregation (docs/streaming.md)",
}


def structure(ir, lowered=frozenset()) -> dict:
    """What must not change across a restart: each node's kind, inputs and outputs, the
    windowing of each collection a keyed node reads, a stateful DoFn's state cells (name ->
    kind) and timers (name -> time domain), which its keys' stored state holds (user code may
    change: that is a fix), and which groupings run as Spark's aggregation (``lowered``),
    whose state is Spark's, not panes'."""
    described = {}
    for node in ir.nodes.values():
        entry = {"kind": node.kind, "inputs": list(node.inputs), "outputs": dict(node.outputs)}
        if node.id in lowered:
            entry["path"] = SPARK_AGGREGATION
        if is_keyed(ir, node):
            windowing = ir.pcollections[node.inputs[0]].windowing
            entry["windowing"] = _without_code(encode(windowing, WindowingStrategy))
        if ir.is_stateful(node):
            entry["state"] = {spec.name: spec.kind for spec in node.payload["state_specs"]}
            entry["timers"] = {
                spec.name.removeprefix(TimerSpec.prefix): spec.time_domain
                for spec in node.payload["timer_specs"]
            }
        described[node.id] = entry
    return described


def _without_code(encoded):
    if isinstance(encoded, dict):
        if "$pickle" in encoded:
            return "<user code>"
        return {key: _without_code(value) for key, value in encoded.items()}
    if isinstance(encoded, list):
        return [_without_code(value) for value in encoded]
    return encoded


def changes(before: dict, after: dict) -> list:
    """Sentences naming what differs between two structures: transforms renamed (one of the
    same shape — kind, outputs, windowing and what feeds it — under another label), removed or
    added, and the kind, inputs, outputs, windowing, state cells or timers of a transform
    kept."""
    renamed = _renamed(before, after)
    found = [f"transform '{old}' was renamed to '{new}'" for old, new in renamed.items()]
    found += [f"transform '{node}' was removed" for node in before.keys() - after - renamed.keys()]
    found += [
        f"transform '{node}' was added" for node in after.keys() - before - set(renamed.values())
    ]
    fed_before, fed_after = _feeds(before, renamed), _feeds(after, {})
    for node in before.keys() & after.keys():
        old, new = before[node], after[node]
        found += [
            f"the {name} of '{node}' changed"
            for name, differs in (
                ("kind", old["kind"] != new["kind"]),
                ("inputs", fed_before[node] != fed_after[node]),
                ("outputs", sorted(old["outputs"]) != sorted(new["outputs"])),
            )
            if differs
        ]
        if old.get("path") != new.get("path"):
            ran, would_run = _PATHS[old.get("path")], _PATHS[new.get("path")]
            found.append(f"'{node}' ran {ran} and would now run {would_run}")
        if old.get("windowing") != new.get("windowing"):
            found.append(
                f"the windowing of '{node}' changed "
                f"({', '.join(_differing(old.get('windowing'), new.get('windowing')))})"
            )
        found += [
            f"the {noun} of '{node}' changed ({', '.join(differences)})"
            for noun, field in (("state cells", "state"), ("timers", "timers"))
            if (differences := _spec_changes(old.get(field), new.get(field)))
        ]
    return sorted(found)


def _differing(before, after) -> list:
    """The fields of a windowing strategy that differ."""
    before, after = before or {}, after or {}
    return sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def _spec_changes(before, after) -> list:
    """What differs between two ``name -> kind`` (or time domain) maps of a stateful DoFn."""
    before, after = before or {}, after or {}
    found = []
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            found.append(f"'{name}' removed")
        elif name not in before:
            found.append(f"'{name}' added")
        elif before[name] != after[name]:
            found.append(f"'{name}' changed from {before[name]} to {after[name]}")
    return found


def _feeds(described: dict, renamed: dict) -> dict:
    """Each transform's inputs as ``(producer, output tag)``, producers under ``renamed``
    labels."""
    producers = {
        collection: (renamed.get(node, node), tag)
        for node, entry in described.items()
        for tag, collection in entry["outputs"].items()
    }
    return {
        node: [producers.get(collection, (collection, None)) for collection in entry["inputs"]]
        for node, entry in described.items()
    }


def _renamed(before: dict, after: dict) -> dict:
    """Old label -> new label of the transforms that changed label only."""
    shapes_before, shapes_after = _shapes(before), _shapes(after)
    added = [node for node in after if node not in before]
    renamed: dict = {}
    for node in before:
        if node not in after:
            match = next(
                (
                    new
                    for new in added
                    if shapes_after[new] == shapes_before[node] and new not in renamed.values()
                ),
                None,
            )
            if match is not None:
                renamed[node] = match
    return renamed


def _shapes(described: dict) -> dict:
    """Each transform's shape: what it is and what feeds it, labels left out."""
    producers = {
        collection: (node, tag)
        for node, entry in described.items()
        for tag, collection in entry["outputs"].items()
    }
    shapes: dict = {}

    def shape(node):
        if node not in shapes:
            entry = described[node]
            shapes[node] = (
                entry["kind"],
                tuple(sorted(entry["outputs"])),
                json.dumps(
                    [entry.get(field) for field in ("windowing", "state", "timers")],
                    sort_keys=True,
                ),
                tuple(
                    (shape(producers[pc][0]), producers[pc][1]) if pc in producers else pc
                    for pc in entry["inputs"]
                ),
            )
        return shapes[node]

    for node in described:
        shape(node)
    return shapes


class CheckpointStore:
    """panes' part of a checkpoint directory, through ``fs`` (``HadoopFileSystems``)."""

    def __init__(self, fs, location: str):
        self.fs = fs
        self.root = posixpath.join(location, "panes")
        self.commits = posixpath.join(self.root, "commits")
        self._structure = posixpath.join(self.root, "pipeline.json")

    def check_structure(self, ir, lowered=frozenset()) -> None:
        """Records the pipeline's structure on the first run; refuses a different one later."""
        current = structure(ir, lowered)
        if self._recorded is not None:
            found = changes(self._recorded, current)
            if found:
                raise PipelineConstructionError(
                    f"the checkpoint at {posixpath.dirname(self.root)} belongs to a pipeline of "
                    f"another structure: {'; '.join(found)}. Restart from a new "
                    f"--checkpoint_location, or undo the change"
                )
            return
        self._write(self._structure, json.dumps(current, indent=1, sort_keys=True).encode())

    def lowered(self) -> frozenset | None:
        """The groupings the checkpoint's pipeline ran as Spark's aggregation; None for a new
        checkpoint."""
        if self._recorded is None:
            return None
        return frozenset(label for label, entry in self._recorded.items() if entry.get("path"))

    @functools.cached_property
    def _recorded(self) -> dict | None:
        """The structure the checkpoint's first run recorded (None: a new checkpoint), read
        once."""
        if not self.fs.exists(self._structure):
            return None
        return json.loads(self.fs.read(self._structure))

    def layout(self, partitions: int, buckets_per_partition: int) -> tuple:
        """``(state partitions, key buckets)``: from ``partitions`` on the first run, what the
        first run chose afterwards (Spark keeps the state in that many partitions, and panes
        lays keys out in that many buckets)."""
        path = posixpath.join(self.root, "layout.json")
        if self.fs.exists(path):
            stored = json.loads(self.fs.read(path))
            return stored["state_partitions"], stored["key_buckets"]
        chosen = {"state_partitions": partitions, "key_buckets": partitions * buckets_per_partition}
        self._write(path, json.dumps(chosen).encode())
        return chosen["state_partitions"], chosen["key_buckets"]

    def is_committed(self, batch_id: int) -> bool:
        return self.fs.exists(self._record(batch_id))

    def commit(self, batch_id: int, metrics: MetricsContainer) -> None:
        """Records ``batch_id`` as published, with the metrics of every micro-batch so far."""
        self._write(self._record(batch_id), pickle.dumps(metrics))
        stale = self._record(batch_id - RETAINED_RECORDS)
        if batch_id >= RETAINED_RECORDS and self.fs.exists(stale):
            self.fs.delete([stale])

    def metrics(self) -> MetricsContainer:
        """The metrics of every committed micro-batch: those of the newest record."""
        if not self.fs.exists(self.commits):
            return MetricsContainer()
        records = [
            name for name in self.fs.list_directory(self.commits) if name.endswith(_RECORD_SUFFIX)
        ]
        if not records:
            return MetricsContainer()
        return pickle.loads(self.fs.read(posixpath.join(self.commits, max(records))))

    def _record(self, batch_id: int) -> str:
        return posixpath.join(self.commits, f"{batch_id:012d}{_RECORD_SUFFIX}")

    def _write(self, path: str, data: bytes) -> None:
        """Writes ``path`` whole or not at all: a temporary file renamed into place."""
        temporary = f"{path}.tmp"
        with self.fs.create(temporary) as out:
            out.write(data)
        if self.fs.exists(path):
            self.fs.delete([path])
        self.fs.rename([temporary], [path])
