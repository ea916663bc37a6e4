"""Full games through the server, recording every message (REST + WebSocket) and scanning it.

The server must send each seat exactly ``view(seat)``, its own legal actions
and the events as ``event_for(event, seat)`` shows them; spectators get
``view(None)`` and no actions; no payload holds the seed of the running game,
a seat token or a forbidden key.  (That the views themselves hide what they
must is the conformance suite's job; here we check the server adds nothing.)
"""

from __future__ import annotations

import json
import random
import time

import pytest
from fastapi.testclient import TestClient

from gemtable.core import canonical, event_for, format_text
from gemtable.games.registry import all_games, get_game
from gemtable.server import create_app

from .conftest import create, seat_socket

FORBIDDEN_KEYS = {"seed", "rng", "rng_state", "deck_order", "bag_order"}
SEED = 3_141_592_653_589_793  # large enough that it cannot appear by chance


def _keys(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


class Recorder:
    """A WebSocket wrapper keeping every raw message."""

    def __init__(self, ws, who):
        self.ws, self.who, self.raw, self.log = ws, who, [], []

    def next_state(self, version):
        while True:
            text = self.ws.receive_text()
            self.raw.append(text)
            msg = json.loads(text)
            assert msg["type"] != "error", msg
            if msg["type"] == "state":
                if msg["log_reset"]:
                    self.log = list(msg["log"])
                else:
                    self.log.extend(msg["log"])
                if msg["version"] >= version:
                    return msg


def play_full_game(client, game, n, options, rnd):
    names = [f"Seat{i}" for i in range(n)]
    res = create(client, game.id, n, seats=[{"kind": "human", "name": nm} for nm in names], seed=SEED, options=options)
    rest_raw = [json.dumps(res["table"])]
    tid = res["table"]["id"]
    tokens = [s["token"] for s in res["seats"]]
    # the reference: the same match replayed here
    state = game.new(n, SEED, **options)
    expected_events = []
    views = {}

    def snapshot(v):
        for viewer in list(range(n)) + [None]:
            views[(v, viewer)] = (
                canonical(state.view(viewer)),
                [a.to_json() for a in state.legal_actions(viewer)] if viewer is not None and viewer in state.to_move() else [],
            )

    snapshot(0)
    conns = []
    sockets = [seat_socket(client, tid, t) for t in tokens]
    sockets.append(client.websocket_connect(f"/ws/tables/{tid}"))
    opened = [s.__enter__() for s in sockets]
    try:
        conns = [Recorder(ws, who) for ws, who in zip(opened, list(range(n)) + [None])]
        version = 0
        checked = 0
        while True:
            msgs = [c.next_state(version) for c in conns]
            for c, msg in zip(conns, msgs):
                assert msg["seat"] == c.who
                assert msg["version"] == version
                want_view, want_legal = views[(version, c.who)]
                assert canonical(msg["view"]) == want_view, f"{game.id}: view of {c.who} differs at {version}"
                assert [e["json"] for e in msg["legal"]] == want_legal
                checked += 1
            if state.is_over():
                assert all(m["over"] and m["result"]["ranking"] == state.ranking() for m in msgs)
                break
            mover = rnd.choice(state.to_move())
            msg = msgs[mover]
            choice = rnd.choice(msg["legal"])
            if rnd.random() < 0.05:  # sometimes over REST
                r = client.post(f"/api/tables/{tid}/actions",
                                json={"token": tokens[mover], "version": version, "action": choice["json"]})
                assert r.status_code == 200, r.text
                rest_raw.append(r.text)
            else:
                opened[mover].send_json({"type": "action", "version": version, "action": choice["json"]})
            events = state.apply(mover, game.action_from_json(choice["json"]))
            expected_events.append((version, mover, events))
            version += 1
            snapshot(version)
            if version % 25 == 0:
                for viewer_token in tokens[:1] + [None]:
                    r = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": viewer_token} if viewer_token else {})
                    rest_raw.append(r.text)
        rest_raw.append(client.get("/api/tables").text)
        rest_raw.append(client.get(f"/api/tables/{tid}").text)
    finally:
        for s in sockets:
            s.__exit__(None, None, None)
    # the log each connection built equals the events as that seat may see them
    for c in conns:
        want = []
        for move, mover, events in expected_events:
            for ev in events:
                seen = event_for(ev, c.who)
                want.append((move, format_text(seen["text"], names)))
        assert [(e["move"], e["text"]) for e in c.log] == want, f"log of {c.who} differs"
    # scan everything that was sent while the game ran
    everything = rest_raw + [t for c in conns for t in c.raw]
    for text in everything:
        assert str(SEED) not in text
        for i, tok in enumerate(tokens):
            assert tok not in text, "a seat token was sent back"
        assert not (_keys(json.loads(text), set()) & FORBIDDEN_KEYS)
    # a seat's messages never carry another seat's pending private data beyond view(seat)
    assert checked > 0
    return tid, state


def test_toy_full_game_messages(client):
    tid, state = play_full_game(client, get_game("toy"), 3, {}, random.Random(1))
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert len(replay["frames"]) == 3 * 3 + 1
    assert replay["match"]["seed"] == SEED  # revealed once the game is over
    assert replay["result"]["ranking"] == state.ranking()


REAL = sorted(all_games())


@pytest.mark.parametrize("game_id", REAL)
def test_real_game_full_game_messages(client, game_id):
    game = get_game(game_id)
    n = 2 if 2 in game.player_counts else game.player_counts[0]
    tid, state = play_full_game(client, game, n, {}, random.Random(7))
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert replay["frames"][-1]["view"] == json.loads(json.dumps(state.view(None)))
    match = client.get(f"/api/tables/{tid}/match").json()
    from gemtable.core import Match

    assert Match.from_json(match).replay() == state


def test_bots_play_on_the_server(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0)
    with TestClient(app) as client:
        res = create(client, "toy", 3, seats=[{"kind": "human", "name": "Ann"},
                                              {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "easy"}])
        tid, tok = res["table"]["id"], res["seats"][0]["token"]
        with seat_socket(client, tid, tok) as ws:
            rec = Recorder(ws, 0)
            version = 0
            acted = set()  # decisions already answered (an answer may still be in flight)
            while True:
                msg = rec.next_state(version)
                if msg["over"]:
                    break
                if msg["legal"] and msg["decision_version"] not in acted:
                    acted.add(msg["decision_version"])
                    ws.send_json({"type": "action", "version": msg["version"], "action": msg["legal"][0]["json"]})
                version = msg["version"] + 1
        scores = msg["result"]["scores"]
        tied = len(set(scores)) < len(scores)
        assert msg["result"]["tiebreak"] == ("Ties go to the lower secret card." if tied else "")
        assert len([e for e in rec.log if e["type"] == "reveal"]) == 3
        info = client.get(f"/api/tables/{tid}").json()
        assert info["status"] == "finished" and info["version"] == 9


def test_bot_only_table_finishes_by_itself(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0)
    with TestClient(app) as client:
        res = create(client, "toy", 2, seats=[{"kind": "bot", "bot": "random"}] * 2)
        tid = res["table"]["id"]
        deadline = time.time() + 20
        while client.get(f"/api/tables/{tid}").json()["status"] != "finished":
            assert time.time() < deadline
            time.sleep(0.02)
