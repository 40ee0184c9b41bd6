"""Apache Beam's own pipelines and tests (cases.yaml), ported by changing their import lines
only, give on every runner what Apache Beam's DirectRunner gives for the originals."""

import pytest
from beam_files import manifest
from case_runner import Sdk, expected_of, files_used, load_cases, run_case


@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.name)
def test_the_port_gives_beams_output(case, runner, tmp_path, request):
    if pending := case.pending_on(runner):
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"pending: {pending}"))
    ship = None
    if runner == "spark":  # Spark's workers import the ported modules, as --py-files
        ship = request.getfixturevalue("spark").sparkContext.addPyFile
    rule = (case.differs or {}).get("rule", "Apache Beam's DirectRunner's output")
    assert run_case(case, Sdk("panes", runner), tmp_path, ship) == expected_of(case), rule


def test_the_manifest_lists_the_beam_files_the_cases_use():
    assert set(manifest()) == files_used(load_cases()), (
        "tests/beam_files.sha256 is stale: python tests/beam_ports/record.py --manifest"
    )
