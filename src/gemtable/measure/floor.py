"""What a move costs the table server before any of gemtable's own work: the transport floor.

``gemtable loadtest`` measures the whole server's CPU per move.  This benchmark measures the
part of it no change to gemtable's application code can remove, on the same stack: uvicorn
with gemtable's WebSocket protocol (``server.wsserver.TableSocketProtocol``: websockets'
sans-I/O implementation, permessage-deflate as served) and a bare ASGI application that does
no game work.  Pairs of sockets take turns like the two seats of a table; each message a
seat sends is answered with one state message to each of the two seats.  The state messages
are real ones, encoded before the run: the views and legal actions of a seeded random game
(``--game``), so that compression sees what it sees in play.

Two servers are measured, one after the other:

- ``transport``: receive a frame, send two.
- ``transport + commit``: the same, and each move stored before it is answered, as the table
  server stores it on SQLite: an action row and the table's revision, in one transaction of
  a database thread with ``synchronous=FULL`` (on disk when the commit returns), the moves
  that arrive while a commit is under way grouped into the next one.

Run::

    python -m gemtable.measure.floor --pairs 300 --seconds 20

It prints, per server, moves a second, server CPU (100 % = one core) and CPU milliseconds
per move, the kernel's share of it, and the mean moves per commit.  Like ``loadtest``, the
clients run on the same machine; measure on an otherwise quiet one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from typing import Any

import orjson

from .common import free_port, stop_process
from .loadtest import proc_times

_STATEMENTS = (
    "CREATE TABLE IF NOT EXISTS tables (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, updated_at TEXT NOT NULL)",
    ("CREATE TABLE IF NOT EXISTS actions (table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, "
     "action TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (table_id, idx))"),
)


ACTION = '{"type":"action","action":{"type":"take","gems":[0,1,2]},"version":VERSION}'  # what a seat sends


def state_messages(game_id: str, players: int = 2, seed: int = 1, limit: int = 200) -> list[list[str]]:
    """Encoded state messages of one seeded random game: ``[version][seat]``, each the seat's
    view, the seats to move and (for a mover) its legal actions as the table sends them."""
    from gemtable.core.registry import get_game

    game = get_game(game_id)
    state = game.new(players, seed=seed)
    rng = random.Random(seed)
    out: list[list[str]] = []
    for version in range(limit):
        movers = list(state.to_move())
        row = []
        for seat in range(players):
            legal = ([{"id": a.id, "type": a.type, "json": a.to_json(), "text": state.action_text(seat, a)}
                      for a in state.legal_actions(seat)] if seat in movers else [])
            row.append(orjson.dumps({"type": "state", "seat": seat, "version": version, "view": state.view(seat),
                                     "to_move": movers, "legal": legal, "log": []},
                                    option=orjson.OPT_NON_STR_KEYS).decode())
        out.append(row)
        if state.is_over() or not movers:
            break
        mover = movers[0]
        state.apply(mover, rng.choice(state.legal_actions(mover)))
    return out


class _Commits:
    """A move's row stored before it is answered: grouped SQLite commits in one database thread."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        for sql in _STATEMENTS:
            self.conn.execute(sql)
        self.waiting: list[tuple[tuple, asyncio.Future]] = []
        self.flushing = False
        self.groups = self.moves = 0  # (one group at a time: the next starts when one is flushed)

    async def store(self, table_id: str, index: int, seat: int, action: str) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self.waiting.append(((table_id, index, seat, action), done))
        if not self.flushing:
            self._next(loop)
        await done

    def _next(self, loop: asyncio.AbstractEventLoop) -> None:
        group, self.waiting = self.waiting, []
        self.flushing = True
        fut = loop.run_in_executor(None, self._flush, [row for row, _ in group])

        def flushed(f: asyncio.Future) -> None:
            self.flushing = False
            self.groups += 1
            self.moves += len(group)
            for _, done in group:
                if not done.done():
                    done.set_result(None) if f.exception() is None else done.set_exception(f.exception())
            if self.waiting:
                self._next(loop)
        fut.add_done_callback(flushed)

    def _flush(self, rows: list[tuple]) -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        for table_id, index, seat, action in rows:
            c.execute("INSERT INTO tables VALUES (?, 0, ?) ON CONFLICT (id) DO UPDATE SET rev = rev + 1, "
                      "updated_at = excluded.updated_at", (table_id, stamp))
            c.execute("INSERT OR REPLACE INTO actions VALUES (?, ?, ?, ?, ?)", (table_id, index, seat, action, stamp))
        c.execute("COMMIT")


def make_app(messages: list[list[str]], commits: _Commits | None):
    """The bare ASGI application: no game, no views, no routing; ``GET /stats`` answers the
    commit counters."""
    seats: dict[str, list[Any]] = {}  # a table's sockets, by path
    moves: dict[str, int] = {}  # a table's moves, whichever seat sent them

    async def app(scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                m = await receive()
                await send({"type": m["type"] + ".complete"})
                if m["type"] == "lifespan.shutdown":
                    return
        if scope["type"] == "http":
            await receive()
            body = json.dumps({"groups": commits.groups if commits else 0,
                               "moves": commits.moves if commits else 0}).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        table = scope["path"]
        members = seats.setdefault(table, [])
        seat = len(members)
        members.append(send)
        try:
            while True:
                m = await receive()
                if m["type"] == "websocket.disconnect":
                    return
                data = orjson.loads(m.get("text") or b"{}")
                version = moves[table] = moves.get(table, 0) + 1  # the table's moves so far
                if commits is not None:
                    await commits.store(table, version - 1, seat, orjson.dumps(data.get("action")).decode())
                row = messages[version % len(messages)]
                for i, peer in enumerate(list(members)):
                    await peer({"type": "websocket.send", "text": row[i % len(row)]})
        finally:
            members.remove(send)

    return app


def serve(port: int, game: str, commit_path: str | None) -> None:
    """(The server process) Serve the bare application on 127.0.0.1:``port``."""
    import uvicorn

    commits = _Commits(commit_path) if commit_path else None
    app = make_app(state_messages(game), commits)
    uvicorn.run(app, host="127.0.0.1", port=port, ws="gemtable.server.wsserver:TableSocketProtocol",
                log_level="warning", lifespan="on")


async def _drive(port: int, pairs: int, seconds: float, warmup: float, think: float, pid: int) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    counted = {"moves": 0, "on": False}
    stop = asyncio.Event()

    async def table(i: int) -> None:
        rng = random.Random(i)
        socks = [await connect(f"ws://127.0.0.1:{port}/t{i}", max_size=None) for _ in range(2)]
        answered = [asyncio.Event(), asyncio.Event()]  # set by a seat's reader at each message
        readers = [asyncio.create_task(_drain(s, e)) for s, e in zip(socks, answered)]
        turn = 0
        try:
            while not stop.is_set():
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                seat = turn % 2
                answered[seat].clear()
                await socks[seat].send(ACTION.replace("VERSION", str(turn)))
                await answered[seat].wait()  # the mover's own answer
                if counted["on"]:
                    counted["moves"] += 1
                turn += 1
        finally:
            for r in readers:
                r.cancel()
            for s in socks:
                await s.close()

    tasks = [asyncio.create_task(table(i)) for i in range(pairs)]
    await asyncio.sleep(warmup)
    counted["on"] = True
    cpu0, _, sys0 = proc_times([pid])
    t0 = time.monotonic()
    await asyncio.sleep(seconds)
    cpu1, _, sys1 = proc_times([pid])
    elapsed = time.monotonic() - t0
    moves = counted["moves"]
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    cpu = cpu1 - cpu0
    return {"moves": moves, "moves_per_s": round(moves / elapsed, 1), "server_cpu_pct": round(100 * cpu / elapsed, 1),
            "server_cpu_ms_per_move": round(1000 * cpu / moves, 3) if moves else None,
            "kernel_pct_of_cpu": round(100 * (sys1 - sys0) / cpu, 1) if cpu else None}


async def _drain(ws, answered: asyncio.Event) -> None:
    """Read a seat's messages until its socket closes (at the end of the run)."""
    from websockets.exceptions import ConnectionClosed

    with contextlib.suppress(ConnectionClosed):
        async for _ in ws:
            answered.set()


def measure(pairs: int = 300, seconds: float = 20.0, warmup: float = 8.0, think: float = 1.0,
            game: str = "splendor", commit: bool = False) -> dict[str, Any]:
    """Start one bare server (with or without the commit), load it, stop it; its figures."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="gemtable-floor-") as folder:
        db = os.path.join(folder, "floor.db") if commit else ""
        proc = subprocess.Popen([sys.executable, "-m", "gemtable.measure.floor", "--serve", str(port), "--game", game,
                                 "--db", db], stdin=subprocess.DEVNULL)
        try:
            _wait_ready(port, proc)
            report = asyncio.run(_drive(port, pairs, seconds, warmup, think, proc.pid))
            if commit:
                stats = _get_stats(port)
                report["moves_per_commit"] = round(stats["moves"] / stats["groups"], 2) if stats["groups"] else None
        finally:
            stop_process(proc)
    report["server"] = "transport + commit" if commit else "transport"
    return report


def _get_stats(port: int) -> dict[str, Any]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/stats")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def _wait_ready(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the bare server exited ({proc.returncode})")
        try:
            _get_stats(port)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the bare server did not answer within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m gemtable.measure.floor",
                                description="CPU per move of a bare server on gemtable's WebSocket stack.")
    p.add_argument("--pairs", type=int, default=300, help="tables (pairs of sockets) played at once")
    p.add_argument("--seconds", type=float, default=20.0, help="seconds measured after the warm-up")
    p.add_argument("--warmup", type=float, default=8.0, help="seconds of warm-up left out of the figures")
    p.add_argument("--think", type=float, default=1.0, help="seconds a seat waits before each move (x 0.5-1.5)")
    p.add_argument("--game", default="splendor", help="the game whose state messages are sent")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    p.add_argument("--db", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(args.serve, args.game, args.db or None)
        return
    if args.pairs < 1 or args.seconds <= 0 or args.warmup < 0 or args.think <= 0:
        p.error("--pairs, --seconds and --think must be positive, --warmup not negative")
    reports = [measure(args.pairs, args.seconds, args.warmup, args.think, args.game, commit)
               for commit in (False, True)]
    if args.json:
        print(json.dumps(reports, indent=2))
        return
    print(f"{args.pairs} tables x 2 seats, {args.game} state messages, think {args.think:g} s, "
          f"measured {args.seconds:g} s after {args.warmup:g} s")
    for r in reports:
        extra = f", {r['moves_per_commit']} moves per commit" if r.get("moves_per_commit") else ""
        print(f"{r['server']:>20}: {r['moves_per_s']} moves/s | server CPU {r['server_cpu_pct']} % "
              f"({r['server_cpu_ms_per_move']} ms per move, {r['kernel_pct_of_cpu']} % of it in the kernel){extra}")


if __name__ == "__main__":
    main()
