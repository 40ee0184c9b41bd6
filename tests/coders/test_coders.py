"""Coders as Beam's: standard encodings, the registry, a registered key coder deciding which
keys group together, and text IO through a coder."""

import json

import pytest

import panes as beam
from panes import coders
from panes.testing import materialize
from panes.typehints import with_output_types


@pytest.mark.parametrize(
    "coder, value, encoded",
    [
        (coders.VarIntCoder(), 300, bytes.fromhex("ac02")),
        (coders.VarIntCoder(), -1, bytes.fromhex("ffffffffffffffffff01")),
        (coders.FloatCoder(), 1.5, bytes.fromhex("3ff8000000000000")),
        (coders.StrUtf8Coder(), "né", "né".encode()),
        (coders.BytesCoder(), b"\x00", b"\x00"),
        (coders.BooleanCoder(), True, b"\x01"),
    ],
)
def test_standard_coders_encode_as_beams(coder, value, encoded):
    assert coder.encode(value) == encoded
    assert coder.decode(encoded) == value
    assert coder.is_deterministic()


def test_the_registry_gives_coders_by_type():
    assert coders.registry.get_coder(int) == coders.VarIntCoder()
    pair = coders.registry.get_coder(tuple[str, int])
    assert pair.decode(pair.encode(("a", 7))) == ("a", 7)
    assert isinstance(coders.registry.get_coder(object), coders.FastPrimitivesCoder)
    with pytest.raises(TypeError, match="needs a Coder class"):
        coders.registry.register_coder(int, coders.VarIntCoder())


class Player:
    """A key without __eq__: only its registered coder makes two of them the same key."""

    def __init__(self, name):
        self.name = name


class PlayerCoder(coders.Coder):
    def encode(self, player):
        return player.name.encode()

    def decode(self, encoded):
        return Player(encoded.decode())

    def is_deterministic(self):
        return True


@with_output_types(tuple[Player, int])
def parse(line):
    name, points = line.split(",")
    return Player(name), int(points)


def test_a_registered_key_coder_decides_which_keys_group(runner, monkeypatch):
    monkeypatch.setattr(coders.registry, "custom_types", [])
    coders.registry.register_coder(Player, PlayerCoder)
    p = beam.Pipeline(runner=runner)
    pairs = p | beam.Create(["joe,10", "ann,5", "joe,20"]) | beam.Map(parse)
    totals = materialize(
        pairs | beam.CombinePerKey(sum) | "Sums" >> beam.Map(lambda kv: (kv[0].name, kv[1]))
    )
    groups = materialize(
        pairs | beam.GroupByKey() | "Groups" >> beam.Map(lambda kv: (kv[0].name, sorted(kv[1])))
    )
    p.run()
    assert sorted(totals.values) == [("ann", 5), ("joe", 30)]
    assert sorted(groups.values) == [("ann", [5]), ("joe", [10, 20])]


class JsonCoder(coders.Coder):
    def encode(self, value):
        return json.dumps(value).encode()

    def decode(self, encoded):
        return json.loads(encoded)


def test_text_io_reads_and_writes_through_a_coder(runner, tmp_path):
    (tmp_path / "in.jsonl").write_text('{"n": 1}\n{"n": 2}\n')
    p = beam.Pipeline(runner=runner)
    (
        p
        | beam.io.ReadFromText(str(tmp_path / "in.jsonl"), coder=JsonCoder())
        | beam.Map(lambda record: {"double": record["n"] * 2})
        | beam.io.WriteToText(str(tmp_path / "out"), coder=JsonCoder(), shard_name_template="")
    )
    p.run()
    assert sorted((tmp_path / "out").read_text().splitlines()) == ['{"double": 2}', '{"double": 4}']
