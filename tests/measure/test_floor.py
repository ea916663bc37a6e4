"""The transport floor benchmark: real state messages, both bare servers answer and store
moves, the report's shape; no timing claims."""

from __future__ import annotations

import json
import sqlite3

import pytest

from gemtable.core.registry import game_ids
from gemtable.measure import floor


@pytest.mark.parametrize("game_id", game_ids())
def test_state_messages_are_each_seats_view_of_one_seeded_game(game_id):
    rows = floor.state_messages(game_id, players=2, seed=3, limit=12)
    assert rows == floor.state_messages(game_id, players=2, seed=3, limit=12)  # seeded
    assert 2 <= len(rows) <= 12
    for version, row in enumerate(rows):
        assert len(row) == 2
        msgs = [json.loads(text) for text in row]
        for seat, m in enumerate(msgs):
            assert m["type"] == "state" and m["seat"] == seat and m["version"] == version
            assert isinstance(m["view"], dict)
            # legal moves go to the seats to move, and only to them
            assert bool(m["legal"]) == (seat in m["to_move"])
    assert len({row[0] for row in rows}) > 1  # the game moves on


def test_grouped_commits_store_every_move_before_answering(tmp_path):
    import asyncio

    commits = floor._Commits(str(tmp_path / "f.db"))

    async def run():
        await asyncio.gather(*(commits.store(f"/t{i % 3}", i // 3, i % 2, '{"a":1}') for i in range(30)))

    asyncio.run(run())
    assert commits.moves == 30 and 1 <= commits.groups < 30  # moves arriving together share commits
    conn = sqlite3.connect(str(tmp_path / "f.db"))
    assert conn.execute("SELECT count(*) FROM actions").fetchone()[0] == 30
    assert conn.execute("SELECT sum(rev) FROM tables").fetchone()[0] == 30 - 3  # first row of each at rev 0


@pytest.mark.parametrize("commit", [False, True])
def test_a_tiny_run_reports_cpu_per_move(commit):
    r = floor.measure(pairs=3, seconds=1.5, warmup=0.5, think=0.1, commit=commit)
    assert r["server"] == ("transport + commit" if commit else "transport")
    assert r["moves"] > 0 and r["moves_per_s"] > 0
    assert r["server_cpu_ms_per_move"] is not None and r["server_cpu_ms_per_move"] >= 0
    if commit:
        assert r["moves_per_commit"] >= 1


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        floor.main(["--pairs", "0"])
    assert exc.value.code == 2
    assert "must be positive" in capsys.readouterr().err
