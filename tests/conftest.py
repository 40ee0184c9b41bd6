"""Shared fixtures: every pipeline a test runs also proves its IR round-trips through JSON."""

import pytest

from panes.ir import from_json, to_json
from panes.pipeline import Pipeline


@pytest.fixture(autouse=True)
def ir_round_trip(monkeypatch):
    """Checks ``from_json(to_json(ir)) == ir`` for every pipeline run during the test."""
    original = Pipeline.to_ir

    def checked(self):
        ir = original(self)
        assert from_json(to_json(ir)) == ir, "IR did not round-trip through JSON"
        return ir

    monkeypatch.setattr(Pipeline, "to_ir", checked)
