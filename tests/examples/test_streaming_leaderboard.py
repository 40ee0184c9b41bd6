"""The streaming leaderboard example over three files, one per micro-batch: early, on-time and
late panes as its docstring describes, published once each."""

import glob
import importlib.util
import os
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "streaming_leaderboard.py"
MINUTE = 60
FILES = [
    # batch 0, watermark -inf: red's 4 events make an early pane
    [
        ("ann", "red", 1, 0),
        ("bob", "red", 2, 10),
        ("cy", "blue", 10, 10),
        ("ann", "red", 3, 20),
        ("dee", "blue", 20, 20),
        ("bob", "red", 4, 30),
    ],
    # batch 1, watermark 25 min: the second hour starts
    [("ann", "red", 5, 70), ("cy", "blue", 7, 75), ("dee", "blue", 8, 80)],
    # batch 2, watermark 75 min: the first hour is on time, then red's straggler is late
    [("bob", "red", 100, 50), ("cy", "blue", 1, 130), ("ann", "red", 2, 125)],
]


def _load():
    spec = importlib.util.spec_from_file_location("streaming_leaderboard", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_leaderboard_publishes_early_on_time_and_late_panes(spark, tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    for index, lines in enumerate(FILES):
        path = events / f"events-{index}.csv"
        path.write_text(
            "".join(
                f"{user},{team},{score},{minute * MINUTE}\n" for user, team, score, minute in lines
            )
        )
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    result = _load().run(
        str(events),
        str(tmp_path / "scores" / "panes"),
        [f"--checkpoint_location={tmp_path / 'checkpoint'}", "--trigger_interval=available_now"],
    )
    assert result.state == "DONE"
    published = sorted(
        line
        for path in glob.glob(str(tmp_path / "scores" / "panes-*"))
        for line in Path(path).read_text().splitlines()
    )
    assert published == sorted(
        [
            "red [0,3600) EARLY 0 10",
            "red [0,3600) ON_TIME 1 10",
            "blue [0,3600) ON_TIME 0 30",
            "red [0,3600) LATE 2 110",
            "red [3600,7200) ON_TIME 0 5",
            "blue [3600,7200) ON_TIME 0 15",
        ]
    )
