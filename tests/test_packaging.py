"""The distribution: every package is shipped, and the base install runs the direct runner,
local text files included, with none of the Spark and Parquet extras' packages."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"panes": ROOT / "sdk", "panes.runners": ROOT / "runners"}


def _packages_on_disk() -> set:
    found = set()
    for name, folder in FOLDERS.items():
        for init in folder.rglob("__init__.py"):
            if ".venv" in init.parts:
                continue
            relative = init.parent.relative_to(folder).parts
            found.add(".".join((name, *relative)))
    return found


def test_pyproject_lists_every_package():
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11+")
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    assert listed == _packages_on_disk()


WINDOWED = textwrap.dedent("""
    import importlib.util
    import panes as beam
    from panes.errors import PipelineConstructionError
    from panes.testing import materialize
    from panes.window import FixedWindows, TimestampedValue

    p = beam.Pipeline()
    sums = (p | beam.Create([TimestampedValue(("a", i), i) for i in range(20)])
            | beam.WindowInto(FixedWindows(10)) | beam.CombinePerKey(sum))
    out = materialize(sums)
    p.run()
    print(sorted(value for value in out.values))
    print([m for m in ("pyspark", "pandas", "pyarrow") if importlib.util.find_spec(m)])
    try:
        beam.Pipeline(runner="spark")
    except PipelineConstructionError as error:
        print(error)
    remote = beam.Pipeline()
    remote | "ReadLogs" >> beam.io.ReadFromText("s3://bucket/logs/*.txt")
    try:
        remote.run()
    except Exception as error:
        print(error)
""")


@pytest.mark.slow
def test_base_install_runs_the_direct_runner_without_spark(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # A test process that started Spark may have put packages on PYTHONPATH: the fresh venv must
    # install and see only its own (pip would otherwise count cloudpickle there as installed).
    env = {
        name: value
        for name, value in os.environ.items()
        if name != "PYTHONPATH" and not name.startswith(("SPARK", "PYSPARK"))
    }
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(ROOT)],
        check=True,
        capture_output=True,
        env=env,
        timeout=600,
    )
    done = subprocess.run(
        [str(python), "-c", WINDOWED],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 4, done.stdout
    values, installed, error, remote = done.stdout.splitlines()
    assert values == "[('a', 45), ('a', 145)]"
    assert installed == "[]"
    assert (
        error == "the spark runner needs pyspark, which is not installed: "
        "pip install 'panes[spark]'"
    )
    # Without pyarrow only local paths work; any other scheme names the extra that reads it.
    assert "ReadLogs" in remote
    assert "s3:// paths need pyarrow's file systems: pip install 'panes[parquet]'" in remote
    # The README's first command: the word count example reads and writes local text files.
    counted = subprocess.run(
        [
            str(python),
            str(ROOT / "examples" / "wordcount.py"),
            "--output",
            str(tmp_path / "counts"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert counted.returncode == 0, counted.stderr
    assert "most frequent:" in counted.stdout
    assert list(tmp_path.glob("counts-00000-of-*.txt")) and (tmp_path / "counts.SUCCESS").exists()
