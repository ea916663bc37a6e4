"""Table chat: stored before it is sent, text only, limited, mutable for spectators;
and every in-table WebSocket message fuzzed (no crash, a refused message changes nothing)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from gemtable.games.registry import all_games
from gemtable.server import chat as chatmod
from gemtable.server import inplay
from gemtable.server.db import ActionRow, ChatRow, PlayRow
from gemtable.server.limits import RateLimiter

from .conftest import create, seat_socket
from .toy_turns import TURNS_GAME

HUMANS2 = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def until(ws, pred, limit=60):
    for _ in range(limit):
        msg = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("expected message never came")


def lines_in_db(client, tid):
    with client.app.state.manager.db.session() as s:
        return [r.text for r in s.scalars(select(ChatRow).where(ChatRow.table_id == tid).order_by(ChatRow.id))]


def table2(client):
    res = create(client, seats=HUMANS2)
    return res["table"]["id"], [s["token"] for s in res["seats"]]


def test_a_line_reaches_seats_and_spectators_as_plain_text(client):
    tid, tokens = table2(client)
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob, \
            seat_socket(client, tid) as spec:
        for ws in (ann, bob, spec):
            assert until(ws, lambda m: m["type"] == "state")["chat"] == []
        ann.send_json({"type": "chat", "text": "  <b>hi</b>\x00 \u202e there\n\t!  "})
        lines = [until(ws, lambda m: m["type"] == "chat")["line"] for ws in (ann, bob, spec)]
        assert lines[0] == lines[1] == lines[2]
        line = lines[0]
        # control and bidi characters gone, spaces folded; markup stays literal text (the client shows text)
        assert line["text"] == "<b>hi</b> there !"
        assert (line["seat"], line["name"], line["system"]) == (0, "Ann", False)
        assert isinstance(line["id"], int) and line["at"].endswith("Z")
        spec.send_json({"type": "chat", "text": "gg"})
        line2 = until(bob, lambda m: m["type"] == "chat")["line"]
        assert (line2["seat"], line2["name"], line2["text"]) == (None, "Spectator", "gg")
        assert line2["id"] > line["id"]
    # a new connection gets the recent lines with its state
    with seat_socket(client, tid) as late:
        assert [x["text"] for x in until(late, lambda m: m["type"] == "state")["chat"]] == ["<b>hi</b> there !", "gg"]
    assert lines_in_db(client, tid) == ["<b>hi</b> there !", "gg"]


def test_a_line_is_stored_before_anyone_is_sent_it(client, monkeypatch):
    tid, tokens = table2(client)
    manager = client.app.state.manager
    manager.db_retry_for = 0.1

    def broken(*_args, **_kwargs):
        raise OperationalError("INSERT", {}, Exception("database is locked"))

    monkeypatch.setattr(chatmod, "store_line", broken)
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob:
        until(ann, lambda m: m["type"] == "state")
        until(bob, lambda m: m["type"] == "state")
        ann.send_json({"type": "chat", "text": "hello"})
        err = until(ann, lambda m: m["type"] in ("error", "chat"))
        assert err["type"] == "error" and err["code"] == "storage"
        bob.send_json({"type": "ping"})
        assert until(bob, lambda m: m["type"] in ("pong", "chat"))["type"] == "pong"  # Bob never saw it
    assert lines_in_db(client, tid) == []
    assert not inplay.rec(client.app.state.manager.tables[tid]).chat


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01\u200b", "x" * 501, "\ud800x", 123, None, ["x"], {"t": 1}])
def test_bad_lines_are_refused_and_stored_nowhere(client, text):
    tid, tokens = table2(client)
    with seat_socket(client, tid, tokens[0]) as ann:
        until(ann, lambda m: m["type"] == "state")
        # json.dumps escapes a lone surrogate as \ud800, as a browser's JSON.stringify does
        ann.send_text(json.dumps({"type": "chat", "text": text}))
        err = until(ann, lambda m: m["type"] in ("error", "chat"))
        assert err["type"] == "error" and err["code"] == "bad_chat" and err["message"]
        ann.send_json({"type": "chat", "text": "x" * 500})  # the longest line is fine
        assert len(until(ann, lambda m: m["type"] == "chat")["line"]["text"]) == 500
    assert lines_in_db(client, tid) == ["x" * 500]


def test_chat_is_rate_limited_per_seat_not_per_connection(client):
    tid, tokens = table2(client)
    client.app.state.inplay.chat_limiter = RateLimiter(0.001, 3)
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[0]) as ann2, \
            seat_socket(client, tid) as spec:
        for ws in (ann, ann2, spec):
            until(ws, lambda m: m["type"] == "state")
        for i in range(3):
            ann.send_json({"type": "chat", "text": f"line {i}"})
            until(ann, lambda m: m["type"] == "chat")
        ann2.send_json({"type": "chat", "text": "from another tab"})  # same seat: same allowance
        err = until(ann2, lambda m: m["type"] == "error")
        assert err["code"] == "rate_limited" and "wait" in err["message"]
        ann.send_json({"type": "ping"})
        assert until(ann, lambda m: m["type"] == "pong")  # still connected
        spec.send_json({"type": "chat", "text": "a spectator has its own allowance"})
        own = until(spec, lambda m: m["type"] == "chat" and m["line"]["text"].startswith("a spectator"))
        assert own["line"]["seat"] is None
    assert lines_in_db(client, tid) == ["line 0", "line 1", "line 2", "a spectator has its own allowance"]


def test_the_host_mutes_spectators(client):
    tid, tokens = table2(client)  # seat 0 (the first invite seat) hosts
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob, \
            seat_socket(client, tid) as spec:
        for ws in (ann, bob, spec):
            until(ws, lambda m: m["type"] == "state")
        for ws in (bob, spec):
            ws.send_json({"type": "mute_spectators", "on": True})
            assert until(ws, lambda m: m["type"] == "error")["code"] == "not_host"
        ann.send_json({"type": "mute_spectators", "on": "yes"})
        assert until(ann, lambda m: m["type"] == "error")["code"] == "malformed"
        assert client.get(f"/api/tables/{tid}").json()["mute_spectators"] is False
        ann.send_json({"type": "mute_spectators", "on": True})
        line = until(spec, lambda m: m["type"] == "chat")["line"]
        assert line["system"] and line["text"] == "The host muted spectators' chat."
        assert until(spec, lambda m: m["type"] == "presence")["table"]["mute_spectators"] is True
        spec.send_json({"type": "chat", "text": "hello?"})
        assert until(spec, lambda m: m["type"] == "error")["code"] == "muted"
        bob.send_json({"type": "chat", "text": "seats still talk"})
        assert until(spec, lambda m: m["type"] == "chat")["line"]["text"] == "seats still talk"
        ann.send_json({"type": "mute_spectators", "on": False})
        until(spec, lambda m: m["type"] == "chat" and m["line"]["system"])
        spec.send_json({"type": "chat", "text": "thanks"})
        assert until(spec, lambda m: m["type"] == "chat")["line"]["text"] == "thanks"
    assert lines_in_db(client, tid) == ["The host muted spectators' chat.", "seats still talk",
                                        "The host let spectators chat again.", "thanks"]
    # the mute is stored: a restart keeps it (see PlayRow)
    with client.app.state.manager.db.session() as s:
        assert s.get(PlayRow, tid).data["mute"] is False


# -- fuzz: every in-table message, from a seat or a spectator --------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(["chat", "undo", "take_seat", "mute_spectators"])},
    optional={"text": st.text(max_size=30) | st.sampled_from(["\ud800", "", "x" * 600]) | JSON,
              "on": st.booleans() | JSON, "seat": JSON, "version": JSON},
)


def _snapshot(client, tid):
    manager = client.app.state.manager
    with manager.db.session() as s:
        rows = s.scalar(select(func.count()).select_from(ActionRow).where(ActionRow.table_id == tid))
        chat = s.scalar(select(func.count()).select_from(ChatRow).where(ChatRow.table_id == tid))
        play = s.get(PlayRow, tid)
        play = json.dumps(play.data, sort_keys=True) if play else None
    table = manager.tables[tid]
    return rows, chat, play, table.version, json.dumps(inplay.rec(table).play.to_json(), sort_keys=True)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(msg=MESSAGE, who=st.sampled_from([0, 1, None]))
def test_fuzzed_in_table_messages_never_crash_and_refusals_change_nothing(client, monkeypatch, msg, who):
    monkeypatch.setitem(all_games(), "turns", TURNS_GAME)
    res = create(client, game="turns", seats=HUMANS2, seed=1)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": tokens[0]},
                json={"version": 0, "action": {"type": "step", "n": 1}})
    before = _snapshot(client, tid)
    with seat_socket(client, tid, tokens[who] if who is not None else None) as ws:
        until(ws, lambda m: m["type"] == "state")
        ws.send_text(json.dumps(msg))
        ws.send_json({"type": "ping"})
        got = []
        while True:
            m = ws.receive_json()
            got.append(m)
            if m["type"] == "pong":
                break
    errors = [m for m in got if m["type"] == "error"]
    if errors:
        assert all(e["code"] and e["message"] for e in errors)
        assert _snapshot(client, tid) == before, (msg, errors)
