"""Deterministic benchmark inputs: keyed events (CSV and Parquet) and words (text).

Events are ``key,value,seconds``: 1000 keys, values 0-99, event times spread over an hour and
written in arrival order, each up to 30 s behind the latest so far (bounded out-of-orderness).
Event times are even seconds, so no two events of a key are exactly an odd gap apart: session
windows then mean the same in Beam and in Spark SQL, which differ only on exact ties.
"""

from __future__ import annotations

import random
from pathlib import Path

DATA = Path(__file__).parent / ".data"
KEYS = 1000
SPAN_SECONDS = 3_600
MAX_DELAY_SECONDS = 30
WORDS = [f"w{i}" for i in range(5000)]


def events_csv(size: int, keys: int = KEYS) -> Path:
    path = DATA / (f"events-{size}.csv" if keys == KEYS else f"events-{size}-{keys}keys.csv")
    if not path.exists():
        DATA.mkdir(exist_ok=True)
        rng = random.Random(size)
        temporary = path.with_suffix(".tmp")
        with open(temporary, "w") as out:
            for i in range(size):
                seconds = (
                    max(0, i * SPAN_SECONDS // size - rng.randrange(MAX_DELAY_SECONDS)) // 2 * 2
                )
                out.write(f"k{rng.randrange(keys)},{rng.randrange(100)},{seconds}\n")
        temporary.rename(path)
    return path


def ordered_csv(size: int) -> Path:
    """``key,value,micros`` events in time order, each a microsecond-distinct time over the
    hour: a source read record at a time moves its watermark at every line."""
    path = DATA / f"ordered-{size}.csv"
    if not path.exists():
        DATA.mkdir(exist_ok=True)
        rng = random.Random(size + 2)
        step = SPAN_SECONDS * 1_000_000 // size
        temporary = path.with_suffix(".tmp")
        with open(temporary, "w") as out:
            for i in range(size):
                out.write(f"k{rng.randrange(KEYS)},{rng.randrange(100)},{i * step}\n")
        temporary.rename(path)
    return path


def events_parquet(size: int) -> Path:
    path = DATA / f"events-{size}.parquet"
    if not path.exists():
        import pyarrow.csv as pc
        import pyarrow.parquet as pq

        table = pc.read_csv(
            events_csv(size), read_options=pc.ReadOptions(column_names=["key", "value", "seconds"])
        )
        pq.write_table(table, path)
    return path


def words_text(size: int) -> Path:
    """``size`` words, ten to a line, with a skewed (Zipf-like) frequency."""
    path = DATA / f"words-{size}.txt"
    if not path.exists():
        DATA.mkdir(exist_ok=True)
        rng = random.Random(size + 1)
        weights = [1 / (rank + 1) for rank in range(len(WORDS))]
        temporary = path.with_suffix(".tmp")
        with open(temporary, "w") as out:
            for _ in range(size // 10):
                out.write(" ".join(rng.choices(WORDS, weights, k=10)) + "\n")
        temporary.rename(path)
    return path
