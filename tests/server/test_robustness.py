"""Malformed input never causes a 500, and concurrent submissions are serialized."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gemtable.games.registry import all_games

from .conftest import create

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
    with client.websocket_connect(f"/ws/tables/{tid}?token={tokens[0]}") as ws:
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
