"""The Spark shuffle's buckets, map side to reduce side, without Spark: each key's records come
back whole and in order, whatever the shape of their columns."""

from panes.runners.fusion import Expanded
from panes.runners.spark.keyed import by_key
from panes.runners.spark.shuffle import BATCH, Buckets, _unpickled


def _received(buckets: Buckets, partitions: int) -> dict:
    """What each partition's reduce side takes: key -> its records, in the order shipped."""
    shipped = [*buckets.drain(), *buckets.finish()]
    assert {partition for partition, _ in shipped} <= set(range(partitions))
    received: dict = {}
    for record in shipped:
        for key, records in _unpickled(record):
            received.setdefault(key, []).extend(records)
    return received


def test_records_come_back_per_key_with_positions_of_one_length_and_of_several():
    buckets = Buckets(3)
    keys = ["a", "b", "a", "c", 7]
    positions = [(0, 1, 5), (0, 1, 6), (0, 2), (0, 1, 7, 0), (0, 3, 1)]
    buckets.add_all(keys, positions, [10, 20, 30, 40, 50], [1, 2, 3, 4, 5])
    buckets.add_all(["b"], [(0, 4, 0)], [60], [6])  # one record: a partition gets one index
    assert _received(buckets, 3) == {
        "a": [((0, 1, 5), 10, 1), ((0, 2), 30, 3)],
        "b": [((0, 1, 6), 20, 2), ((0, 4, 0), 60, 6)],
        "c": [((0, 1, 7, 0), 40, 4)],
        7: [((0, 3, 1), 50, 5)],
    }


def test_a_full_bucket_ships_while_filing_and_lazy_columns_are_read_whole():
    buckets = Buckets(2)
    count = BATCH + 5
    positions = Expanded([(0, 0)], [count], nested=True)  # a FlatMap's outputs: (0, 0, k)
    buckets.add_all(["k"] * count, positions, list(range(count)))
    (full,) = buckets.drain()  # before finish()
    ((key, records),) = _unpickled(full)
    assert key == "k"
    assert records == [((0, 0, index), index) for index in range(count)]
    assert list(buckets.finish()) == []


def test_a_map_side_out_of_position_order_ships_each_keys_records_sorted():
    buckets = Buckets(1, ordered=False)
    buckets.add_all(["a", "b", "a"], [(0, 9), (0, 5), (0, 1)], ["late", "b", "early"])
    assert _received(buckets, 1) == {
        "a": [((0, 1), "early"), ((0, 9), "late")],
        "b": [((0, 5), "b")],
    }


def _map_side(keys: list, positions: list) -> list:
    buckets = Buckets(1, ordered=True)
    buckets.add_all(keys, positions, [f"{k}{p}" for k, p in zip(keys, positions)])
    return [*buckets.drain(), *buckets.finish()]


def test_the_reduce_side_joins_each_keys_runs_from_map_sides_in_position_order():
    first_split = _map_side(["a", "b", "a"], [(0, 0, 1), (0, 0, 2), (0, 0, 3)])
    second_split = _map_side(["a", "b"], [(0, 1, 0), (0, 1, 1)])
    interleaved = _map_side(["b", "b"], [(0, 0, 0), (0, 0, 4)])  # overlaps the first split's
    shipped = [*second_split, *interleaved, *first_split]  # fetched in any order
    records_of = by_key(pair for record in shipped for pair in _unpickled(record))
    assert list(records_of) == ["b", "a"]  # by first position: (0, 0, 0), then (0, 0, 1)
    assert [position for position, _ in records_of["a"]] == [(0, 0, 1), (0, 0, 3), (0, 1, 0)]
    assert [position for position, _ in records_of["b"]] == [
        (0, 0, 0),
        (0, 0, 2),
        (0, 0, 4),
        (0, 1, 1),
    ]
