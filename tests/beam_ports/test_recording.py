"""The recorded outputs in expected/ are what Apache Beam's DirectRunner gives today for the
stored originals (record.py rewrites them)."""

import json

import pytest
from case_runner import EXPECTED, load_cases

pytest.importorskip("apache_beam", reason="records need the beam extra: pip install -e '.[beam]'")


@pytest.mark.slow
@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.name)
def test_beam_still_gives_the_recorded_output(case, tmp_path):
    from record import record

    recorded = json.loads((EXPECTED / f"{case.name}.json").read_text(encoding="utf-8"))
    assert record(case, tmp_path) == recorded
