"""The stateful examples on every runner: sessions closed by a timeout are the sessions that
``Sessions(timeout)`` windows give, and batched lookups see every record once, in batches of
at most the batch size."""

import glob
import random
from pathlib import Path

from test_seed_examples import load_example

import panes as beam
from panes.testing import materialize
from panes.window import Sessions, TimestampedValue


def events(seed=3) -> list:
    generator = random.Random(seed)
    out = []
    for user in ("ann", "bob", "cy"):
        second = generator.randrange(3600)
        for _ in range(30):
            second += generator.choice([5, 60, 599, 600, 601, 2400])
            out.append((user, second))
    generator.shuffle(out)
    return out


def written(prefix: Path) -> list:
    return sorted(
        line for path in glob.glob(f"{prefix}*") for line in Path(path).read_text().splitlines()
    )


def sessions_by_windows(all_events, timeout) -> list:
    """The same sessions from ``Sessions`` windows and a GroupByKey, on the direct runner."""
    p = beam.Pipeline()
    handle = materialize(
        p
        | beam.Create([TimestampedValue((user, t), t) for user, t in all_events])
        | beam.WindowInto(Sessions(timeout))
        | beam.GroupByKey()
    )
    p.run()
    return sorted(
        f"{user} {min(times):g} {max(times) + timeout:g} {len(times)}"
        for user, times in handle.values
    )


def test_sessions_closed_by_a_timeout_are_the_session_windows(runner, tmp_path):
    example = load_example("session_timeout")
    all_events = events()
    source = tmp_path / "events.csv"
    source.write_text("".join(f"{user},{second}\n" for user, second in all_events))
    with beam.Pipeline(runner=runner) as p:
        example.build(p, str(source), str(tmp_path / "out" / "sessions"))
    lines = written(tmp_path / "out" / "sessions")
    assert lines == sessions_by_windows(all_events, example.TIMEOUT)
    assert len(lines) > 6  # the gaps split each user's events into several sessions


def test_batched_lookups_see_every_order_once_in_batches(runner, tmp_path):
    example = load_example("batched_lookups")
    orders = [(f"c{n % 3}", n) for n in range(230)]
    source = tmp_path / "orders.csv"
    source.write_text("".join(f"{customer},{order}\n" for customer, order in orders))
    with beam.Pipeline(runner=runner) as p:
        example.build(p, str(source), str(tmp_path / "out" / "statuses"))
    result = p.result
    lines = written(tmp_path / "out" / "statuses")
    assert lines == sorted(
        f"{customer} {order} {'shipped' if order % 2 else 'pending'}" for customer, order in orders
    )
    # c0 has 77 orders, c1 and c2 77 and 76: two batches of at most 50 each.
    assert result.metrics().counter("calls") == 6
