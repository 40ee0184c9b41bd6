"""Publishing shards, on every runner: a rerun replaces the previous output whatever its shard
count, a failed run leaves it as it was, the completion marker comes last, and what a killed
run left is removed — never anything else beside the prefix. An output is its shards and its
marker, nothing hidden beside them."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.io import WriteToParquet, WriteToText

KILLED_WRITE = Path(__file__).with_name("killed_write.py")


def visible(directory) -> list:
    return sorted(os.listdir(directory))


def write(runner, path, lines, num_shards, fail_on=None, header=None):
    def check(line):
        if line == fail_on:
            raise ValueError("boom")
        return line

    p = beam.Pipeline(runner=runner)
    (
        p
        | beam.Create(lines)
        | beam.Map(check)
        | WriteToText(str(path), num_shards=num_shards, header=header)
    )
    p.run()


def test_a_rerun_with_fewer_shards_removes_every_old_shard(tmp_path, runner):
    write(runner, tmp_path / "out", [f"old {i}" for i in range(40)], 4)
    assert visible(tmp_path) == [f"out-0000{i}-of-00004" for i in range(4)] + ["out.SUCCESS"]
    write(runner, tmp_path / "out", [f"new {i}" for i in range(10)], 2)
    assert visible(tmp_path) == [f"out-0000{i}-of-00002" for i in range(2)] + ["out.SUCCESS"]
    lines = [
        line
        for i in range(2)
        for line in (tmp_path / f"out-0000{i}-of-00002").read_text().splitlines()
    ]
    assert lines == [f"new {i}" for i in range(10)]


def test_a_failed_run_leaves_the_previous_output_and_its_marker(tmp_path, runner):
    write(runner, tmp_path / "out", ["a", "b", "c"], 2)
    before = {name: (tmp_path / name).read_bytes() for name in visible(tmp_path)}
    with pytest.raises(UserCodeError):
        write(runner, tmp_path / "out", ["x", "y", "z"], 3, fail_on="y")
    assert {name: (tmp_path / name).read_bytes() for name in visible(tmp_path)} == before


def test_what_a_killed_run_left_is_removed_and_nothing_beside_the_prefix(tmp_path, runner):
    leftover = tmp_path / (".panes-temp-out-" + "ab" * 16)
    leftover.mkdir()
    (leftover / "shard").write_text("half written")
    others = {
        ".panes-temp-outer-" + "cd" * 16: None,
        "out-notes.txt": "keep",
        "out2-00000-of-00001": "keep",
        "outer-00000-of-00001": "keep",
    }
    for name, text in others.items():
        if text is None:
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text(text)
    write(runner, tmp_path / "out", ["a"], 1)
    assert visible(tmp_path) == sorted(["out-00000-of-00001", "out.SUCCESS", *others])
    assert (tmp_path / "out.SUCCESS").read_bytes() == b""


def test_every_shard_is_written_even_without_records(tmp_path, runner):
    write(runner, tmp_path / "empty", [], 3)
    write(runner, tmp_path / "headed", [], 2, header="a,b")
    assert [(tmp_path / f"empty-0000{i}-of-00003").read_text() for i in range(3)] == [""] * 3
    assert [(tmp_path / f"headed-0000{i}-of-00002").read_text() for i in range(2)] == ["a,b\n"] * 2


def test_parquet_shards_without_records_still_have_the_schema(tmp_path, runner):
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("n", pa.int64())])
    p = beam.Pipeline(runner=runner)
    p | beam.Create([{"n": 1}]) | WriteToParquet(str(tmp_path / "rows"), schema, num_shards=3)
    p.run()
    tables = [pq.read_table(tmp_path / f"rows-0000{i}-of-00003.parquet") for i in range(3)]
    assert [table.schema.names for table in tables] == [["n"]] * 3
    assert sum(table.num_rows for table in tables) == 1


def start_write(runner, prefix, ready=None) -> subprocess.Popen:
    """``killed_write.py`` in a process group of its own (its JVM and Python workers too)."""
    arguments = [sys.executable, str(KILLED_WRITE), runner, str(prefix)]
    return subprocess.Popen(
        arguments + ([str(ready)] if ready else []),
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_until_writing(process: subprocess.Popen, ready: Path) -> None:
    deadline = time.monotonic() + 300
    while not ready.exists():
        assert process.poll() is None, process.stdout.read()[-3000:]
        assert time.monotonic() < deadline, "the write never started"
        time.sleep(0.2)


def test_after_runs_killed_mid_write_a_rerun_leaves_only_the_output_and_its_marker(
    tmp_path, runner
):
    out = tmp_path / "out"
    ready = [tmp_path / f"writing-{attempt}" for attempt in range(2)]
    killed = [start_write(runner, out / "result", flag) for flag in ready]
    for process, flag in zip(killed, ready):
        wait_until_writing(process, flag)
    for process in killed:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    assert len([name for name in visible(out) if name.startswith(".panes-temp-result-")]) == 2
    done = start_write(runner, out / "result")
    assert done.wait(timeout=300) == 0, done.stdout.read()[-3000:]
    assert visible(out) == ["result-00000-of-00002", "result-00001-of-00002", "result.SUCCESS"]
    lines = [
        line
        for i in range(2)
        for line in (out / f"result-0000{i}-of-00002").read_text().splitlines()
    ]
    assert sorted(lines) == sorted(f"line {i}" for i in range(1000))
