"""`gemtable soak`: a table's move latency with and without a flooding, stalled client.

Starts the table server on 127.0.0.1 (a fresh SQLite database in a temporary
folder, the same uvicorn settings as `gemtable serve`), seats two people at a
table and plays moves for a fixed time, twice: once alone, once while an
attacker — a spectator that sends a flood of ``refresh`` messages and then
stops reading its socket — is connected (reconnecting whenever the server
drops it).  It reports, per phase, the time from sending a move to

* the REST answer (``POST /api/tables/{id}/actions``), and
* the other seat's WebSocket receiving the new state,

as p50 / p99 / max, and what happened to the attacker's connections.
With ``reviews``, the second phase is a burst of game-review requests instead: that
many finished tables (easy bots) are reviewed at once, the refused requests asked again
until every review is stored, while the table plays on.
All traffic goes to 127.0.0.1; the run is bounded in time and moves.
"""

from __future__ import annotations

import http.client
import json
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import free_port, percentile
from .rawws import RawSocket


class _Server:
    def __init__(self, db_url: str, limits=None) -> None:
        import uvicorn

        from gemtable.server.app import create_app, uvicorn_config

        self.port = free_port()
        app = create_app(db_url, bot_delay=0.0, limits=limits)
        self.server = uvicorn.Server(uvicorn_config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "_Server":
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def _request(port: int, method: str, path: str, body: Any = None, token: str | None = None,
             timeout: float = 30.0) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Seat-Token"] = token
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        res = conn.getresponse()
        return res.status, json.loads(res.read() or b"null")
    finally:
        conn.close()


@dataclass
class Phase:
    name: str
    rest: list[float] = field(default_factory=list)  # seconds
    delivered: list[float] = field(default_factory=list)  # seconds
    failures: int = 0
    attacker_closes: dict[str, int] = field(default_factory=dict)
    attacker_messages: int = 0
    reviews_done: int = 0
    reviews_refused: int = 0  # answered 429 (the queue was full) and asked again
    review_seconds: list[float] = field(default_factory=list)  # CPU seconds of each review

    def row(self) -> dict[str, Any]:
        ms = lambda v: round(v * 1000, 1)
        return {
            "phase": self.name, "moves": len(self.rest), "failed": self.failures,
            "rest_p50_ms": ms(percentile(self.rest, 0.5)), "rest_p99_ms": ms(percentile(self.rest, 0.99)),
            "rest_max_ms": ms(max(self.rest)) if self.rest else None,
            "ws_p50_ms": ms(percentile(self.delivered, 0.5)), "ws_p99_ms": ms(percentile(self.delivered, 0.99)),
            "ws_max_ms": ms(max(self.delivered)) if self.delivered else None,
            "attacker_messages": self.attacker_messages, "attacker_closed": dict(self.attacker_closes),
            **({"reviews_done": self.reviews_done, "reviews_refused": self.reviews_refused,
                "review_cpu_s_p50": round(percentile(self.review_seconds, 0.5), 3)}
               if self.review_seconds else {}),
        }


class _Watcher(threading.Thread):
    """Seat 1's WebSocket, read continuously: when did each version arrive?"""

    def __init__(self, port: int, table_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.sock = RawSocket("127.0.0.1", port, f"/ws/tables/{table_id}", ["gemtable", f"token.{token}"],
                              recv_buffer=None, timeout=60)
        self.arrived: dict[int, float] = {}
        self.stopped = False

    def run(self) -> None:
        try:
            while not self.stopped:
                msg = self.sock.receive_json()
                if msg.get("type") == "state":
                    self.arrived.setdefault(msg["version"], time.perf_counter())
        except (ConnectionError, OSError, ValueError):
            pass

    def stop(self) -> None:
        self.stopped = True
        self.sock.close()


class _Attacker(threading.Thread):
    """A spectator that floods ``refresh`` and never reads; it reconnects when dropped."""

    def __init__(self, port: int, table_id: str, flood: int, phase: Phase) -> None:
        super().__init__(daemon=True)
        self.port, self.table_id, self.flood, self.phase = port, table_id, flood, phase
        self.stopped = False
        self.socks: list[RawSocket] = []

    def run(self) -> None:
        refresh = json.dumps({"type": "refresh"})
        while not self.stopped:
            try:
                sock = RawSocket("127.0.0.1", self.port, f"/ws/tables/{self.table_id}", ["gemtable"], recv_buffer=4096)
            except OSError:
                time.sleep(0.2)
                continue
            self.socks.append(sock)
            try:
                for _ in range(self.flood):
                    sock.send_text(refresh)
                    self.phase.attacker_messages += 1
                # stalled: never read; keep poking until the server has dropped us
                while not self.stopped:
                    time.sleep(0.5)
                    sock.send_text(refresh)
                    self.phase.attacker_messages += 1
                reason = "still connected at the end"
            except OSError:
                reason = "dropped by the server"
            sock.close()
            self.phase.attacker_closes[reason] = self.phase.attacker_closes.get(reason, 0) + 1
            time.sleep(0.2)

    def stop(self) -> None:
        self.stopped = True
        self.join(timeout=5)
        for s in self.socks:
            s.close()


class _ReviewBurst(threading.Thread):
    """Asks for every table's review at once, then again for the refused ones, until each is stored."""

    def __init__(self, port: int, tables: list[str], phase: Phase) -> None:
        super().__init__(daemon=True)
        self.port, self.tables, self.phase = port, tables, phase
        self.stopped = False

    def run(self) -> None:
        done: set[str] = set()
        while not self.stopped and len(done) < len(self.tables):
            for table_id in self.tables:
                if table_id in done or self.stopped:
                    continue
                try:
                    status, res = _request(self.port, "POST", f"/api/tables/{table_id}/review")
                except (OSError, http.client.HTTPException):
                    continue
                if status == 429:
                    self.phase.reviews_refused += 1
                elif status == 200 and res.get("status") == "done":
                    done.add(table_id)
                    self.phase.review_seconds.append(float(res["review"]["seconds"]))
            time.sleep(2.0)  # as the replay page asks again (the measuring thread shares this process)
        self.phase.reviews_done = len(done)

    def stop(self) -> None:
        self.stopped = True
        self.join(timeout=5)


def _finished_tables(port: int, game: str, count: int, timeout: float = 300.0) -> list[str]:
    """``count`` 2-player tables of easy bots, played to the end."""
    tables = []
    for k in range(count):
        status, res = _request(port, "POST", "/api/tables", {
            "game": game, "players": 2, "seed": 1000 + k,
            "seats": [{"kind": "bot", "bot": "easy"}, {"kind": "bot", "bot": "easy"}]})
        if status != 201:
            raise RuntimeError(f"could not create a table: {status} {res}")
        tables.append(res["table"]["id"])
    deadline = time.monotonic() + timeout
    for table_id in tables:
        while _request(port, "GET", f"/api/tables/{table_id}")[1]["status"] != "finished":
            if time.monotonic() > deadline:
                raise RuntimeError("the bots did not finish their games")
            time.sleep(0.2)
    return tables


def _new_table(port: int, game: str) -> tuple[str, list[str]]:
    status, res = _request(port, "POST", "/api/tables", {
        "game": game, "players": 2, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]})
    if status != 201:
        raise RuntimeError(f"could not create a table: {status} {res}")
    return res["table"]["id"], [s["token"] for s in res["seats"]]


def _play(port: int, game: str, phase: Phase, seconds: float, max_moves: int, flood: int | None,
          reviews: list[str] | None = None) -> None:
    table_id, tokens = _new_table(port, game)
    watcher = _Watcher(port, table_id, tokens[1])
    watcher.start()
    attacker = None
    if reviews:
        attacker = _ReviewBurst(port, reviews, phase)
        attacker.start()
    elif flood:
        attacker = _Attacker(port, table_id, flood, phase)
        attacker.start()
        time.sleep(1.0)  # let the flood land and the attacker stall
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and len(phase.rest) < max_moves:
            status, state = _request(port, "GET", f"/api/tables/{table_id}/state", token=tokens[0])
            if state.get("over"):
                break
            mover = state["to_move"][0]
            status, state = _request(port, "GET", f"/api/tables/{table_id}/state", token=tokens[mover])
            choice = state["legal"][0]["json"]
            sent = time.perf_counter()
            try:
                status, _ = _request(port, "POST", f"/api/tables/{table_id}/actions",
                                     {"version": state["version"], "action": choice}, token=tokens[mover], timeout=30)
            except (OSError, http.client.HTTPException):
                status = None
            answered = time.perf_counter()
            if status != 200:
                phase.failures += 1
                continue
            phase.rest.append(answered - sent)
            version = state["version"] + 1
            wait_until = time.perf_counter() + 30
            while version not in watcher.arrived and time.perf_counter() < wait_until:
                time.sleep(0.001)
            if version in watcher.arrived:
                phase.delivered.append(watcher.arrived[version] - sent)
            else:
                phase.failures += 1
    finally:
        if attacker is not None:
            attacker.stop()
        watcher.stop()


def run_soak(seconds: float = 10.0, game: str = "splendor", flood: int = 3000, max_moves: int = 2000,
             limits=None, reviews: int = 0) -> list[dict[str, Any]]:
    """Both phases against one fresh server; returns one row per phase.  ``reviews``: the
    second phase is a burst of that many review requests instead of the flood."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'soak.sqlite3'}"
        with _Server(url, limits=limits) as server:
            finished = _finished_tables(server.port, game, reviews) if reviews else None
            second = ("review burst", None) if reviews else ("flooding stalled spectator", flood)
            rows = []
            for name, attack in (("alone", None), second):
                phase = Phase(name)
                _play(server.port, game, phase, seconds, max_moves, attack,
                      finished if name == "review burst" else None)
                rows.append(phase.row())
            return rows


def summary_ok(rows: list[dict[str, Any]], factor: float = 3.0, slack_ms: float = 50.0) -> bool:
    """The attacked phase's p99 within ``factor`` × the baseline's p99 plus ``slack_ms``."""
    base, attacked = rows[0], rows[1]
    ok = attacked["moves"] > 0 and attacked["failed"] == 0
    for key in ("rest_p99_ms", "ws_p99_ms"):
        ok = ok and attacked[key] <= factor * base[key] + slack_ms
    return ok


__all__ = ["run_soak", "summary_ok"]
