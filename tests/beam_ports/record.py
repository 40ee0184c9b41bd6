"""Records what Apache Beam's DirectRunner produces for every case in cases.yaml, running the
stored originals unchanged (only imports of Beam's example modules point at the stored
copies), into expected/<case>.json. Needs the ``beam`` extra (apache-beam).

    python tests/beam_ports/record.py [CASE ...]
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_runner import EXPECTED, Sdk, load_cases, run_case  # noqa: E402


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
    main(sys.argv[1:])
