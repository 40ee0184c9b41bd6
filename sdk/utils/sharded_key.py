"""A key split into shards (Beam's ``apache_beam.utils.sharded_key``): what
``GroupIntoBatches.WithShardedKey`` keys by, so that one hot key's batches form in parallel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ShardedKey:
    """A user ``key`` and an opaque ``shard_id``; equal when both are."""

    key: Any
    shard_id: bytes

    def __repr__(self) -> str:
        return f"({self.key!r}, {self.shard_id!r})"
