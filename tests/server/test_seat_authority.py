"""A seat's connection lasts only as long as its holder's right to the seat.

Whatever ends a seat holder's right — leaving, being removed by the host, the seat going to
another player — closes every connection opened with the old token (close code 4401, after an
``error`` with code ``seat_lost``), at once and at every worker: the old holder is sent nothing
of the seat any more, and what they send (moves, chat) is refused.

In-process (TestClient), then over real WebSockets against real `gemtable serve` processes:
one on SQLite, and two workers on one PostgreSQL database with the old holder at the other
worker than the one where the seat changes hands.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, select, update
from starlette.websockets import WebSocketDisconnect

from gemtable.server import inplay
from gemtable.server.db import ChatRow, SeatRow, bump, normalize_url

from .conftest import free_port, seat_socket, spawn_server, wait_serving
from .test_chat import until
from .test_players import named
from .test_robustness import JSON
from .test_workers import Player

CLOSE_SEAT_LOST = 4401


# -- in-process ----------------------------------------------------------------------------------
def _lobby_table(client, players=3, name="Ann"):
    ann = named(client, name, host="203.0.113.7")
    seats = [{"kind": "me"}] + [{"kind": "open"}] * (players - 1)
    r = ann.post("/api/tables", json={"game": "toy", "players": players, "seats": seats})
    assert r.status_code == 201, r.text
    return ann, r.json()["table"]["id"]


def _closed_with(ws) -> int:
    """Read until the server closes the socket; the close code."""
    try:
        for _ in range(50):
            ws.receive_json()
    except WebSocketDisconnect as exc:
        return exc.code
    raise AssertionError("the socket was not closed")


@pytest.mark.parametrize("how", ["kick", "leave"])
def test_a_removed_holder_is_cut_off_and_the_new_holder_plays(client, how):
    ann, tid = _lobby_table(client)
    mallory = named(client, "Mallory", host="203.0.113.66")
    joined = mallory.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()
    assert joined["seat"] == 1
    with seat_socket(mallory, tid, joined["token"]) as old:
        assert until(old, lambda m: m["type"] == "state")["seat"] == 1
        if how == "kick":
            assert ann.post(f"/api/tables/{tid}/kick", json={"seat": 1}).status_code == 200
        else:
            assert mallory.post(f"/api/tables/{tid}/leave").status_code == 200
        # the old socket is told, then closed: nothing of the seat reaches it any more
        err = old.receive_json()  # the first message after the change
        assert err["type"] == "error" and err["code"] == "seat_lost", err
        assert _closed_with(old) == CLOSE_SEAT_LOST
    carol = named(client, "Carol", host="203.0.113.67")
    dave = named(client, "Dave", host="203.0.113.68")
    carol_token = carol.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()["token"]
    assert carol_token != joined["token"]
    assert dave.post(f"/api/tables/{tid}/join", json={"seat": 2}).status_code == 200
    # the old token opens no seat, and acts nowhere
    with seat_socket(mallory, tid, joined["token"]) as again:
        msg = again.receive_json()
        assert msg["type"] == "error" and msg["code"] == "bad_token"
    r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": joined["token"]},
                    json={"version": 0, "action": {"type": "pick", "n": 1}})
    assert r.status_code == 403
    with seat_socket(carol, tid, carol_token) as ws:
        assert until(ws, lambda m: m["type"] == "state")["seat"] == 1


def _mallory_seated(client, players: int, name: str = "Mallory"):
    """A lobby table of ``players`` seats with ``name`` in seat 1: (table id, her token, her client)."""
    _ann, tid = _lobby_table(client, players=players)
    mallory = named(client, name, host="203.0.113.66")
    return tid, mallory.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()["token"], mallory


def _chat_lines(manager, tid: str) -> list[str]:
    with manager.db.session() as s:
        return [r.text for r in s.scalars(select(ChatRow).where(ChatRow.table_id == tid, ChatRow.system.is_(False)))]


def test_a_socket_opened_before_the_seat_changed_hands_cannot_act_or_chat(client):
    """The old holder's message arrives after the seat changed hands (no broadcast in between):
    it is refused and the socket closed, and the table is as it was."""
    # the seat is taken by the only open seat's join: the game starts at once
    tid, token, mallory = _mallory_seated(client, players=2)
    manager = client.app.state.manager
    with seat_socket(mallory, tid, token) as old:
        assert until(old, lambda m: m["type"] == "state")["seat"] == 1
        table = client.portal.call(manager.get, tid)
        # the seat passes to someone else without any message reaching the old socket
        table.seats[1].token = "a-new-holder-s-token"
        version = table.version
        old.send_json({"type": "chat", "text": "hello from the old holder"})
        old.send_json({"type": "action", "version": version, "action": {"type": "pick", "n": 1}})
        err = old.receive_json()  # the answer to the chat line
        assert err["type"] == "error" and err["code"] == "seat_lost", err
        assert _closed_with(old) == CLOSE_SEAT_LOST
    assert table.version == version
    assert not _chat_lines(manager, tid)


def test_a_chat_line_is_refused_once_the_database_gives_the_seat_to_another(client):
    """The seat changed hands at another worker: the database has the new token (and the
    table's next revision), this worker's copy of the table, the notice still on its way, the
    old one.  The old holder's chat line is refused and the socket closed; nothing is stored."""
    tid, token, mallory = _mallory_seated(client, players=3)  # (a seat left: the table waits)
    manager = client.app.state.manager
    with seat_socket(mallory, tid, token) as old:
        assert until(old, lambda m: m["type"] == "state")["seat"] == 1
        table = client.portal.call(manager.get, tid)
        with manager.db.session() as s:
            s.execute(update(SeatRow).where(SeatRow.table_id == tid, SeatRow.seat == 1)
                      .values(token="the-new-holder-s-token"))
            bump(s, tid, table.rev)
            s.commit()
        assert table.seats[1].token == token  # (this worker has not heard of it)
        old.send_json({"type": "chat", "text": "Mallory was here"})
        err = old.receive_json()
        assert err["type"] == "error" and err["code"] == "seat_lost", err
        assert _closed_with(old) == CLOSE_SEAT_LOST
    assert not _chat_lines(manager, tid)


def test_the_seat_holder_still_chats(client):
    tid, token, bob = _mallory_seated(client, players=3, name="Bob")
    with seat_socket(bob, tid, token) as ws:
        until(ws, lambda m: m["type"] == "state")
        ws.send_json({"type": "chat", "text": "good luck"})
        line = until(ws, lambda m: m["type"] == "chat" and not m["line"]["system"])["line"]
        assert line["text"] == "good luck" and line["seat"] == 1


def test_spectators_are_not_affected_by_a_seat_change(client):
    ann, tid = _lobby_table(client)
    mallory = named(client, "Mallory", host="203.0.113.66")
    mallory.post(f"/api/tables/{tid}/join", json={"seat": 1})
    with seat_socket(client, tid) as watcher:
        until(watcher, lambda m: m["type"] == "state")
        assert ann.post(f"/api/tables/{tid}/kick", json={"seat": 1}).status_code == 200
        msg = until(watcher, lambda m: m["type"] == "state" and m["table"]["seats"][1]["player"] is None)
        assert msg["seat"] is None
        watcher.send_json({"type": "ping"})
        assert until(watcher, lambda m: m["type"] == "pong")


FUZZ = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(msg=st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "chat", "undo", "take_seat", "refresh", "ping", "mute_spectators", "x"])},
    optional={"version": st.integers(-3, 5), "text": st.text(max_size=20),
              "action": st.one_of(st.just({"type": "pick", "n": 1}), JSON), "on": st.booleans()}))
def test_any_message_from_a_removed_holder_is_refused_and_changes_nothing(client, msg):
    n = next(FUZZ)
    ann, tid = _lobby_table(client, players=2, name=f"Ann{n}")
    mallory = named(client, f"Mallory{n}", host="203.0.113.66")
    token = mallory.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()["token"]
    manager = client.app.state.manager
    with seat_socket(mallory, tid, token) as old:
        until(old, lambda m: m["type"] == "state")
        table = client.portal.call(manager.get, tid)
        table.seats[1].token = "another-holder"
        played = inplay.rec(table)
        before = (table.version, len(played.chat or ()), played.play.to_json() if played.play else None)
        old.send_json(msg)
        err = old.receive_json()  # the answer
        assert err["type"] == "error" and err["code"] == "seat_lost", err
        assert _closed_with(old) == CLOSE_SEAT_LOST
    assert (table.version, len(played.chat or ()), played.play.to_json() if played.play else None) == before


# -- real servers over real WebSockets -------------------------------------------------------------
class Socket(Player):
    """A browser tab's WebSocket (test_workers.Player) that also keeps how the server closed it
    (``code``) and reads everything up to the close (``rest``)."""

    def __init__(self, port: int, table_id: str, token: str | None, cookies: httpx.Cookies | None = None) -> None:
        self.code: int | None = None
        super().__init__(SimpleNamespace(port=port), table_id, token, cookies)

    def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                self.messages.put(json.loads(self.ws.recv()))
        except ConnectionClosed as exc:
            self.code = exc.rcvd.code if exc.rcvd is not None else None
        except Exception:
            pass
        self.closed = True
        self.messages.put(None)

    def rest(self, timeout: float = 30.0) -> list[dict]:
        """Every message until the server closes the socket."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            if msg is None:
                return out
            out.append(msg)


def _browser(url: str, name: str, stack: contextlib.ExitStack) -> httpx.Client:
    c = stack.enter_context(httpx.Client(base_url=url, timeout=30))
    assert c.post("/api/me", json={"name": name}).status_code == 200
    return c


def _the_attack(host_url: str, other_url: str, other_port: int, chat_rows) -> None:
    """The host H (at ``host_url``) makes a 3-seat Splendor table with two open seats; Mallory
    joins seat 1 and opens her socket at the other worker; H removes her; Carol and Dave take
    the seats (the game starts).  Mallory's socket is closed and gets nothing of seat 1; what
    she sends is not applied nor stored."""
    with contextlib.ExitStack() as stack:
        host, mallory, carol, dave = (_browser(url, name, stack) for url, name in (
            (host_url, "Hana"), (other_url, "Mallory"), (host_url, "Carol"), (host_url, "Dave")))
        r = host.post("/api/tables", json={"game": "splendor", "players": 3,
                                           "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
        assert r.status_code == 201, r.text
        tid = r.json()["table"]["id"]
        joined = mallory.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()
        old = Socket(other_port, tid, joined["token"], mallory.cookies)
        try:
            assert old.until(lambda m: m["type"] == "state")["seat"] == 1
            assert host.post(f"/api/tables/{tid}/kick", json={"seat": 1}).status_code == 200
            carol_token = carol.post(f"/api/tables/{tid}/join", json={"seat": 1}).json()["token"]
            assert dave.post(f"/api/tables/{tid}/join", json={"seat": 2}).status_code == 200
            for msg in ({"type": "chat", "text": "Mallory was here"},
                        {"type": "action", "version": 0, "action": {"type": "take", "colours": ["white", "blue", "red"]}}):
                try:  # (the socket may be closed already)
                    old.send(msg)
                except Exception:
                    pass
            rest = old.rest()
            assert old.code == CLOSE_SEAT_LOST, (old.code, rest)
            assert any(m["type"] == "error" and m["code"] == "seat_lost" for m in rest), rest
            # nothing of seat 1 after the removal: no private view, no legal moves, no start
            for m in rest:
                if m["type"] == "state":
                    assert m["table"]["status"] == "waiting" and not m["legal"], m
            # Carol plays seat 1; the old socket's messages, had they got through, would show in
            # the log and the chat: a move by seat 1 now is Carol's, and no chat line is Mallory's
            info = host.get(f"/api/tables/{tid}").json()
            assert info["status"] == "running" and info["seats"][1]["player"] == "Carol"
            state = carol.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": carol_token}).json()
            assert state["seat"] == 1
        finally:
            old.close()
        # a reconnect with the old token is refused at either worker
        for port in {other_port, int(host_url.rsplit(":", 1)[1])}:
            again = Socket(port, tid, joined["token"])
            msgs = again.rest()
            assert again.code == 4403 and msgs[0]["code"] == "bad_token"
        assert not [t for t in chat_rows(tid) if "Mallory" in t]
        with httpx.Client(base_url=host_url, timeout=30) as anyone:
            assert anyone.get(f"/api/tables/{tid}").json()["version"] == 0  # nobody moved


def _chat_rows(db_url: str):
    def rows(tid: str) -> list[str]:
        engine = create_engine(normalize_url(db_url))
        try:
            with engine.connect() as conn:
                return [f"{r.name}: {r.text}" for r in conn.execute(
                    select(ChatRow).where(ChatRow.table_id == tid, ChatRow.system.is_(False)))]
        finally:
            engine.dispose()
    return rows


def _serve(db_url: str, log: Path):
    port = free_port()
    return wait_serving(spawn_server(db_url, port, log), port, log), port


def _stop(proc) -> None:
    import os
    import signal

    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def test_the_attack_over_real_websockets_on_sqlite(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'seats.sqlite3'}"
    proc, port = _serve(db_url, tmp_path / "server.log")
    try:
        url = f"http://127.0.0.1:{port}"
        _the_attack(url, url, port, _chat_rows(db_url))
    finally:
        _stop(proc)


def test_the_attack_over_real_websockets_with_two_workers_on_postgresql(postgres_url, tmp_path):
    a, port_a = _serve(postgres_url, tmp_path / "a.log")
    b, port_b = _serve(postgres_url, tmp_path / "b.log")
    try:
        # the host acts at worker A; Mallory's socket is at worker B
        _the_attack(f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}", port_b, _chat_rows(postgres_url))
        for log in ("a.log", "b.log"):
            text = (tmp_path / log).read_text(errors="replace")
            assert "Traceback" not in text and "internal error" not in text
    finally:
        _stop(a)
        _stop(b)
