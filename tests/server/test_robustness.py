"""Malformed input never causes a 500, and concurrent submissions are serialized."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gemtable.games.registry import all_games

from .conftest import create, seat_socket

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
GAME_IDS = sorted(all_games()) + ["toy", "nope"]
CREATE = st.fixed_dictionaries(
    {},
    optional={
        "game": st.sampled_from(GAME_IDS) | JSON,
        "players": st.integers(-3, 9) | JSON,
        "options": st.dictionaries(st.sampled_from(["palace_side", "draft", "x", "overflow_counts_toward_end"]), JSON, max_size=2) | JSON,
        "seats": st.lists(st.fixed_dictionaries({}, optional={"kind": st.sampled_from(["human", "bot", "x"]) | JSON,
                                                              "bot": st.sampled_from(["random", "easy", "mcts:iterations=x", "zz:"]) | JSON,
                                                              "name": JSON}), max_size=6) | JSON,
        "seed": st.integers(-5, 2**64) | JSON,
    },
)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(body=CREATE | JSON)
def test_create_never_500(client, body):
    r = client.post("/api/tables", json=body)
    assert r.status_code < 500, r.text
    assert r.status_code in (201, 404, 422), r.text
    if r.status_code != 201:
        assert r.json()["detail"]


# -- the limits: hostile names, bot budgets, sizes, nesting, rates --------------------------------
NAMES = st.sampled_from(["\ud800x", "a\x00b", "{P1}", "\u202eevil", "x" * 500, "  ", "Zoe\u0301"]) | st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FFFF, categories=["L", "N", "P", "S", "Z", "C"]),
    max_size=40)
BOTS = st.sampled_from(["mcts:seconds=inf", "mcts:seconds=nan", "mcts:iterations=1e12", "mcts:seconds=1e308",
                        "greedy:lookahead=99", "hard:iterations=99999999", "random", "easy", "mcts:iterations=5",
                        "gumbel:simulations=99999999", "gumbel:fallback=nope", "gumbel:fallback=hard,simulations=4"])
HOSTILE_CREATE = st.fixed_dictionaries(
    {"game": st.just("toy"), "players": st.just(2)},
    optional={
        "seats": st.lists(st.fixed_dictionaries({"kind": st.sampled_from(["human", "bot"])},
                                                optional={"bot": BOTS, "name": NAMES}), min_size=2, max_size=2),
        "seed": st.integers(0, 2**62 - 1),
    },
)


def _table_count(client) -> int:
    from sqlalchemy import func, select

    from gemtable.server.db import TableRow

    with client.app.state.manager.db.session() as s:
        return s.scalar(select(func.count()).select_from(TableRow))


@SETTINGS
@given(body=HOSTILE_CREATE)
def test_hostile_creations_under_the_default_limits(strict_client, body):
    """Names, bot budgets and the creation rate limit: never a 500, and a refusal creates nothing."""
    before = _table_count(strict_client)
    # json.dumps escapes lone surrogates as \\ud800, as a browser's JSON.stringify does
    r = strict_client.post("/api/tables", content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code in (201, 422, 429), r.text
    after = _table_count(strict_client)
    assert after == before + (1 if r.status_code == 201 else 0)
    if r.status_code != 201:
        assert r.json()["error"] and r.json()["detail"]
        assert len(r.json()["detail"]) <= 300
    if r.status_code == 429:
        assert int(r.headers["Retry-After"]) >= 1
    if r.status_code == 201:
        for seat in r.json()["seats"]:
            assert seat["name"].isprintable() and 0 < len(seat["name"]) <= 24


RAW = st.binary(max_size=300) | st.sampled_from([
    b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000, b'{"game": "toy", "players": 2}' + b" " * 70_000,
    b'{"game": "\\ud800", "players": 2}', b'{"game": "toy", "players": 1e999}', b"\xff\xfe",
])


@SETTINGS
@given(raw=RAW, path=st.sampled_from(["/api/tables", "/api/tables/{tid}/actions"]),
       header=st.sampled_from([None, "X-Seat-Token", "Authorization"]))
def test_raw_bodies_never_500(client, table, raw, path, header):
    tid, tokens = table
    headers = {"Content-Type": "application/json"}
    if header:
        headers[header] = tokens[0] if header == "X-Seat-Token" else f"Bearer {tokens[0]}"
    before = client.get(f"/api/tables/{tid}").json()["version"]
    r = client.post(path.format(tid=tid), content=raw, headers=headers)
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["error"] and r.headers["Content-Security-Policy"]
    assert client.get(f"/api/tables/{tid}").json()["version"] == before


FRAMES = st.one_of(
    JSON.map(json.dumps),
    st.sampled_from(["[" * 2000 + "]" * 2000, '{"type": "ping", "x": ' + "[" * 100 + "]" * 100 + "}",
                     '{"type": "action", "version": 0, "action": ' + '{"a":' * 50 + "1" + "}" * 50 + "}",
                     '{"type": "' + "t" * 70_000 + '"}', "not json", '{"type": 5}', "\ud800"]),
    st.text(max_size=30),
)


@SETTINGS
@given(frames=st.lists(FRAMES, min_size=1, max_size=4))
@example(frames=["[" * 30_000 + "]" * 30_000])
@example(frames=['{"type": "' + "t" * 70_000 + '"}'])
def test_websocket_frames_answer_or_close_cleanly(client, table, frames):
    """Every frame gets an answer or a clean close with one of the documented codes; nothing changes."""
    from starlette.websockets import WebSocketDisconnect

    tid, tokens = table
    before = client.get(f"/api/tables/{tid}").json()["version"]
    with seat_socket(client, tid, tokens[1]) as ws:
        assert ws.receive_json()["type"] == "state"
        try:
            for frame in frames:
                ws.send_text(frame)
                data = json.loads(frame) if _is_json(frame) else None
                if isinstance(data, dict) and data.get("type") in ("ping", "refresh", "action") and len(frame) < 65536:
                    assert ws.receive_json()["type"] in ("pong", "state", "error")
            # the connection still answers, or it was closed with a documented code and a reason
            ws.send_json({"type": "ping"})
            while ws.receive_json()["type"] != "pong":
                pass
        except WebSocketDisconnect as exc:
            assert exc.code in (4400, 1009), exc.code
            assert exc.reason
    after = client.get(f"/api/tables/{tid}").json()["version"]
    assert after - before in (0, 1)  # at most one (legal) action was taken


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except (ValueError, RecursionError):
        return False


@pytest.fixture
def table(client):
    res = create(client, "toy", 2, seats=[{"kind": "human"}, {"kind": "human"}])
    return res["table"]["id"], [s["token"] for s in res["seats"]]


@SETTINGS
@given(body=st.fixed_dictionaries({}, optional={"token": st.sampled_from(["T0", "T1", "bad"]) | JSON,
                                                "version": st.integers(-2, 3) | JSON,
                                                "action": st.fixed_dictionaries({"type": st.sampled_from(["pick", "x"]) | JSON},
                                                                                optional={"n": JSON}) | JSON}))
def test_actions_never_500(client, table, body):
    tid, tokens = table
    if body.get("token") in ("T0", "T1"):
        body = dict(body, token=tokens[int(body["token"][1])])
    before = client.get(f"/api/tables/{tid}").json()["version"]
    r = client.post(f"/api/tables/{tid}/actions", json=body)
    assert r.status_code < 500, r.text
    after = client.get(f"/api/tables/{tid}").json()["version"]
    assert after == before + (1 if r.status_code == 200 else 0)


@pytest.mark.parametrize("token", ["\x80", "é" * 40, "ab\u0000", ""])
def test_non_ascii_tokens_are_refused_not_500(client, table, token):
    tid, _ = table
    r = client.post(f"/api/tables/{tid}/actions", json={"token": token, "version": 0, "action": {"type": "pick"}})
    assert 400 <= r.status_code < 500, r.text


@SETTINGS
@given(message=JSON)
def test_websocket_messages_never_break_the_server(client, table, message):
    tid, tokens = table
    with seat_socket(client, tid, tokens[0]) as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text(json.dumps({"type": "action", "version": 0, "action": message}))
        reply = ws.receive_json()
        assert reply["type"] in ("error", "state")
        ws.send_text(json.dumps(message))
        if isinstance(message, dict) and isinstance(message.get("type"), str):
            if message["type"] not in ("action", "ping", "refresh"):
                assert ws.receive_json()["code"] == "malformed"
    assert client.get(f"/api/tables/{tid}").status_code == 200


def test_concurrent_submissions_are_serialized(tmp_path, toy_registered):
    """Many clients sending the same decision at once: exactly one is accepted."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.web.conftest import LiveServer

    server = LiveServer(f"sqlite:///{tmp_path / 'c.sqlite3'}").start()
    try:
        with httpx.Client(base_url=server.url) as http:
            res = http.post("/api/tables", json={"game": "toy", "players": 2,
                                                 "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
        tid, tok = res["table"]["id"], res["seats"][0]["token"]
        codes: list[int] = []
        start = threading.Barrier(8)

        def send(n):
            with httpx.Client(base_url=server.url) as http:
                start.wait()
                r = http.post(f"/api/tables/{tid}/actions",
                              json={"token": tok, "version": 0, "action": {"type": "pick", "n": 1 + n % 3}})
                codes.append(r.status_code)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
        assert sorted(codes) == [200] + [409] * 7
        with httpx.Client(base_url=server.url) as http:
            assert http.get(f"/api/tables/{tid}").json()["version"] == 1
    finally:
        server.stop()


@SETTINGS
@given(game=st.sampled_from(GAME_IDS) | st.text(max_size=12),
       players=st.none() | st.integers(-3, 2**70).map(str) | st.text(max_size=8),
       seed=st.none() | st.integers(-2**70, 2**70).map(str) | st.text(max_size=8))
def test_sample_views_never_500(client, game, players, seed):
    """The how-to-play pictures' endpoint answers a view or a clear 4xx, whatever the query."""
    params = {k: v for k, v in (("players", players), ("seed", seed)) if v is not None}
    from urllib.parse import quote

    res = client.get(f"/api/games/{quote(game, safe='')}/sample", params=params)
    assert res.status_code < 500, res.text
    if res.status_code == 200:
        body = res.json()
        assert body["game"] == game and "view" in body
    else:
        assert "error" in res.json()
