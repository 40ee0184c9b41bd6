"""Faults cost nothing, on a real standalone cluster the test starts (master and worker from
the pip pyspark, on loopback): an executor killed mid-job, a task that fails once, a driver
killed at any step of a commit and rerun. Outputs are exact, user counters count each element
once, and the final names never hold two runs' shards."""

import json
import re

import pytest

from cluster import StandaloneCluster

pytestmark = pytest.mark.slow

LINES = 3000
DRIVER = __import__("pathlib").Path(__file__).with_name("fault_driver.py")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with StandaloneCluster(tmp_path_factory.mktemp("spark-worker"), cores=2) as running:
        yield running


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
    return {path.name: path.read_text().splitlines()
            for path in sorted((work / "out").glob("counts*")) if not path.name.startswith(".")}


def run(cluster, work, scenario, *args) -> dict:
    done = cluster.run_driver(DRIVER, scenario, work, *args)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("scenario", ["executor-killed", "task-fails-once"])
def test_a_lost_executor_or_a_failed_task_changes_neither_output_nor_counters(
        cluster, tmp_path, scenario):
    input_files(tmp_path)
    counters = run(cluster, tmp_path, scenario)
    files = written(tmp_path)
    assert sorted(files) == [f"counts-0000{i}-of-00003" for i in range(3)] + ["counts.SUCCESS"]
    assert sorted(line for lines in files.values() for line in lines) == expected_counts()
    assert counters == {"seen": LINES, "grouped": 7}
    if scenario == "executor-killed":
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
    return (sorted(files) == names + ["counts.SUCCESS"]
            and sorted(line for name in names for line in files[name])
            == sorted(f"{tag} {i}" for i in range(60)))


def test_a_driver_killed_at_any_step_of_a_commit_never_mixes_two_runs(cluster, tmp_path):
    run(cluster, tmp_path, "commit", "old", 4, -1)
    assert complete(tmp_path, "old", 4)
    # The commit's file operations: 1 delete the old marker, 2-5 delete the old shards, 6-7
    # rename the new ones, 8 write the marker, 9 remove the temporary directory. The driver
    # kills itself after the marker is gone, amid the deletes, amid the renames, and after
    # the new marker.
    for kill_at in (1, 3, 6, 8):
        killed = cluster.run_driver(DRIVER, "commit", tmp_path, "new", 2, kill_at)
        assert killed.returncode == -9, killed.stderr[-4000:]
        runs = shards_by_run(tmp_path)
        assert len(runs) <= 1, f"killed at step {kill_at}: two runs under the final names {runs}"
        if (tmp_path / "out" / "counts.SUCCESS").exists():
            assert complete(tmp_path, "old", 4) or complete(tmp_path, "new", 2), kill_at
        leftovers = [p.name for p in (tmp_path / "out").iterdir() if ".panes-temp-" in p.name]
        assert leftovers, "a killed run leaves its temporary directory"
        run(cluster, tmp_path, "commit", "old", 4, -1)  # restore the old output
        assert complete(tmp_path, "old", 4)
        assert not [p for p in (tmp_path / "out").iterdir() if ".panes-temp-" in p.name]
    run(cluster, tmp_path, "commit", "new", 2, -1)
    assert complete(tmp_path, "new", 2)
    assert not re.search(r"panes-temp", " ".join(p.name for p in (tmp_path / "out").iterdir()))
