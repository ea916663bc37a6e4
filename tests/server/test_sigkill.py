"""A server killed with SIGKILL mid-game loses no acknowledged action, chat line or clock time.

The real server (`gemtable serve`) runs in a subprocess on a temporary SQLite file.
Bounds are generous (a loaded 2-core machine): the checks are that the clock kept the
time spent before the kill, was not charged for the time the server was down, and that
a stopped clock kept its exact value.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

from .conftest import free_port, spawn_server, wait_serving


def start(db_url: str, port: int, log: Path) -> subprocess.Popen:
    return wait_serving(spawn_server(db_url, port, log), port, log)


def chat(port: int, table_id: str, token: str, text: str) -> dict:
    """Send a chat line as a seat; return it once the server has sent it back (it is stored by then)."""
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{port}/ws/tables/{table_id}", subprotocols=["gemtable", f"token.{token}"],
                 open_timeout=20) as ws:
        ws.send(json.dumps({"type": "chat", "text": text}))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] == "chat" and msg["line"]["text"] == text:
                return msg["line"]
            assert msg["type"] != "error", msg
    raise AssertionError("the chat line was not acknowledged")


def test_sigkill_loses_no_acknowledged_action_chat_line_or_clock_time(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    log = tmp_path / "server.log"
    port = free_port()
    proc = start(db_url, port, log)
    try:
        base = f"http://127.0.0.1:{port}"
        r = httpx.post(f"{base}/api/tables", timeout=30, json={
            "game": "splendor", "players": 2, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}],
            "clock": {"mode": "realtime", "base": 600, "increment": 0}})
        assert r.status_code == 201, r.text
        tid, tokens = r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]
        acked = []
        for _ in range(5):  # five acknowledged actions
            seat = httpx.get(f"{base}/api/tables/{tid}", timeout=30).json()["to_move"][0]
            state = httpx.get(f"{base}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[seat]}, timeout=30).json()
            action = state["legal"][0]["json"]
            r = httpx.post(f"{base}/api/tables/{tid}/actions", headers={"X-Seat-Token": tokens[seat]}, timeout=30,
                           json={"version": state["version"], "action": action})
            assert r.status_code == 200, r.text
            acked.append([seat, action])
        lines = [chat(port, tid, tokens[0], "good luck"), chat(port, tid, tokens[1], "you too")]
        before = httpx.get(f"{base}/api/tables/{tid}", timeout=30).json()["clock"]
        t1 = time.monotonic()
        mover = before["running"][0]
        waiting = 1 - mover
        time.sleep(6.0)  # the mover's clock runs (the server writes a heartbeat every 2 s)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        downtime = 4.0
        time.sleep(downtime)
        proc = start(db_url, port, log)
        after = httpx.get(f"{base}/api/tables/{tid}", timeout=30).json()
        t2 = time.monotonic()
        # every acknowledged action and chat line is there
        assert after["version"] == len(acked)
        from gemtable.server.db import Database

        db = Database(db_url)
        try:
            _row, _seats, rows = db.load(tid)
            assert [[a.seat, a.action] for a in rows] == acked
        finally:
            db.dispose()
        state = httpx.get(f"{base}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[0]}, timeout=30).json()
        assert [(x["id"], x["text"]) for x in state["chat"]] == [(x["id"], x["text"]) for x in lines]
        clock = after["clock"]
        assert clock["running"] == [mover]
        # the stopped clock kept its exact value
        assert clock["remaining"][waiting] == before["remaining"][waiting]
        charged = before["remaining"][mover] - clock["remaining"][mover]
        # the time spent before the kill was kept (at least 1 of the 6 s; heartbeats every 2 s) ...
        assert charged >= 1000, (before, clock)
        # ... and the downtime was not charged: at most the wall time minus the downtime, plus slack
        assert charged <= (t2 - t1 - downtime) * 1000 + 500, (charged, t2 - t1)
        # the game goes on from there
        seat = state["to_move"][0]
        state = httpx.get(f"{base}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[seat]}, timeout=30).json()
        r = httpx.post(f"{base}/api/tables/{tid}/actions", headers={"X-Seat-Token": tokens[seat]}, timeout=30,
                       json={"version": state["version"], "action": state["legal"][0]["json"]})
        assert r.status_code == 200, r.text
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _table(base: str, players: int, clock: dict | None = None) -> tuple[str, list[str]]:
    body = {"game": "splendor", "players": players,
            "seats": [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cat")[:players]]}
    if clock is not None:
        body["clock"] = clock
    r = httpx.post(f"{base}/api/tables", timeout=30, json=body)
    assert r.status_code == 201, r.text
    return r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_sigkill_loses_no_acknowledged_resignation_or_rematch_acceptance(tmp_path, request, backend):
    """A resignation (the game ends, or a bot plays the seat on) and a rematch proposal and its
    acceptance, once answered, are there after a SIGKILL."""
    if backend == "sqlite":
        db_url = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    else:
        from gemtable.server.db import Database

        db_url = request.getfixturevalue("postgres_url")
        Database(db_url).dispose()  # the schema
    log = tmp_path / "server.log"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(db_url, port, log)
    try:
        ended, two = _table(base, 2, {"mode": "realtime", "base": 600, "increment": 0})
        going, three = _table(base, 3)
        r = httpx.post(f"{base}/api/tables/{ended}/resign", headers={"X-Seat-Token": two[1]}, timeout=30)
        assert r.status_code == 200 and r.json()["ended"] is True, r.text
        r = httpx.post(f"{base}/api/tables/{going}/resign", headers={"X-Seat-Token": three[2]}, timeout=30)
        assert r.status_code == 200 and r.json()["ended"] is False, r.text
        # a two-player game ended by the resignation: Ann proposes the rematch ...
        r = httpx.post(f"{base}/api/tables/{ended}/rematch", headers={"X-Seat-Token": two[0]}, timeout=30)
        assert r.json()["proposal"]["state"] == "open", r.text
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc = start(db_url, port, log)
        info = httpx.get(f"{base}/api/tables/{ended}", timeout=30).json()
        assert info["status"] == "finished" and info["winners"] == [0]
        assert info["rematch_proposal"]["state"] == "open" and info["rematch_proposal"]["waiting"] == [1]
        info = httpx.get(f"{base}/api/tables/{going}", timeout=30).json()
        assert info["status"] == "running" and info["seats"][2]["resigned"] and info["seats"][2]["away"]
        # ... Bob accepts; the acceptance is answered with his seat at the new table
        r = httpx.post(f"{base}/api/tables/{ended}/rematch", headers={"X-Seat-Token": two[1]},
                       json={"answer": "accept"}, timeout=30)
        assert r.status_code == 200, r.text
        new_id, bob_token = r.json()["table"], r.json()["token"]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc = start(db_url, port, log)
        assert httpx.get(f"{base}/api/tables/{ended}", timeout=30).json()["rematch"] == new_id
        state = httpx.get(f"{base}/api/tables/{new_id}/state", headers={"X-Seat-Token": bob_token}, timeout=30).json()
        assert state["seat"] == 0 and state["table"]["seats"][0]["name"] == "Bob"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _stored_clocks(db_url: str) -> dict[str, dict]:
    """Every table's stored clocks (``gt_table_play.data``), by table id."""
    from sqlalchemy import create_engine, select

    from gemtable.server.db import PlayRow, normalize_url

    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            return {r.table_id: r.data for r in conn.execute(select(PlayRow.table_id, PlayRow.data))}
    finally:
        engine.dispose()


def _timed_tables(ports: list[int], n: int) -> list[tuple[str, int]]:
    """``n`` two-seat Splendor tables, half real time (600 + 5 s), half a day a move, made in
    turn at each worker (which then drives their clocks); seat 0 to move at each.  (table, port)"""
    out = []
    for i in range(n):
        clock = {"mode": "realtime", "base": 600, "increment": 5} if i % 2 else {"mode": "turn", "per_move": 86400}
        port = ports[i % len(ports)]
        # from several loopback addresses: each may create 10 tables at once
        with httpx.Client(transport=httpx.HTTPTransport(local_address=f"127.0.0.{2 + i // 8}"), timeout=30) as c:
            r = c.post(f"http://127.0.0.1:{port}/api/tables", json={
                "game": "splendor", "players": 2, "clock": clock,
                "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]})
        assert r.status_code == 201, r.text
        assert r.json()["table"]["to_move"] == [0]
        out.append((r.json()["table"]["id"], port))
    return out


def _taken_over(db_url: str, ids: list[str], since: float) -> dict[str, dict]:
    """Wait until every table's running clock was restarted after ``since`` (epoch ms) by the
    worker that took it over; its stored clocks then."""
    deadline = time.monotonic() + 120
    while True:
        clocks = _stored_clocks(db_url)
        if all(clocks[t]["running"].get("0", 0) >= since for t in ids):
            return clocks
        assert time.monotonic() < deadline, "not every table was taken over"
        time.sleep(0.5)


def _check_charged(before: dict, after: dict, ids: list[str], stopped: float) -> None:
    """Each running clock was charged up to a heartbeat (every 2 s) before its driver stopped at
    ``stopped`` (epoch ms), never the time after; the stopped clock kept its value."""
    charged = {}
    for t in ids:
        ran = stopped - before[t]["running"]["0"]  # how long the clock really ran
        charged[t] = before[t]["remaining"][0] - after[t]["remaining"][0]
        assert ran - 3000 <= charged[t] <= ran + 500, (t, charged[t], ran)
        assert after[t]["remaining"][1] == before[t]["remaining"][1]
    print(f"\ncharged {min(charged.values())}-{max(charged.values())} ms of clocks that ran "
          f"{stopped - max(before[t]['running']['0'] for t in ids):.0f}+ ms")


def _kill(proc) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_on_postgresql_charges_no_downtime_to_any_clock(postgres_url, tmp_path, workers):
    """Every worker is killed with SIGKILL, the site stays down, then comes back on the same
    database: the worker that takes each table over charges its running clock up to the last
    heartbeat of the worker that drove it — never the time the site was down, whichever table
    it takes over first or last."""
    from gemtable.server.db import Database

    Database(postgres_url).dispose()  # the schema, before the workers start together
    ports = [free_port() for _ in range(workers)]
    procs = [start(postgres_url, port, tmp_path / f"pg{i}.log") for i, port in enumerate(ports)]
    try:
        ids = [t for t, _ in _timed_tables(ports, 16)]
        time.sleep(5.0)  # the clocks run; the drivers write their heartbeats (every 2 s)
        before = _stored_clocks(postgres_url)
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
        killed = time.time() * 1000
        for proc in procs:
            proc.wait(timeout=30)
        time.sleep(12.0)  # the site is down
        back = time.time() * 1000
        procs = [start(postgres_url, port, tmp_path / f"pg{i}b.log") for i, port in enumerate(ports)]
        _check_charged(before, _taken_over(postgres_url, ids, back), ids, killed)
    finally:
        for proc in procs:
            _kill(proc)


def test_a_frozen_then_killed_worker_s_tables_are_not_charged_while_it_drove_none(postgres_url, tmp_path):
    """Two workers drive half the timed tables each.  Worker A freezes (SIGSTOP: its connections
    stay open, so it keeps its leases, but it does nothing), and is killed 10 s later; worker B,
    alive all along, takes A's tables over.  Their clocks are charged up to A's last heartbeat:
    not the seconds while nobody drove them, although B was alive and beating meanwhile."""
    from gemtable.server.db import Database

    Database(postgres_url).dispose()
    ports = [free_port(), free_port()]
    procs = [start(postgres_url, port, tmp_path / f"w{i}.log") for i, port in enumerate(ports)]
    try:
        tables = _timed_tables(ports, 16)
        at_a = [t for t, port in tables if port == ports[0]]
        time.sleep(5.0)
        before = _stored_clocks(postgres_url)
        os.killpg(procs[0].pid, signal.SIGSTOP)
        frozen = time.time() * 1000
        time.sleep(10.0)
        os.killpg(procs[0].pid, signal.SIGKILL)
        killed = time.time() * 1000
        procs[0].wait(timeout=30)
        _check_charged(before, _taken_over(postgres_url, at_a, killed), at_a, frozen)
        assert httpx.get(f"http://127.0.0.1:{ports[1]}/api/health", timeout=30).status_code == 200
    finally:
        for proc in procs:
            _kill(proc)
