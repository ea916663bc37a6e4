"""Rematch (issue 15): same seats, bots, options and clock, a new deal; one new table for everyone."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from gemtable.server import create_app
from gemtable.server.db import TableRow
from gemtable.server.limits import Limits

from .conftest import create, seat_socket

PICK = {"type": "pick", "n": 2}


def until(ws, pred, limit=80):
    for _ in range(limit):
        msg = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("expected message never came")


def finished_table(client, seats=None, clock=None):
    seats = seats or [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
    body = {"game": "toy", "players": 2, "seats": seats}
    if clock is not None:
        body["clock"] = clock
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    res = r.json()
    tid, tokens = res["table"]["id"], [s.get("token") for s in res["seats"]]
    for _ in range(3):
        for token in tokens:
            if token:
                v = client.get(f"/api/tables/{tid}").json()["version"]
                assert client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": token},
                                   json={"version": v, "action": PICK}).status_code == 200
    return tid, tokens


def rematch(client, tid, token):
    return client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": token} if token else {})


def table_count(client):
    with client.app.state.manager.db.session() as s:
        return s.scalar(select(func.count()).select_from(TableRow))


def test_rematch_is_one_new_table_with_the_same_seats_and_a_new_deal(client):
    tid, tokens = finished_table(client, clock={"mode": "realtime", "base": 300, "increment": 3})
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob, \
            seat_socket(client, tid) as spec:
        for ws in (ann, bob, spec):
            until(ws, lambda m: m["type"] == "state")
        r = rematch(client, tid, tokens[0])
        assert r.status_code == 200, r.text
        new_id = r.json()["table"]
        assert r.json()["seat"] == 0 and r.json()["token"] not in tokens
        # every subscriber hears of it; each seat gets its own new token, a spectator none
        got = {name: until(ws, lambda m: m["type"] == "rematch") for name, ws in
               (("ann", ann), ("bob", bob), ("spec", spec))}
        assert {m["table"] for m in got.values()} == {new_id}
        assert got["ann"]["token"] == r.json()["token"] and "token" not in got["spec"]
        line = until(spec, lambda m: m["type"] == "chat")["line"]
        assert line["system"] and line["text"] == "Ann started a rematch: same seats, new deal."
        # the second caller gets the same table (idempotent), with their own token
        r2 = rematch(client, tid, tokens[1])
        assert r2.status_code == 200 and r2.json()["table"] == new_id
        assert r2.json()["token"] == got["bob"]["token"] != got["ann"]["token"]
    old = client.get(f"/api/tables/{tid}").json()
    new = client.get(f"/api/tables/{new_id}").json()
    assert old["rematch"] == new_id and new["status"] == "running" and new["version"] == 0
    assert [(s["name"], s["kind"]) for s in new["seats"]] == [(s["name"], s["kind"]) for s in old["seats"]]
    assert new["options"] == old["options"]
    assert (new["clock"]["mode"], new["clock"]["base"], new["clock"]["increment"]) == ("realtime", 300, 3)
    assert all(200_000 < ms <= 300_000 for ms in new["clock"]["remaining"])  # real time runs: a fresh clock
    with client.app.state.manager.db.session() as s:
        assert s.get(TableRow, new_id).seed != s.get(TableRow, tid).seed
    # the new tokens play the new table; the old ones do not
    state = client.get(f"/api/tables/{new_id}/state", headers={"X-Seat-Token": got["bob"]["token"]}).json()
    assert state["seat"] == 1 and state["legal"]
    assert client.get(f"/api/tables/{new_id}/state", headers={"X-Seat-Token": tokens[1]}).status_code == 403


def test_rematch_keeps_bots_and_survives_a_restart(db_url, toy_registered):
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Robo"}]
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        tid, tokens = finished_table(c, seats=seats)
        r = rematch(c, tid, tokens[0])
        assert r.status_code == 200
        new_id = r.json()["table"]
        seats_new = c.get(f"/api/tables/{new_id}").json()["seats"]
        assert (seats_new[1]["kind"], seats_new[1]["bot"], seats_new[1]["name"]) == ("bot", "random", "Robo")
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        before = table_count(c)
        again = rematch(c, tid, tokens[0])
        assert again.status_code == 200 and again.json()["table"] == new_id
        assert table_count(c) == before


def test_rematch_refusals_change_nothing(client):
    running = create(client, seats=[{"kind": "human"}, {"kind": "human"}])
    rid, rtok = running["table"]["id"], running["seats"][0]["token"]
    tid, tokens = finished_table(client)
    before = table_count(client)
    cases = [
        (rematch(client, rid, rtok), 409, "running"),
        (rematch(client, tid, None), 403, "no_seat"),  # a spectator
        (rematch(client, tid, "not-a-token"), 403, "bad_token"),
        (rematch(client, "nope", tokens[0]), 404, "no_table"),
        (client.post(f"/api/tables/{tid}/rematch?token={tokens[0]}"), 400, "token_in_url"),
        (client.get(f"/api/tables/{tid}/rematch"), 405, "method_not_allowed"),
    ]
    for r, status, code in cases:
        assert (r.status_code, r.json()["error"]) == (status, code), r.text
    assert table_count(client) == before
    assert client.get(f"/api/tables/{tid}").json()["rematch"] is None


HEADERS = st.dictionaries(st.sampled_from(["X-Seat-Token", "Authorization", "Cookie", "Content-Type"]),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
                          max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(headers=HEADERS, body=st.none() | st.text(max_size=20) | st.dictionaries(st.text(max_size=5), st.integers()),
       which=st.sampled_from(["finished", "running", "x" * 40, "../x"]))
def test_fuzzed_rematch_requests_never_500(client, headers, body, which):
    if not hasattr(client, "_tables"):
        client._tables = {"finished": finished_table(client)[0],
                          "running": create(client, seats=[{"kind": "human"}, {"kind": "human"}])["table"]["id"]}
    tid = client._tables.get(which, which)
    before = table_count(client)
    content = json.dumps(body) if body is not None else None
    r = client.post(f"/api/tables/{tid}/rematch", headers=headers, content=content)
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["detail"] and table_count(client) == before
