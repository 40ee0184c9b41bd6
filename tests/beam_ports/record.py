"""Records what Apache Beam's DirectRunner produces for every case in cases.yaml, running
Beam's files unchanged (only imports of Beam's example modules point at the package they are
copied into at run time), into expected/<case>.json. Needs the ``beam`` extra (apache-beam).
``--manifest`` rewrites tests/beam_files.sha256 for the files the cases use, as installed.

    python tests/beam_ports/record.py [CASE ...]
    python tests/beam_ports/record.py --manifest
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from beam_files import write_manifest  # noqa: E402
from case_runner import EXPECTED, Sdk, files_used, load_cases, run_case  # noqa: E402


def record(case, workdir: Path) -> dict:
    import apache_beam

    return {
        "recorded_with": f"apache-beam {apache_beam.__version__} DirectRunner",
        **run_case(case, Sdk("apache_beam", "DirectRunner"), workdir),
    }


def main(names) -> None:
    logging.getLogger().setLevel(logging.ERROR)
    for case in load_cases():
        if names and case.name not in names:
            continue
        with tempfile.TemporaryDirectory() as workdir:
            result = record(case, Path(workdir))
        (EXPECTED / f"{case.name}.json").write_text(
            json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"recorded {case.name}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--manifest"]:
        write_manifest(files_used(load_cases()))
    else:
        main(sys.argv[1:])
