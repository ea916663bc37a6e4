"""REST and WebSocket behaviour: validation, errors, tokens, stale and illegal actions."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from gemtable.games.registry import all_games

from .conftest import create, seat_socket

HUMANS2 = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def states(ws, version=None):
    """Read messages until a state message (at ``version`` or later if given)."""
    while True:
        msg = ws.receive_json()
        if msg["type"] == "state" and (version is None or msg["version"] >= version):
            return msg
        if msg["type"] == "error":
            return msg


def test_games_listed_with_renderer_flag(client):
    games = client.get("/api/games").json()
    ids = {g["id"] for g in games}
    assert set(all_games()) <= ids
    toy = next(g for g in games if g["id"] == "toy")
    assert toy["renderer"] is None and toy["players"] == [2, 3]
    assert client.get("/api/games/toy").json()["rules"] == ""
    assert client.get("/api/games/nope").status_code == 404


def test_openapi_documents_the_rest_api(client):
    spec = client.get("/openapi.json").json()
    for path in ("/api/tables", "/api/tables/{table_id}/actions", "/api/tables/{table_id}/replay", "/api/games"):
        assert path in spec["paths"]
    # the docs page is served locally: no asset from a CDN
    page = client.get("/docs")
    assert page.status_code == 200 and "/static/api.js" in page.text
    assert "http" not in page.text.replace("http-equiv", "")


@pytest.mark.parametrize("body,status,word", [
    ({"game": "nope", "players": 2}, 404, "no game"),
    ({"game": "toy", "players": 7}, 422, "played by"),
    ({"game": "toy", "players": "two"}, 422, "players"),
    ({"game": "toy", "players": 2, "options": {"colour": "red"}}, 422, "no option"),
    ({"game": "toy", "players": 2, "seats": [{"kind": "human"}]}, 422, "exactly 2"),
    ({"game": "toy", "players": 2, "seats": [{"kind": "human"}, {"kind": "robot"}]}, 422, "kind"),
    ({"game": "toy", "players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "nonsense"}]}, 422, "unknown bot"),
    ({"game": "toy", "players": 2, "seed": -1}, 422, "seed"),
    ({"players": 2}, 422, "game"),
])
def test_create_rejects_bad_requests_with_a_reason(client, body, status, word):
    r = client.post("/api/tables", json=body)
    assert r.status_code == status, r.text
    assert word in r.json()["detail"]


def test_malformed_json_body_is_4xx(client):
    r = client.post("/api/tables", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    r = client.post("/api/tables", content=b"[]", headers={"Content-Type": "application/json"})
    assert r.status_code == 422


def test_create_returns_invites_only_for_people_and_never_the_seed(client):
    res = create(client, seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], seed=123456789012345)
    text = json.dumps(res)
    assert "123456789012345" not in text
    human, bot = res["seats"]
    assert human["invite"] == f"/table/{res['table']['id']}#token={human['token']}"
    assert "token" not in bot
    listed = client.get("/api/tables").json()
    assert listed[0]["id"] == res["table"]["id"]
    assert human["token"] not in json.dumps(listed)


def test_rest_tokens_grant_their_seat_only(client):
    res = create(client, seats=HUMANS2)
    tid = res["table"]["id"]
    ann, bob = res["seats"]
    a = client.get(f"/api/tables/{tid}/state", headers={"Authorization": f"Bearer {ann['token']}"}).json()
    b = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": bob["token"]}).json()
    spec = client.get(f"/api/tables/{tid}/state").json()
    assert (a["seat"], b["seat"], spec["seat"]) == (0, 1, None)
    assert a["view"]["my_secret"] is not None and spec["view"]["my_secret"] is None and spec["legal"] == []
    bad = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": "forged"})
    assert bad.status_code == 403 and "not valid" in bad.json()["detail"]
    assert client.get("/api/tables/zzzz/state").status_code == 404
    # acting needs a token, the right version and a legal action
    r = client.post(f"/api/tables/{tid}/actions", json={"version": 0, "action": {"type": "pick", "n": 1}})
    assert r.status_code == 403
    r = client.post(f"/api/tables/{tid}/actions", json={"token": ann["token"], "action": {"type": "pick", "n": 1}})
    assert r.status_code == 422 and "version" in r.json()["detail"]
    r = client.post(f"/api/tables/{tid}/actions", json={"token": ann["token"], "version": 0, "action": {"type": "pick", "n": 9}})
    assert r.status_code == 409 and r.json()["error"] == "illegal" and "no action" in r.json()["detail"]
    r = client.post(f"/api/tables/{tid}/actions", json={"token": ann["token"], "version": 0, "action": "pick"})
    assert r.status_code == 422
    r = client.post(f"/api/tables/{tid}/actions", json={"token": ann["token"], "version": 0, "action": {"type": "pick", "n": 2}})
    assert r.status_code == 200 and r.json()["version"] == 1
    # Ann has picked: she is not to move until Bob picks
    r = client.post(f"/api/tables/{tid}/actions", json={"token": ann["token"], "version": 1, "action": {"type": "pick", "n": 2}})
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    assert client.get(f"/api/tables/{tid}").json()["version"] == 1
    # replays and match files wait for the end of the game
    assert client.get(f"/api/tables/{tid}/replay").status_code == 409
    assert client.get(f"/api/tables/{tid}/match").status_code == 409


def test_websocket_rejects_bad_tokens_and_unknown_tables(client):
    res = create(client, seats=HUMANS2)
    tid = res["table"]["id"]
    with seat_socket(client, tid, "forged") as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "bad_token"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4403
    with client.websocket_connect("/ws/tables/doesnotexist") as ws:
        assert ws.receive_json()["code"] == "no_table"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4404


@pytest.mark.parametrize("frame,reason", [("not json", "not valid JSON"), ("[1, 2]", "JSON object"), ('{"no": "type"}', "JSON object")])
def test_websocket_malformed_message_closes_with_a_reason(client, frame, reason):
    res = create(client, seats=HUMANS2)
    tid, tok = res["table"]["id"], res["seats"][0]["token"]
    with seat_socket(client, tid, tok) as ws:
        assert states(ws)["seat"] == 0
        ws.send_text(frame)
        with pytest.raises(WebSocketDisconnect) as exc:
            while True:
                ws.receive_json()
        assert exc.value.code == 4400 and reason in exc.value.reason
    assert client.get(f"/api/tables/{tid}").json()["version"] == 0


def test_websocket_binary_frame_closes(client):
    res = create(client, seats=HUMANS2)
    tid, tok = res["table"]["id"], res["seats"][0]["token"]
    with seat_socket(client, tid, tok) as ws:
        states(ws)
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as exc:
            while True:
                ws.receive_json()
        assert exc.value.code == 4400


def test_illegal_stale_and_spectator_actions_change_nothing(client):
    res = create(client, players=3, seats=HUMANS2 + [{"kind": "human", "name": "Cy"}])
    tid = res["table"]["id"]
    toks = [s["token"] for s in res["seats"]]
    with seat_socket(client, tid, toks[0]) as a, \
            seat_socket(client, tid, toks[1]) as b, \
            client.websocket_connect(f"/ws/tables/{tid}") as spec:
        sa, sb, ss = states(a), states(b), states(spec)
        assert sa["version"] == sb["version"] == 0 and ss["legal"] == [] and ss["seat"] is None
        # unknown message type and missing fields: an error, the socket stays open
        a.send_json({"type": "dance"})
        assert states(a)["code"] == "malformed"
        a.send_json({"type": "action", "action": {"type": "pick", "n": 1}})
        err = states(a)
        assert err["code"] == "malformed" and "version" in err["message"]
        # a spectator cannot act
        spec.send_json({"type": "action", "version": 0, "action": {"type": "pick", "n": 1}})
        assert states(spec)["code"] == "spectator"
        # an action that does not exist
        a.send_json({"type": "action", "version": 0, "action": {"type": "pick", "n": 4}})
        err = states(a)
        assert err["type"] == "error" and err["code"] == "illegal" and "no action" in err["message"]
        # a version from the future is stale
        a.send_json({"type": "action", "version": 5, "action": {"type": "pick", "n": 1}})
        assert states(a)["code"] == "stale"
        assert a.receive_json()["type"] == "state"  # a stale action is answered with the fresh state
        a.send_json({"type": "ping"})
        assert a.receive_json() == {"type": "pong", "version": 0}
        assert client.get(f"/api/tables/{tid}").json()["version"] == 0
        # Ann picks; Bob's pick chosen at version 0 is still his decision, so it is accepted
        a.send_json({"type": "action", "version": 0, "action": {"type": "pick", "n": 3}})
        assert states(a, 1)["version"] == 1
        b.send_json({"type": "action", "version": 0, "action": {"type": "pick", "n": 1}})
        got = states(b, 2)
        assert got["version"] == 2 and got["legal"] == []  # Bob has picked, waits for Cy
        # Ann picking twice in the round is illegal and names the rule
        a.send_json({"type": "action", "version": 2, "action": {"type": "pick", "n": 1}})
        err = states(a)
        while err["type"] != "error":
            err = states(a)
        assert err["code"] == "illegal" and "not your turn" in err["message"]
        # after the reveal (Cy picks by REST) a new decision starts: version-2 choices are stale
        r = client.post(f"/api/tables/{tid}/actions", json={"token": toks[2], "version": 2, "action": {"type": "pick", "n": 2}})
        assert r.status_code == 200 and r.json()["version"] == 3
        a.send_json({"type": "action", "version": 2, "action": {"type": "pick", "n": 1}})
        err = states(a)
        while err["type"] != "error":
            err = states(a)
        assert err["code"] == "stale" and "move 3" in err["message"]
        fresh = a.receive_json()
        assert fresh["type"] == "state" and fresh["version"] == 3 and len(fresh["legal"]) == 3
        assert client.get(f"/api/tables/{tid}").json()["version"] == 3


def test_websocket_token_as_subprotocol(client):
    res = create(client, seats=HUMANS2)
    tid, tok = res["table"]["id"], res["seats"][1]["token"]
    with client.websocket_connect(f"/ws/tables/{tid}", subprotocols=["gemtable", f"token.{tok}"]) as ws:
        assert ws.accepted_subprotocol == "gemtable"
        assert states(ws)["seat"] == 1
    with client.websocket_connect(f"/ws/tables/{tid}", subprotocols=["gemtable", "token.forged"]) as ws:
        assert ws.receive_json()["code"] == "bad_token"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4403
