"""Records which of the suites' tests pass on Beam's own DirectRunner (``beam_baseline.yaml``),
so that panes' runners are held to exactly those, and prints each runner's counts.

    .venv/bin/python tests/beam_runner/record_baseline.py               # Beam's DirectRunner
    .venv/bin/python tests/beam_runner/record_baseline.py direct spark  # panes' runners

Each runner's run is one pytest process over ``tests/beam_runner/suites.yaml`` (every test, on
Spark too: ``--beam-all``); a test that fails on Beam's DirectRunner is recorded with the first
line of its failure.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
BASELINE = HERE / "beam_baseline.yaml"


def run(runner: str) -> dict:
    """Each test's outcome on ``runner``: ``[outcome, message]``, outcome one of passed,
    failed, skipped, xfailed."""
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "outcomes.yaml"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--full",
                f"--beam-runners={runner}",
                "--beam-all",
                f"--beam-record={record}",
                str(HERE / "suites.yaml"),
            ],
            cwd=ROOT,
            check=False,
        )
        return yaml.safe_load(record.read_text())


def main(runners: list) -> None:
    for runner in runners or ["beam"]:
        results = run(runner)
        counts: dict = {}
        for name, (outcome, _) in results.items():
            suite = name.split("/")[1]  # apache_beam/<examples|transforms>/...
            counts[outcome] = counts.get(outcome, 0) + 1
            counts[f"{suite} {outcome}"] = counts.get(f"{suite} {outcome}", 0) + 1
        print(runner, dict(sorted(counts.items())))
        if runner == "beam":
            failed = {
                name: message for name, (outcome, message) in results.items() if outcome == "failed"
            }
            BASELINE.write_text(
                "# Written by record_baseline.py: how many of the suites' tests pass on Beam's own "
                "DirectRunner,\n# and those that do not (left out on panes' runners).\n"
                + yaml.safe_dump(
                    {"passed_on_beam": counts.get("passed", 0), "fails_on_beam": failed},
                    width=100,
                    sort_keys=True,
                )
            )


if __name__ == "__main__":
    main(sys.argv[1:])
