"""Faults cost nothing, on a real standalone cluster the test starts (master and worker from
the pip pyspark, on loopback): an executor killed mid-job, a task that fails once, a driver
killed at any step of a commit and rerun. Outputs are exact, user counters count each element
once, and the final names never hold two runs' shards."""

import json

import pytest

import panes as beam

pytestmark = pytest.mark.slow

LINES = 3000
DRIVER = __import__("pathlib").Path(__file__).with_name("fault_driver.py")


def expected_counts(keys=7) -> list:
    sums = {key: [0, 0] for key in range(keys)}
    for i in range(LINES):
        sums[i % keys][0] += i
        sums[i % keys][1] += 1
    return sorted(f"{key} {total} {count}" for key, (total, count) in sums.items())


def input_files(work):
    (work / "in").mkdir(parents=True)
    for part in range(4):
        lines = range(part * LINES // 4, (part + 1) * LINES // 4)
        (work / "in" / f"part-{part}.txt").write_text("".join(f"{i}\n" for i in lines))


def written(work) -> dict:
    return {
        path.name: path.read_text().splitlines()
        for path in sorted((work / "out").glob("counts*"))
        if not path.name.startswith(".")
    }


def run(cluster, work, scenario, *args) -> dict:
    done = cluster.run_driver(DRIVER, scenario, work, *args)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_lost_executor_and_failed_tasks_change_neither_output_nor_counters(cluster, tmp_path):
    """Every task's first attempt crashes its Python worker; after the shuffle, an executor
    JVM is killed, losing its map outputs, so part of the map stage runs again."""
    input_files(tmp_path)
    counters = run(cluster, tmp_path, "faults")
    files = written(tmp_path)
    assert sorted(files) == [f"counts-0000{i}-of-00003" for i in range(3)] + ["counts.SUCCESS"]
    assert sorted(line for lines in files.values() for line in lines) == expected_counts()
    assert counters == {"seen": LINES, "grouped": 7}
    assert (tmp_path / "killed").exists()


def shards_by_run(work) -> dict:
    """The shards under the final names, by the run that wrote them (their lines' tag)."""
    runs = {}
    for name, lines in written(work).items():
        if name != "counts.SUCCESS":
            tags = {line.split()[0] for line in lines}
            assert len(tags) <= 1, f"{name} mixes runs: {tags}"
            runs.setdefault(tags.pop() if tags else "empty", []).append(name)
    return runs


def complete(work, tag, shards) -> bool:
    files = written(work)
    names = [f"counts-{i:05d}-of-{shards:05d}" for i in range(shards)]
    return sorted(files) == names + ["counts.SUCCESS"] and sorted(
        line for name in names for line in files[name]
    ) == sorted(f"{tag} {i}" for i in range(60))


def write_directly(work, tag, shards):
    """A complete output of a run ``tag``, written by the direct runner (same commit)."""
    p = beam.Pipeline()
    (
        p
        | beam.Create([f"{tag} {i}" for i in range(60)])
        | beam.io.WriteToText(str(work / "out" / "counts"), num_shards=shards)
    )
    p.run()
    assert complete(work, tag, shards)


def test_a_driver_killed_amid_a_commit_never_mixes_two_runs_and_a_rerun_restores(cluster, tmp_path):
    # The commit's file operations: 1 delete the old marker, 2-5 delete the 4 old shards, 6-7
    # rename the 2 new ones, 8 write the marker, 9 remove the temporary directory. The
    # driver kills itself amid the deletes and amid the renames, over a complete old output.
    for kill_at in (3, 6):
        write_directly(tmp_path, "old", 4)
        killed = cluster.run_driver(DRIVER, "commit", tmp_path, "new", 2, kill_at)
        assert killed.returncode == -9, killed.stderr[-4000:]
        assert not (tmp_path / "out" / "counts.SUCCESS").exists()
        runs = shards_by_run(tmp_path)
        assert len(runs) == 1, f"killed at step {kill_at}: {runs}"
        assert [p for p in (tmp_path / "out").iterdir() if ".panes-temp-" in p.name]
    run(cluster, tmp_path, "commit", "new", 2, -1)
    assert complete(tmp_path, "new", 2)
    assert not [p for p in (tmp_path / "out").iterdir() if "panes-temp" in p.name]
