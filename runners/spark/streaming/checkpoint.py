"""What panes keeps beside Spark's checkpoint: the pipeline's structure, to refuse a restart
with another pipeline, and one commit record per micro-batch whose outputs are published.

Spark's checkpoint holds the sources' offsets and the groupings' state; its commit log says
which micro-batches finished. panes' commit records are written by the sink step of a
micro-batch once its outputs are in place, so a micro-batch Spark replays after a crash finds
its record and is not published twice; the records also carry each micro-batch's metrics, so
metrics count committed micro-batches only, across restarts.
"""

from __future__ import annotations

import json
import os
import pickle

from panes.errors import PipelineConstructionError
from panes.ir.codec import encode
from panes.ir.windowing import WindowingStrategy
from panes.metrics import MetricsContainer
from panes.runners.keyed import is_keyed


def structure(ir) -> dict:
    """What must not change across a restart: each node's kind, inputs and outputs, and the
    windowing of each collection a keyed node reads (user code may change: that is a fix)."""
    described = {}
    for node in ir.nodes.values():
        entry = {"kind": node.kind, "inputs": list(node.inputs), "outputs": dict(node.outputs)}
        if is_keyed(ir, node):
            windowing = ir.pcollections[node.inputs[0]].windowing
            entry["windowing"] = _without_code(encode(windowing, WindowingStrategy))
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
    """Sentences naming what differs between two structures."""
    found = [f"transform '{node}' was removed" for node in before if node not in after]
    found += [f"transform '{node}' was added" for node in after if node not in before]
    for node in before:
        if node in after and before[node] != after[node]:
            fields = [
                name
                for name in ("kind", "inputs", "outputs", "windowing")
                if before[node].get(name) != after[node].get(name)
            ]
            found.append(f"the {' and '.join(fields)} of '{node}' changed")
    return found


class CheckpointStore:
    """panes' part of a checkpoint directory (a local path)."""

    def __init__(self, location: str):
        self.root = os.path.join(location, "panes")
        self.commits = os.path.join(self.root, "commits")
        os.makedirs(self.commits, exist_ok=True)

    def check_structure(self, ir) -> None:
        """Records the pipeline's structure on the first run; refuses a different one later."""
        path = os.path.join(self.root, "pipeline.json")
        current = structure(ir)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stored:
                found = changes(json.load(stored), current)
            if found:
                raise PipelineConstructionError(
                    f"the checkpoint at {os.path.dirname(self.root)} belongs to a pipeline of "
                    f"another structure: {'; '.join(found)}. Restart from a new "
                    f"--checkpoint_location, or undo the change"
                )
            return
        _write_atomically(path, json.dumps(current, indent=1, sort_keys=True).encode())

    def key_buckets(self, default: int) -> int:
        """How many buckets the groupings' keys fall into: ``default`` on the first run, what
        the first run chose afterwards (the state is laid out by it)."""
        path = os.path.join(self.root, "layout.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stored:
                return json.load(stored)["key_buckets"]
        _write_atomically(path, json.dumps({"key_buckets": default}).encode())
        return default

    def is_committed(self, batch_id: int) -> bool:
        return os.path.exists(self._commit_path(batch_id))

    def commit(self, batch_id: int, metrics: MetricsContainer) -> None:
        _write_atomically(self._commit_path(batch_id), pickle.dumps(metrics))

    def metrics(self) -> MetricsContainer:
        """The metrics of every committed micro-batch."""
        total = MetricsContainer()
        for name in sorted(os.listdir(self.commits)):
            if name.endswith(".metrics"):
                with open(os.path.join(self.commits, name), "rb") as record:
                    total.merge(pickle.load(record))
        return total

    def _commit_path(self, batch_id: int) -> str:
        return os.path.join(self.commits, f"{batch_id:012d}.metrics")


def _write_atomically(path: str, data: bytes) -> None:
    temporary = f"{path}.tmp"
    with open(temporary, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
