"""Several workers on one PostgreSQL database: real `gemtable serve` processes.

Two independent servers on two ports share one throw-away PostgreSQL cluster
(the ``postgres_url`` fixture; skipped without PostgreSQL, a failure in CI with
GEMTABLE_STRICT=1).  Players connect as the browser does: a player cookie per
browser, the seat token as the WebSocket subprotocol.  Time bounds are
generous (a loaded 2-core machine); the takeover time is printed, not asserted.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select

from gemtable.server.db import ActionRow, normalize_url

from .conftest import GEMTABLE, free_port, spawn_server, wait_serving

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ERRORS = ("Traceback", "bot at table", "bot of seat", "engine error", "internal error", "failed")


class Worker:
    def __init__(self, db_url: str, log: Path, bot_delay: float) -> None:
        self.port = free_port()
        self.log = log
        self.proc = spawn_server(db_url, self.port, log, bot_delay)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self) -> Worker:
        wait_serving(self.proc, self.port, self.log)
        return self

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def errors(self) -> list[str]:
        return [line for line in self.log.read_text(errors="replace").splitlines()
                if any(word in line for word in ERRORS)]


@pytest.fixture
def workers(postgres_url, tmp_path):
    started: list[Worker] = []

    def start(n: int = 2, bot_delay: float = 0.0) -> list[Worker]:
        new = [Worker(postgres_url, tmp_path / f"worker{len(started) + i}.log", bot_delay) for i in range(n)]
        started.extend(new)
        return [w.wait_ready() for w in new]

    yield start
    for w in started:
        w.kill()


class Player:
    """One browser tab: a WebSocket whose messages a thread collects."""

    def __init__(self, worker: Worker, table_id: str, token: str | None, cookies: httpx.Cookies | None = None) -> None:
        from websockets.sync.client import connect

        headers = {}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        protocols = ["gemtable"] + ([f"token.{token}"] if token else [])
        # entered as a context manager (websockets 17.1 deprecates a bare connect()); close() ends it
        self.ws = connect(f"ws://127.0.0.1:{worker.port}/ws/tables/{table_id}", subprotocols=protocols,
                          additional_headers=headers, open_timeout=30).__enter__()
        self.messages: queue.Queue = queue.Queue()
        self.state: dict | None = None
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                self.messages.put(json.loads(self.ws.recv()))
        except Exception:
            self.closed = True
            self.messages.put(None)

    def until(self, pred, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no such message came")
            msg = self.messages.get(timeout=left)
            if msg is None:
                raise ConnectionError("the connection closed")
            if msg["type"] == "state":
                self.state = msg
            if pred(msg):
                return msg

    def at(self, version: int, timeout: float = 60.0) -> dict:
        """The state at ``version`` (already received, or the next one that comes)."""
        while not self.messages.empty():
            msg = self.messages.get()
            if msg is None:
                raise ConnectionError("the connection closed")
            if msg["type"] == "state":
                self.state = msg
        if self.state is not None and self.state["version"] >= version:
            return self.state
        return self.until(lambda m: m["type"] == "state" and m["version"] >= version, timeout)

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


PREFER = ("buy", "noble", "take", "pay", "return", "take_two")


def choose(legal: list[dict], rnd: random.Random) -> dict:
    """Buy when possible (games end sooner), else a preferred kind, else anything."""
    for kind in PREFER:
        options = [a for a in legal if a["type"] == kind]
        if options:
            return rnd.choice(options)["json"]
    return rnd.choice(legal)["json"]


def stored_actions(db_url: str, table_id: str) -> list[tuple[int, int, dict]]:
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(ActionRow.index, ActionRow.seat, ActionRow.action)
                                .where(ActionRow.table_id == table_id).order_by(ActionRow.index)).all()
            return [(r[0], r[1], r[2]) for r in rows]
    finally:
        engine.dispose()


def lease_holder(db_url: str, table_id: str) -> int | None:
    """The process id of the worker holding the table's lease (its advisory lock), if any."""
    from sqlalchemy import text

    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            name = conn.execute(text(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND "
                "((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(:t, 7469767361)"),
                {"t": table_id}).scalar()
            return int(name.rsplit(" ", 1)[1]) if name else None
    finally:
        engine.dispose()


def test_a_game_across_two_workers_goes_on_when_one_is_killed(workers, postgres_url):
    a, b = workers(2, bot_delay=0.5)
    rnd = random.Random(17)
    with httpx.Client(base_url=a.url, timeout=30) as ann_http, httpx.Client(base_url=b.url, timeout=30) as bob_http:
        assert ann_http.post("/api/me", json={"name": "Ann"}).status_code == 200
        assert bob_http.post("/api/me", json={"name": "Bob"}).status_code == 200
        # Ann creates the table on worker A: her seat, an invite seat for Bob, a bot
        r = ann_http.post("/api/tables", json={"game": "splendor", "players": 3, "seats": [
            {"kind": "me"}, {"kind": "human", "name": "Bob"}, {"kind": "bot", "bot": "random"}]})
        assert r.status_code == 201, r.text
        tid = r.json()["table"]["id"]
        tokens = {s["seat"]: s.get("token") for s in r.json()["seats"]}
        ann = Player(a, tid, tokens[0], ann_http.cookies)
        bob = Player(b, tid, tokens[1], bob_http.cookies)  # Bob opens his invite link on worker B
        players = {0: ann, 1: bob}
        for p in players.values():
            p.until(lambda m: m["type"] == "state")
        # Bob's seat is bound to his player: any worker finds it for his cookie
        assert bob_http.get(f"/api/tables/{tid}/seat").json()["seat"] == 1
        # chat typed at worker A reaches the player at worker B (and back)
        ann.send({"type": "chat", "text": "good luck from A"})
        assert bob.until(lambda m: m["type"] == "chat" and m["line"]["text"] == "good luck from A")["line"]["seat"] == 0
        bob.send({"type": "chat", "text": "thanks from B"})
        ann.until(lambda m: m["type"] == "chat" and m["line"]["text"] == "thanks from B")
        # each sees that the other is connected (presence across workers)
        ann.send({"type": "refresh"})
        assert ann.until(lambda m: m["type"] == "state")["table"]["seats"][1]["connected"]
        bob.send({"type": "refresh"})
        assert bob.until(lambda m: m["type"] == "state")["table"]["seats"][0]["connected"]

        acked: list[tuple[int, int, dict]] = []
        killed_at = None
        kill_version = None
        takeover = None
        human_moves = 0
        deadline = time.monotonic() + 600
        while True:
            assert time.monotonic() < deadline, "the game did not finish"
            st = max((p.at(0) for p in players.values()), key=lambda m: m["version"])  # the newest known
            if st["over"]:
                break
            mover = st["to_move"][0]
            if mover == 2:  # the bot's move: wait for it (at worker B once A is dead)
                bob.at(st["version"] + 1)
                continue
            player = players[mover]
            pst = player.at(st["version"])
            if pst["version"] != st["version"]:
                continue
            action = choose(pst["legal"], rnd)
            player.send({"type": "action", "version": pst["version"], "action": action})
            sent_at = pst["version"]
            done = player.until(lambda m, v=sent_at: (m["type"] == "state" and m["version"] > v)
                                or m["type"] == "error", timeout=60)
            assert done["type"] == "state", done
            acked.append((pst["version"], mover, action))
            human_moves += 1
            if killed_at is None and human_moves >= 6 and done["to_move"] == [2]:
                # the bot is due (its delay runs at worker A, which holds the table's lease): kill A
                assert lease_holder(postgres_url, tid) == a.proc.pid
                a.kill()
                killed_at = time.monotonic()
                kill_version = done["version"]
                bob.at(kill_version + 1)  # the bot's move, made by worker B
                takeover = time.monotonic() - killed_at
                assert lease_holder(postgres_url, tid) == b.proc.pid
                # Ann's browser reconnects to worker B and resumes her seat with her cookie
                ann.close()
                with httpx.Client(base_url=b.url, timeout=30, cookies=ann_http.cookies) as ann_on_b:
                    again = ann_on_b.get(f"/api/tables/{tid}/seat")
                assert again.status_code == 200, again.text
                ann = Player(b, tid, again.json()["token"])
                players[0] = ann
                ann.until(lambda m: m["type"] == "state")
        assert killed_at is not None and takeover is not None
        print(f"\nbot moved {takeover:.2f} s after worker A was killed")
        let_go = time.monotonic() + 15
        while lease_holder(postgres_url, tid) is not None:  # finished: B lets go of it
            assert time.monotonic() < let_go
            time.sleep(0.1)
        assert takeover < 15.0
        rows = stored_actions(postgres_url, tid)
        assert [i for i, _, _ in rows] == list(range(len(rows))) == list(range(bob.state["version"]))
        for version, seat, action in acked:  # every acknowledged action, at its place
            assert rows[version][1] == seat and rows[version][2] == action
        assert any(seat == 2 and i >= kill_version for i, seat, _ in rows), "the bot never moved after the kill"
        assert b.errors() == []


def _two_humans(worker: Worker) -> tuple[str, list[str]]:
    """A Splendor table for Ann and Bob created at ``worker``: its id and the seats' tokens."""
    with httpx.Client(timeout=30) as http:
        r = http.post(f"{worker.url}/api/tables", json={"game": "splendor", "players": 2, "seats": [
            {"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]})
    assert r.status_code == 201, r.text
    return r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]


def test_the_same_version_submitted_at_two_workers_is_accepted_once(workers, postgres_url):
    a, b = workers(2)
    tid, tokens = _two_humans(a)
    with httpx.Client(timeout=30) as http:
        rnd = random.Random(5)
        for round_ in range(12):
            # both workers have the table cached at the same version
            states = [http.get(f"{w.url}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[0]}).json()
                      for w in (a, b)]
            version = states[0]["version"]
            deadline = time.monotonic() + 15
            while states[1]["version"] != version:
                assert time.monotonic() < deadline
                states[1] = http.get(f"{b.url}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[0]}).json()
            seat = states[0]["to_move"][0]
            st = http.get(f"{a.url}/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[seat]}).json()
            picks = [choose(st["legal"], rnd), choose(st["legal"], rnd)]
            answers: list[httpx.Response | None] = [None, None]
            go = threading.Barrier(2)

            def submit(i: int, worker: Worker, version=version, seat=seat, picks=picks, answers=answers,
                       go=go) -> None:
                with httpx.Client(timeout=30) as h:
                    go.wait()
                    answers[i] = h.post(f"{worker.url}/api/tables/{tid}/actions", headers={"X-Seat-Token": tokens[seat]},
                                        json={"version": version, "action": picks[i]})

            threads = [threading.Thread(target=submit, args=(i, w)) for i, w in enumerate((a, b))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            codes = sorted(r.status_code for r in answers)
            assert codes == [200, 409], (round_, [r.text[:200] for r in answers])
            loser = next(r for r in answers if r.status_code == 409)
            assert loser.json()["error"] == "stale"
            winner = answers.index(next(r for r in answers if r.status_code == 200))
            rows = stored_actions(postgres_url, tid)
            assert len(rows) == version + 1 and rows[version][1] == seat and rows[version][2] == picks[winner]
    for w in (a, b):
        assert w.errors() == []


def _cut_notice_connections(db_url: str) -> int:
    """End every worker's LISTEN connection from the database's side (as a restart or a network
    cut would); how many were ended."""
    from sqlalchemy import text

    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as conn:
            ended = conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name LIKE 'gemtable worker %' AND query LIKE 'LISTEN %'")).all()
            conn.commit()
            return len(ended)
    finally:
        engine.dispose()


def test_a_worker_whose_notice_connection_is_cut_catches_up_and_hears_again(workers, postgres_url):
    a, b = workers(2)
    tid, tokens = _two_humans(a)
    players = [Player(a, tid, tokens[0]), Player(b, tid, tokens[1])]  # Ann at worker A, Bob at worker B
    rnd = random.Random(3)
    try:
        def play(moves: int) -> None:
            for _ in range(moves):
                st = max((p.at(0) for p in players), key=lambda m: m["version"])
                mover = players[st["to_move"][0]]
                pst = mover.at(st["version"])
                mover.send({"type": "action", "version": pst["version"], "action": choose(pst["legal"], rnd)})
                done = mover.until(lambda m, v=pst["version"]: (m["type"] == "state" and m["version"] > v)
                                   or m["type"] == "error", timeout=60)
                assert done["type"] == "state", done
                for p in players:  # the other worker's player sees the move too
                    assert p.at(done["version"], timeout=30)["version"] == done["version"]

        play(4)
        assert _cut_notice_connections(postgres_url) == 2
        play(1)  # made while the workers may not listen yet: caught up once they listen again
        play(6)  # and every move after is heard again, both ways
        assert players[0].at(0)["version"] == players[1].at(0)["version"] == 11
    finally:
        for p in players:
            p.close()
    logs = a.log.read_text(errors="replace") + b.log.read_text(errors="replace")
    assert "notice connection lost" in logs  # each worker noticed and reconnected
    for w in (a, b):
        assert w.errors() == []


def test_bots_move_exactly_once_with_two_live_workers(workers, postgres_url):
    a, b = workers(2)
    ids = []
    with httpx.Client(timeout=30) as http:
        for i in range(4):
            w = (a, b)[i % 2]
            r = http.post(f"{w.url}/api/tables", json={"game": "splendor", "players": 2, "seats": [
                {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]})
            assert r.status_code == 201, r.text
            ids.append(r.json()["table"]["id"])
        # both workers keep every table cached (and so hear of every move) while the bots play
        watchers = [Player(w, tid, None) for tid in ids for w in (a, b)]
        deadline = time.monotonic() + 300
        for tid in ids:
            for w in (a, b):
                while http.get(f"{w.url}/api/tables/{tid}").json()["status"] != "finished":
                    assert time.monotonic() < deadline, "the bots did not finish"
                    time.sleep(0.2)
        for watcher in watchers:
            watcher.close()
        from gemtable.core import Match
        from gemtable.games.registry import get_game

        game = get_game("splendor")
        for tid in ids:
            rows = stored_actions(postgres_url, tid)
            assert [i for i, _, _ in rows] == list(range(len(rows)))
            match = Match.from_json(http.get(f"{a.url}/api/tables/{tid}/match").json())
            assert [[s, x] for _, s, x in rows] == [list(x) for x in match.actions]
            assert match.replay(game=game).is_over()  # every stored move was legal, in order
            # both workers' copies agree with the database
            for w in (a, b):
                assert http.get(f"{w.url}/api/tables/{tid}").json()["version"] == len(rows)
    for w in (a, b):
        assert w.errors() == []


def test_several_workers_on_sqlite_are_refused(tmp_path):
    out = subprocess.run([str(GEMTABLE), "serve", "--workers", "2", "--db", f"sqlite:///{tmp_path / 'x.sqlite3'}",
                          "--port", str(free_port())], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "several workers need PostgreSQL" in out.stderr


def test_workers_option_runs_several_processes_on_one_port(postgres_url, tmp_path):
    log = tmp_path / "multi.log"
    port = free_port()
    proc = subprocess.Popen([str(GEMTABLE), "serve", "--workers", "2", "--db", postgres_url, "--port", str(port),
                             "--bot-delay", "0"], stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    worker = Worker.__new__(Worker)
    worker.proc, worker.log, worker.port, worker.url = proc, log, port, f"http://127.0.0.1:{port}"
    try:
        worker.wait_ready()
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        if children.exists():  # uvicorn's manager and its two worker processes (spawned)
            spawned = [c for c in children.read_text().split()
                       if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
            assert len(spawned) == 2
        rnd = random.Random(3)
        r = httpx.post(f"{worker.url}/api/tables", timeout=30, json={"game": "splendor", "players": 2, "seats": [
            {"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}]})
        assert r.status_code == 201, r.text
        tid, token = r.json()["table"]["id"], r.json()["seats"][0]["token"]
        moves = 0
        deadline = time.monotonic() + 120
        while moves < 10:
            assert time.monotonic() < deadline
            # a new connection each time: requests land on either process
            st = httpx.get(f"{worker.url}/api/tables/{tid}/state", headers={"X-Seat-Token": token}, timeout=30).json()
            if not st["legal"]:
                time.sleep(0.05)
                continue
            r = httpx.post(f"{worker.url}/api/tables/{tid}/actions", headers={"X-Seat-Token": token}, timeout=30,
                           json={"version": st["version"], "action": choose(st["legal"], rnd)})
            assert r.status_code in (200, 409), r.text  # 409: that process had not heard of the bot's move yet
            moves += r.status_code == 200
        rows = stored_actions(postgres_url, tid)
        assert [i for i, _, _ in rows] == list(range(len(rows)))
        assert sum(seat == 0 for _, seat, _ in rows) == 10 and any(seat == 1 for _, seat, _ in rows)
        assert worker.errors() == []
    finally:
        worker.kill()


# -- the same guarantees without PostgreSQL: two servers on one SQLite file (in one process) -------
def test_a_stale_copy_gets_a_conflict_not_a_server_error(tmp_path, toy_registered):
    """Two servers' copies of a table: the one that did not hear of the other's move answers 409."""
    from fastapi.testclient import TestClient

    from gemtable.server import create_app
    from gemtable.server.limits import Limits

    from .conftest import create

    url = f"sqlite:///{tmp_path / 'two.sqlite3'}"
    with TestClient(create_app(url, bot_delay=0.0, limits=Limits.relaxed())) as one, \
            TestClient(create_app(url, bot_delay=0.0, limits=Limits.relaxed())) as two:
        res = create(one, "toy", 2, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
        tid, toks = res["table"]["id"], [s["token"] for s in res["seats"]]
        assert two.get(f"/api/tables/{tid}").json()["version"] == 0  # cached by the second server too
        r = one.post(f"/api/tables/{tid}/actions", json={"token": toks[0], "version": 0, "action": {"type": "pick", "n": 1}})
        assert r.status_code == 200
        # the second server's copy is stale (no notices on SQLite): the same seat's move is refused,
        # an equal move too (it is not "my earlier attempt"), and the copy is caught up
        for n in (2, 1):
            r = two.post(f"/api/tables/{tid}/actions",
                         json={"token": toks[0], "version": 0, "action": {"type": "pick", "n": n}})
            assert r.status_code == 409 and r.json()["error"] == "stale", r.text
        assert stored_actions(url, tid) == [(0, 0, {"type": "pick", "n": 1})]
        # Bob's simultaneous pick, chosen at version 0, is still good at the caught-up copy
        r = two.post(f"/api/tables/{tid}/actions", json={"token": toks[1], "version": 0, "action": {"type": "pick", "n": 3}})
        assert r.status_code == 200, r.text
        assert [row[1] for row in stored_actions(url, tid)] == [0, 1]


def test_a_removed_player_stays_removed_after_a_restart(tmp_path, toy_registered):
    from fastapi.testclient import TestClient

    from gemtable.server import create_app
    from gemtable.server.limits import Limits

    from .test_players import named

    url = f"sqlite:///{tmp_path / 'kick.sqlite3'}"
    with TestClient(create_app(url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        ann = named(client, "Ann")
        r = ann.post("/api/tables", json={"game": "toy", "players": 3,
                                          "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
        tid = r.json()["table"]["id"]
        bob = named(client, "Bob", host="203.0.113.24")
        assert bob.post(f"/api/tables/{tid}/join", json={}).status_code == 200
        assert ann.post(f"/api/tables/{tid}/kick", json={"seat": 1}).status_code == 200
        cookies = dict(bob.cookies)
    with TestClient(create_app(url, bot_delay=0.0, limits=Limits.relaxed()), cookies=cookies) as again:
        r = again.post(f"/api/tables/{tid}/join", json={})
        assert r.status_code == 403 and r.json()["error"] == "kicked"


def test_a_long_bot_spec_gives_a_seat_name_within_the_limit(client):
    """(Found by the hostile-creation fuzz while this file was written: "Bot 2 (mcts:iterations=5)" has 25.)"""
    from .conftest import create

    res = create(client, "toy", 2, seats=[{"kind": "human"}, {"kind": "bot", "bot": "mcts:iterations=5"}])
    assert [s["name"] for s in res["seats"]] == ["Player 1", "Bot 2"]


def test_a_resignation_and_a_rematch_proposal_at_one_worker_reach_a_player_at_the_other(workers, postgres_url):
    """Bob, connected at worker B, sees Ann's resignation made at worker A end the game, then
    her rematch proposal; his acceptance at B starts the rematch, which Ann at A hears of."""
    a, b = workers(2)
    tid, tokens = _two_humans(a)
    ann, bob = Player(a, tid, tokens[0]), Player(b, tid, tokens[1])
    try:
        bob.at(0)
        ann.at(0)
        with httpx.Client(timeout=30) as http:
            r = http.post(f"{a.url}/api/tables/{tid}/resign", headers={"X-Seat-Token": tokens[0]})
            assert r.status_code == 200 and r.json()["ended"] is True, r.text
            over = bob.until(lambda m: m["type"] == "state" and m["over"])
            assert over["result"]["resigned"] == [0] and over["result"]["winners"] == [1]
            assert http.get(f"{b.url}/api/tables/{tid}").json()["status"] == "finished"
            r = http.post(f"{a.url}/api/tables/{tid}/rematch", headers={"X-Seat-Token": tokens[0]})
            assert r.json()["proposal"]["waiting"] == [1], r.text
            seen = bob.until(lambda m: m["type"] == "presence" and (m["table"].get("rematch_proposal") or {})
                             .get("state") == "open")
            assert seen["table"]["rematch_proposal"]["by"] == 0
            r = http.post(f"{b.url}/api/tables/{tid}/rematch", headers={"X-Seat-Token": tokens[1]},
                          json={"answer": "accept"})
            assert r.status_code == 200 and r.json()["seat"] == 0, r.text
            told = ann.until(lambda m: m["type"] == "rematch")
            assert told["table"] == r.json()["table"] and told["seat"] == 1
    finally:
        ann.close()
        bob.close()
    for w in (a, b):
        assert w.errors() == []
