"""Undo: a seat takes back its own moves within its turn, never past a draw or reveal.

The toy game ``turns`` (toy_turns.py) has free moves (step, pass) and checkpoints
(show reveals a card, done draws one); Splendor's pay-with-gold step is the real case.
"""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import func, select

from gemtable.core import Rng
from gemtable.games.registry import all_games, get_game
from gemtable.server import create_app
from gemtable.server.db import ActionRow, ChatRow
from gemtable.server.limits import Limits

from .conftest import create, seat_socket
from .test_lobby import wait_for
from .test_players import named
from .toy_turns import TURNS_GAME

HUMANS2 = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


@pytest.fixture
def turns(monkeypatch):
    monkeypatch.setitem(all_games(), "turns", TURNS_GAME)
    return TURNS_GAME


def until(ws, pred, limit=60):
    for _ in range(limit):
        msg = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("expected message never came")


def state_msg(ws):
    return until(ws, lambda m: m["type"] == "state")


def count(client, model, table_id):
    with client.app.state.manager.db.session() as s:
        return s.scalar(select(func.count()).select_from(model).where(model.table_id == table_id))


def act(client, tid, token, action, version):
    r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                    json={"version": version, "action": action})
    assert r.status_code == 200, r.text
    return r.json()


def step(n):
    return {"type": "step", "n": n}


def views(client, tid, tokens):
    """What every seat and a spectator sees (view and log), without the version counters."""
    out = []
    for token in list(tokens) + [None]:
        headers = {"X-Seat-Token": token} if token else {}
        p = client.get(f"/api/tables/{tid}/state", headers=headers).json()
        out.append((p["view"], [{k: v for k, v in e.items() if k != "move"} for e in p["log"]],
                    p["to_move"], [a["json"] for a in p["legal"]]))
    return out


def test_undo_takes_back_a_free_move_and_says_so(client, turns):
    res = create(client, game="turns", seats=HUMANS2, seed=5)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    before = views(client, tid, tokens)
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob:
        assert state_msg(ann)["can_undo"] is False
        state_msg(bob)
        payload = act(client, tid, tokens[0], step(2), 0)
        assert payload["can_undo"] is True and payload["version"] == 1
        assert state_msg(bob)["can_undo"] is False  # not Bob's move to take back
        state_msg(ann)
        ann.send_json({"type": "undo"})
        after = state_msg(ann)
        assert after["version"] == 0 and after["log_reset"] is True and after["log"] == []
        line = until(ann, lambda m: m["type"] == "chat")["line"]
        assert line["system"] is True and line["text"] == "Ann took back a move."
        assert state_msg(bob)["version"] == 0
        assert until(bob, lambda m: m["type"] == "chat")["line"]["id"] == line["id"]
    assert count(client, ActionRow, tid) == 0  # the action row is gone
    assert views(client, tid, tokens) == before  # every seat and spectator sees the position before it
    # the table plays on from there
    act(client, tid, tokens[0], step(1), 0)


def refused(ws, code):
    ws.send_json({"type": "undo"})
    msg = until(ws, lambda m: m["type"] == "error")
    assert msg["code"] == code, msg
    assert msg["message"]
    return msg


@pytest.mark.parametrize("case", ["nothing", "spectator", "not_yours", "checkpoint", "turn_over", "over"])
def test_undo_is_refused_with_a_reason_and_changes_nothing(client, turns, case):
    res = create(client, game="turns", seats=HUMANS2, seed=3)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    asker = tokens[0]
    if case == "spectator":
        act(client, tid, tokens[0], step(1), 0)
        asker = None
    elif case == "not_yours":  # Bob asks to undo Ann's step
        act(client, tid, tokens[0], step(1), 0)
        asker = tokens[1]
    elif case == "checkpoint":  # Ann showed her card: it cannot be hidden again
        act(client, tid, tokens[0], step(1), 0)
        act(client, tid, tokens[0], {"type": "show"}, 1)
    elif case == "turn_over":  # Ann passed: her turn is over although nothing was drawn
        act(client, tid, tokens[0], step(1), 0)
        act(client, tid, tokens[0], {"type": "pass"}, 1)
    elif case == "over":
        v = 0
        for _ in range(6):
            seat = client.get(f"/api/tables/{tid}").json()["to_move"][0]
            act(client, tid, tokens[seat], {"type": "pass"}, v)
            v += 1
    version = client.get(f"/api/tables/{tid}").json()["version"]
    rows, lines = count(client, ActionRow, tid), count(client, ChatRow, tid)
    before = views(client, tid, tokens)
    with seat_socket(client, tid, asker) as ws:
        first = state_msg(ws)
        assert first["can_undo"] is False
        msg = refused(ws, case)
        assert msg["version"] == version
    assert client.get(f"/api/tables/{tid}").json()["version"] == version
    assert count(client, ActionRow, tid) == rows and count(client, ChatRow, tid) == lines
    assert views(client, tid, tokens) == before


def test_each_undo_removes_one_move_back_to_the_last_checkpoint(client, turns):
    res = create(client, game="turns", seats=HUMANS2, seed=8)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    act(client, tid, tokens[0], {"type": "pass"}, 0)
    act(client, tid, tokens[1], {"type": "show"}, 1)  # Bob's checkpoint
    act(client, tid, tokens[1], step(1), 2)
    act(client, tid, tokens[1], step(2), 3)
    with seat_socket(client, tid, tokens[1]) as bob:
        state_msg(bob)
        for expected in (3, 2):
            bob.send_json({"type": "undo"})
            assert state_msg(bob)["version"] == expected
        refused(bob, "checkpoint")
    assert count(client, ActionRow, tid) == 2


def test_replay_of_a_finished_game_has_no_undone_action(client, turns):
    res = create(client, game="turns", seats=HUMANS2, seed=11)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    act(client, tid, tokens[0], step(2), 0)
    with seat_socket(client, tid, tokens[0]) as ann:
        state_msg(ann)
        ann.send_json({"type": "undo"})
        assert state_msg(ann)["version"] == 0
    act(client, tid, tokens[0], step(1), 0)
    v = 1
    while client.get(f"/api/tables/{tid}").json()["status"] != "finished":
        seat = client.get(f"/api/tables/{tid}").json()["to_move"][0]
        act(client, tid, tokens[seat], {"type": "pass"}, v)
        v += 1
    replay = client.get(f"/api/tables/{tid}/replay").json()
    actions = replay["match"]["actions"]
    assert actions[0] == [0, step(1)] and [0, step(2)] not in actions
    assert len(replay["frames"]) == len(actions) + 1 == v + 1
    assert "took_back" not in replay["result"]  # a free move taken back within the turn: nothing seen
    texts = [e["text"] for f in replay["frames"] for e in f["log"]]
    assert "Ann steps 2." not in texts and "Ann steps 1." in texts
    # the match file replays to the stored result
    from gemtable.core import Match

    match = Match.from_json(replay["match"])
    assert match.replay().scores() == replay["result"]["scores"]


def test_whole_turns_at_a_bot_table(client, turns):
    """One person against bots: undo takes back the person's last decision and the bots' replies.
    Taking back a draw there lets the person see what comes: the result says so (not rated)."""
    res = create(client, game="turns", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
                 seed=2)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    with seat_socket(client, tid, token) as ann:
        state_msg(ann)
        act(client, tid, token, step(1), 0)
        act(client, tid, token, {"type": "done"}, 1)  # draws a card: a checkpoint
        back = until(ann, lambda m: m["type"] == "state" and m["to_move"] == [0] and m["version"] > 2)
        assert back["can_undo"] is True
        ann.send_json({"type": "undo"})
        undone = until(ann, lambda m: m["type"] == "state" and m["version"] == 1)
        assert undone["to_move"] == [0] and undone["can_undo"] is True
        line = until(ann, lambda m: m["type"] == "chat")["line"]
        assert line["text"] == "Ann took back their last turn."
        ann.send_json({"type": "undo"})
        msg = until(ann, lambda m: m["type"] == "state")
        assert msg["version"] == 0 and msg["legal"]
        assert count(client, ActionRow, tid) == 0
        while not msg["over"]:  # Ann passes to the end
            act(client, tid, token, {"type": "pass"}, msg["version"])
            v = msg["version"]
            msg = until(ann, lambda m: m["type"] == "state" and m["version"] > v and (m["over"] or m["legal"]))
    assert msg["result"]["took_back"] == [0] and "replaced" not in msg["result"]
    assert client.get(f"/api/tables/{tid}/replay").json()["result"]["took_back"] == [0]


def splendor_pay_step(seed: int = 0):
    """A Splendor position (by random play from ``seed``) where seat to move can buy a card with gold:
    the buy is not a checkpoint and a pay step follows.  Returns (path, seat, buy)."""
    game = get_game("splendor")
    for s_ in range(seed, seed + 200):
        state, rng, path = game.new(2, seed=s_), Rng(s_), []
        for _ in range(300):
            if state.is_over():
                break
            p = state.to_move()[0]
            acts = state.legal_actions(p)
            for a in acts:
                if a.type == "buy" and not state.is_checkpoint(p, a):
                    after = state.clone()
                    after.apply(p, a)
                    if after.to_move() == (p,) and any(x.type == "pay" for x in after.legal_actions(p)):
                        return s_, path, p, a.to_json()
            a = acts[rng.below(len(acts))]
            path.append((p, a.to_json()))
            state.apply(p, a)
    raise AssertionError("no pay step found")


def test_splendor_pay_step_is_undone_without_leaking(client):
    seed, path, seat, buy = splendor_pay_step()
    res = create(client, game="splendor", seats=HUMANS2, seed=seed)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    for v, (p, a) in enumerate(path):
        act(client, tid, tokens[p], a, v)
    before = views(client, tid, tokens)
    payload = act(client, tid, tokens[seat], buy, len(path))
    assert payload["can_undo"] is True and {a["type"] for a in payload["legal"]} == {"pay"}
    with seat_socket(client, tid, tokens[seat]) as ws:
        state_msg(ws)
        ws.send_json({"type": "undo"})
        assert state_msg(ws)["version"] == len(path)
    assert views(client, tid, tokens) == before
    # paying (a refill from the deck: a checkpoint) cannot be undone
    act(client, tid, tokens[seat], buy, len(path))
    pay = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[seat]}).json()["legal"][0]["json"]
    act(client, tid, tokens[seat], pay, len(path) + 1)
    with seat_socket(client, tid, tokens[seat]) as ws:
        assert state_msg(ws)["can_undo"] is False
        ws.send_json({"type": "undo"})
        assert until(ws, lambda m: m["type"] == "error")["code"] in ("checkpoint", "turn_over")


def test_an_undo_survives_a_restart(db_url, turns, toy_registered):
    from fastapi.testclient import TestClient

    from gemtable.server import create_app
    from gemtable.server.limits import Limits

    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        res = create(c, game="turns", seats=HUMANS2, seed=4)
        tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
        act(c, tid, tokens[0], step(1), 0)
        act(c, tid, tokens[0], step(2), 1)
        with seat_socket(c, tid, tokens[0]) as ann:
            state_msg(ann)
            ann.send_json({"type": "undo"})
            assert state_msg(ann)["version"] == 1
            until(ann, lambda m: m["type"] == "chat")
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        p = c.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[0]}).json()
        assert p["version"] == 1 and p["view"]["steps"][0] == 1 and p["can_undo"] is True
        assert [line["text"] for line in p["chat"]] == ["Ann took back a move."]


def test_nothing_private_reaches_another_seat_through_undo_chat_or_clocks(client, turns):
    """Ann's and Bob's private draws ('X draws a 7.') never reach the other seat or a spectator,
    whatever is undone, chatted or timed; no seat token is ever sent to another connection."""
    r = client.post("/api/tables", json={"game": "turns", "players": 2, "seats": HUMANS2, "seed": 21,
                                         "clock": {"mode": "turn", "per_move": 3600}})
    tid, tokens = r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]
    raw = {0: [], 1: [], None: []}
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob, \
            seat_socket(client, tid) as spec:
        socks = {0: ann, 1: bob, None: spec}

        def pump(who, pred):
            while True:
                text = socks[who].receive_text()
                raw[who].append(text)
                if pred(json.loads(text)):
                    return

        for who in socks:
            pump(who, lambda m: m["type"] == "state")
        plan = [(0, step(1)), (0, "undo"), (0, step(2)), (0, {"type": "done"}), (1, step(1)), (1, "chat"),
                (1, step(2)), (1, "undo"), (1, {"type": "show"}), (1, {"type": "done"}), (0, "undo"),
                (0, {"type": "pass"}), (1, {"type": "done"})]
        for who, what in plan:
            if what == "undo":
                socks[who].send_json({"type": "undo"})
            elif what == "chat":
                socks[who].send_json({"type": "chat", "text": "nice draw"})
            else:
                v = client.get(f"/api/tables/{tid}").json()["version"]
                act(client, tid, tokens[who], what, v)
            for other in socks:  # everyone reads what was sent so far
                socks[other].send_json({"type": "ping"})
                pump(other, lambda m: m["type"] == "pong")
        for who in (0, 1):
            socks[who].send_json({"type": "refresh"})
            pump(who, lambda m: m["type"] == "state")
    names = {0: "Ann", 1: "Bob"}
    for who, texts in raw.items():
        blob = "\n".join(texts)
        for seat, name in names.items():
            if seat != who:
                assert not re.search(name + r" draws a \d", blob), (who, name)
                assert tokens[seat] not in blob
        if who is not None:
            assert re.search(names[who] + r" draws a \d", blob)  # the seat itself does see its draws
    assert "nice draw" in "\n".join(raw[None])


def test_the_your_turn_list_follows_an_undo(db_url, turns):
    """Ann against a slow bot: her move passes the turn to the bot, so no table waits for her; she
    takes the move back and the table waits for her again: her "your turn" list says so."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(db_url, bot_delay=60.0, limits=Limits.relaxed())) as client:
        ann = named(client, "Ann", host="203.0.113.20")
        res = create(ann, game="turns", seats=[{"kind": "me"}, {"kind": "bot", "bot": "random"}], seed=2)
        tid, token = res["table"]["id"], res["seats"][0]["token"]

        def listed():
            return [t["table"] for t in ann.get("/api/me/turns").json()["turns"]]

        with seat_socket(ann, tid, token) as ws:
            state_msg(ws)
            act(client, tid, token, step(1), 0)  # a free move: still hers
            assert wait_for(lambda: listed() == [tid])
            act(client, tid, token, {"type": "pass"}, 1)
            until(ws, lambda m: m["type"] == "state" and m["to_move"] == [1])
            assert wait_for(lambda: listed() == [])  # the bot's (thinking for a minute)
            ws.send_json({"type": "undo"})
            back = until(ws, lambda m: m["type"] == "state" and m["version"] < 2)
            assert back["to_move"] == [0]
            assert wait_for(lambda: listed() == [tid])  # hers again
