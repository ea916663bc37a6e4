"""A tournament on two `gemtable serve` workers sharing one PostgreSQL database: exactly one
worker starts each round, and a worker killed with SIGKILL during a round loses no result —
the tournament completes on the other worker and on the restarted one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from gemtable.server.db import Database, TableRow, TournamentGameRow, TournamentRow

from .conftest import free_port, spawn_server, wait_serving

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def start(db_url: str, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = wait_serving(spawn_server(db_url, port, log), port, log)
    return proc, f"http://127.0.0.1:{port}"


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def wait_for(check, timeout=90.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


class Player:
    """A browser: its own cookie (an account's session, valid at every worker)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cookies = httpx.Cookies()

    def call(self, base: str, method: str, path: str, **kw) -> httpx.Response:
        r = httpx.request(method, base + path, cookies=self.cookies, timeout=30, **kw)
        self.cookies.update(r.cookies)
        return r


def finish_table(base: str, players: dict[str, Player], game: dict) -> None:
    """Two moves over REST at worker ``base``, then the second seat resigns (the game ends)."""
    tid = game["table"]
    tokens = [players[n].call(base, "GET", f"/api/tables/{tid}/seat").json()["token"] for n in game["players"]]
    for _ in range(2):
        for token in tokens:
            state = httpx.get(f"{base}/api/tables/{tid}/state", headers={"X-Seat-Token": token}, timeout=30).json()
            if state["legal"]:
                r = httpx.post(f"{base}/api/tables/{tid}/actions", headers={"X-Seat-Token": token}, timeout=30,
                               json={"version": state["version"], "action": state["legal"][0]["json"]})
                assert r.status_code == 200, r.text
                break
    r = players[game["players"][1]].call(base, "POST", f"/api/tables/{tid}/resign")
    assert r.status_code == 200 and r.json()["over"], r.text


def test_two_workers_start_each_round_once_and_a_sigkill_loses_no_result(postgres_url, tmp_path):
    Database(postgres_url).dispose()  # the schema, before both workers start
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    a, base_a = start(postgres_url, log_a)
    b, base_b = start(postgres_url, log_b)
    try:
        players = {n: Player(n) for n in NAMES}
        for i, (n, p) in enumerate(players.items()):
            r = p.call(base_a if i % 2 else base_b, "POST", "/api/account/register",
                       json={"name": n, "password": "correct horse"})
            assert r.status_code == 200, r.text
        r = players["Ann"].call(base_a, "POST", "/api/tournaments", json={
            "name": "Two workers", "game": "splendor", "players": 2, "format": "swiss", "rounds": 3,
            "starts_in": 3, "no_show": 3600})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        for i, p in enumerate(players.values()):
            assert p.call(base_b if i % 2 else base_a, "POST", f"/api/tournaments/{tid}/register").status_code == 200

        def view(base):
            return httpx.get(f"{base}/api/tournaments/{tid}", timeout=30).json()

        def at_round(base, n):
            v = view(base)
            return v if v["round"] == n and len(v["rounds_played"]) == n and all(
                g["status"] in ("running", "bye", "finished") for g in v["rounds_played"][-1]["games"]) else None

        # round 1: one table finished at worker A, then A is killed while the round goes on
        v = wait_for(lambda: at_round(base_b, 1), what="round 1")
        games = v["rounds_played"][0]["games"]
        assert len(games) == 3
        finish_table(base_a, players, games[0])
        kill(a)  # at once: the result may not be recorded yet; it is read from the table's row
        finish_table(base_b, players, games[1])
        finish_table(base_b, players, games[2])
        # round 2 on worker B alone; A comes back during it
        v = wait_for(lambda: at_round(base_b, 2), what="round 2")
        a, base_a = start(postgres_url, log_a)
        for i, game in enumerate(v["rounds_played"][1]["games"]):
            finish_table(base_a if i % 2 else base_b, players, game)
        # round 3 with both workers up: B is killed as the round's last table ends
        v = wait_for(lambda: at_round(base_a, 3), what="round 3")
        games = v["rounds_played"][2]["games"]
        finish_table(base_b, players, games[0])
        finish_table(base_a, players, games[1])
        finish_table(base_b, players, games[2])
        kill(b)
        final = wait_for(lambda: (x := view(base_a))["status"] == "finished" and x, what="the end")
    finally:
        kill(a)
        kill(b)
    logs = log_a.read_text(errors="replace") + log_b.read_text(errors="replace")
    assert "Traceback" not in logs
    # every result is there, and it is the finished table's
    db = Database(postgres_url)
    try:
        with db.session() as s:
            assert s.get(TournamentRow, tid).status == "finished"
            rows = list(s.scalars(select(TournamentGameRow).where(TournamentGameRow.tournament_id == tid)))
            assert Counter(g.round for g in rows) == Counter({1: 3, 2: 3, 3: 3})
            # exactly one process paired each round, and no table was made twice
            pairers = {r: {g.paired_by for g in rows if g.round == r} for r in (1, 2, 3)}
            assert all(len(who) == 1 and None not in who for who in pairers.values()), pairers
            assert len({g.table_id for g in rows}) == 9
            assert s.scalar(select(func.count()).select_from(TableRow)) == 9
            for g in rows:
                table = s.get(TableRow, g.table_id)
                assert g.made and table.status == "finished"
                assert g.places == table.result["ranking"] == [1, 2]
    finally:
        db.dispose()
    assert sum(x["score"] for x in final["standings"]) == 9
    pairs = Counter(frozenset(g["players"]) for r in final["rounds_played"] for g in r["games"])
    assert set(pairs.values()) == {1}
