"""The production example: gzipped JSON logs to one Parquet row per user session, on every
runner, with bad lines counted and set aside."""

import datetime as dt
import gzip
import json
import random

import pyarrow.parquet as pq
from test_seed_examples import load_example

GAP = 30 * 60
BASE = dt.datetime(2026, 11, 24, 9, 0, tzinfo=dt.timezone.utc)


def events(seed=5):
    generator = random.Random(seed)
    out = []
    for user in ("ann", "bob", "cy"):
        second = generator.randrange(3600)
        for _ in range(40):
            second += generator.choice([5, 60, 600, 2400, 4000])
            time = (BASE + dt.timedelta(seconds=second)).isoformat().replace("+00:00", "Z")
            out.append(
                {
                    "user": user,
                    "time": time,
                    "second": second,
                    "action": generator.choice(["view", "buy", "cart"]),
                    "bytes": generator.randrange(100, 5000),
                }
            )
    generator.shuffle(out)
    return out


def expected_sessions(all_events) -> list:
    rows = []
    for user in sorted({e["user"] for e in all_events}):
        mine = sorted((e for e in all_events if e["user"] == user), key=lambda e: e["second"])
        session = [mine[0]]
        for event in mine[1:] + [None]:
            if event is not None and event["second"] < session[-1]["second"] + GAP:
                session.append(event)
                continue
            start = BASE + dt.timedelta(seconds=session[0]["second"])
            rows.append(
                (
                    user,
                    start.strftime("%Y-%m-%dT%H:00"),
                    start,
                    BASE + dt.timedelta(seconds=session[-1]["second"] + GAP),
                    len(session),
                    len({e["action"] for e in session}),
                    sum(e["bytes"] for e in session),
                )
            )
            session = [event]
    return sorted(rows)


def test_sessions_per_user_from_gzipped_logs(tmp_path, runner, capsys):
    logs = events()
    (tmp_path / "logs").mkdir()
    for part in range(3):
        lines = [json.dumps({k: v for k, v in e.items() if k != "second"}) for e in logs[part::3]]
        if part == 1:
            lines[4:4] = ["not json", '{"user": "dan"}']
        (tmp_path / "logs" / f"events-{part}.json.gz").write_bytes(
            gzip.compress(("\n".join(lines) + "\n").encode())
        )
    load_example("hourly_sessions").main(
        [
            "--input",
            str(tmp_path / "logs" / "*.json.gz"),
            "--output",
            str(tmp_path / "sessions"),
            "--runner",
            runner,
        ]
    )
    table = pq.read_table([str(p) for p in sorted(tmp_path.glob("sessions-*.parquet"))])
    rows = sorted(tuple(row.values()) for row in table.to_pylist())
    assert rows == expected_sessions(logs)
    assert (tmp_path / "sessions.SUCCESS").exists()
    rejected = [
        line
        for shard in sorted(tmp_path.glob("sessions-rejected-*.txt"))
        for line in shard.read_text().splitlines()
    ]
    assert sorted(rejected) == ["not json", '{"user": "dan"}']
    assert "2 line(s) rejected" in capsys.readouterr().out
