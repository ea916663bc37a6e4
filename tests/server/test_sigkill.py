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
