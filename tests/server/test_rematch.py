"""Rematch: a proposal the other players accept, decline or let expire; then one new table for
everyone, with the same players, bots, options and clock, the seats moved round one place, a new deal."""

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
from .test_lobby import play_out

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


def answer(client, tid, token, what):
    return client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": token}, json={"answer": what})


def test_rematch_is_a_proposal_and_starts_one_new_table_when_accepted(client):
    tid, tokens = finished_table(client, clock={"mode": "realtime", "base": 300, "increment": 3})
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
    before = table_count(client)
    with seat_socket(client, tid, tokens[0]) as ann, seat_socket(client, tid, tokens[1]) as bob, \
            seat_socket(client, tid) as spec:
        for ws in (ann, bob, spec):
            until(ws, lambda m: m["type"] == "state")
        r = rematch(client, tid, tokens[0])
        assert r.status_code == 200, r.text
        # a proposal only: no table yet, so no clock runs for anyone while Bob is still here
        assert "table" not in r.json() and table_count(client) == before
        prop = r.json()["proposal"]
        assert (prop["by"], prop["yes"], prop["waiting"], prop["state"]) == (0, [0], [1], "open")
        assert 0 < prop["left"] <= 120_000
        seen = until(bob, lambda m: m["type"] == "presence" and m["table"].get("rematch_proposal"))
        assert seen["table"]["rematch_proposal"]["waiting"] == [1]
        line = until(spec, lambda m: m["type"] == "chat")["line"]
        assert line["system"] and line["text"] == "Ann proposes a rematch: it starts when everyone accepts."
        assert client.get(f"/api/tables/{tid}").json()["rematch"] is None
        # proposing again changes nothing; Bob accepts: the table is made
        assert rematch(client, tid, tokens[0]).json()["proposal"]["yes"] == [0]
        r2 = answer(client, tid, tokens[1], "accept")
        assert r2.status_code == 200, r2.text
        new_id = r2.json()["table"]
        got = {name: until(ws, lambda m: m["type"] == "rematch") for name, ws in
               (("ann", ann), ("bob", bob), ("spec", spec))}
        assert {m["table"] for m in got.values()} == {new_id}
        # the seats move round one place: Bob (old seat 1) starts at seat 0, Ann at seat 1
        assert (got["ann"]["seat"], got["bob"]["seat"]) == (1, 0) and "token" not in got["spec"]
        assert r2.json()["seat"] == 0 and r2.json()["token"] == got["bob"]["token"]
        assert got["ann"]["token"] not in tokens
        # a later call by Ann gives the same table (idempotent), with her own seat and token
        r3 = rematch(client, tid, tokens[0])
        assert (r3.json()["table"], r3.json()["seat"], r3.json()["token"]) == (new_id, 1, got["ann"]["token"])
    old = client.get(f"/api/tables/{tid}").json()
    new = client.get(f"/api/tables/{new_id}").json()
    assert old["rematch"] == new_id and old["rematch_proposal"]["state"] == "accepted"
    assert new["status"] == "running" and new["version"] == 0
    assert [s["name"] for s in new["seats"]] == ["Bob", "Ann"]
    assert new["options"] == old["options"]
    assert (new["clock"]["mode"], new["clock"]["base"], new["clock"]["increment"]) == ("realtime", 300, 3)
    assert all(200_000 < ms <= 300_000 for ms in new["clock"]["remaining"])  # real time runs: a fresh clock
    with client.app.state.manager.db.session() as s:
        assert s.get(TableRow, new_id).seed != s.get(TableRow, tid).seed
    # the new tokens play the new table; the old ones do not
    state = client.get(f"/api/tables/{new_id}/state", headers={"X-Seat-Token": got["bob"]["token"]}).json()
    assert state["seat"] == 0 and state["legal"]
    assert client.get(f"/api/tables/{new_id}/state", headers={"X-Seat-Token": tokens[1]}).status_code == 403


def test_a_declined_rematch_makes_no_table_and_can_be_proposed_again(client):
    tid, tokens = finished_table(client)
    before = table_count(client)
    assert rematch(client, tid, tokens[0]).json()["proposal"]["state"] == "open"
    r = answer(client, tid, tokens[1], "decline")
    assert r.status_code == 200 and r.json()["proposal"]["state"] == "declined" and r.json()["proposal"]["no"] == 1
    assert table_count(client) == before
    # a declined proposal cannot be accepted; nor declined again
    for what in ("accept", "decline"):
        r = answer(client, tid, tokens[0], what)
        assert (r.status_code, r.json()["error"]) == (409, "no_proposal")
    assert client.get(f"/api/tables/{tid}").json()["rematch_proposal"]["state"] == "declined"
    # Bob proposes now and withdraws it; then proposes again and Ann accepts
    assert answer(client, tid, tokens[1], "propose").json()["proposal"]["by"] == 1
    assert answer(client, tid, tokens[1], "decline").json()["proposal"]["state"] == "declined"
    lines = client.get(f"/api/tables/{tid}/state").json()["chat"]
    assert [x["text"] for x in lines[-2:]] == ["Bob proposes a rematch: it starts when everyone accepts.",
                                               "Bob withdrew the rematch proposal."]
    assert answer(client, tid, tokens[1], "propose").json()["proposal"]["by"] == 1
    r = answer(client, tid, tokens[0], "accept")
    assert r.status_code == 200 and r.json()["seat"] == 1
    assert table_count(client) == before + 1


def test_an_unanswered_rematch_expires(client):
    inplay = client.app.state.inplay
    tid, tokens = finished_table(client)
    before = table_count(client)
    now = [inplay.now()]
    inplay.clock = lambda: now[0]
    assert rematch(client, tid, tokens[0]).json()["proposal"]["left"] == 120_000
    now[0] += 119_000
    assert client.get(f"/api/tables/{tid}").json()["rematch_proposal"]["left"] == 1_000
    now[0] += 1_000
    prop = client.get(f"/api/tables/{tid}").json()["rematch_proposal"]
    assert (prop["state"], prop["left"]) == ("expired", 0)
    r = answer(client, tid, tokens[1], "accept")
    assert (r.status_code, r.json()["error"]) == (409, "no_proposal")
    assert table_count(client) == before
    # a new proposal may be made after it expired
    assert answer(client, tid, tokens[1], "propose").json()["proposal"]["state"] == "open"


def test_rematch_rotates_three_seats_and_asks_only_people(client):
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Robo"},
             {"kind": "human", "name": "Cat"}]
    r = client.post("/api/tables", json={"game": "toy", "players": 3, "seats": seats})
    tid = r.json()["table"]["id"]
    tokens = [s.get("token") for s in r.json()["seats"]]
    play_out(client, tid, [tokens[0], tokens[2]])
    prop = rematch(client, tid, tokens[2]).json()["proposal"]
    assert prop["waiting"] == [0]  # the bot is never asked
    new = answer(client, tid, tokens[0], "accept").json()
    assert new["seat"] == 2  # Ann: old seat 0 -> new seat 2
    names = [s["name"] for s in client.get(f"/api/tables/{new['table']}").json()["seats"]]
    assert names == ["Robo", "Cat", "Ann"]


def test_an_acknowledged_proposal_and_acceptance_survive_a_restart(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        tid, tokens = finished_table(c)
        assert rematch(c, tid, tokens[0]).status_code == 200
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        prop = c.get(f"/api/tables/{tid}").json()["rematch_proposal"]
        assert (prop["by"], prop["state"], prop["waiting"]) == (0, "open", [1])
        new_id = answer(c, tid, tokens[1], "accept").json()["table"]
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        assert c.get(f"/api/tables/{tid}").json()["rematch"] == new_id
        assert rematch(c, tid, tokens[0]).json()["table"] == new_id


def test_rematch_keeps_bots_and_survives_a_restart(db_url, toy_registered):
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Robo"}]
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as c:
        tid, tokens = finished_table(c, seats=seats)
        r = rematch(c, tid, tokens[0])
        assert r.status_code == 200
        new_id = r.json()["table"]
        seats_new = c.get(f"/api/tables/{new_id}").json()["seats"]
        # against a bot only: nobody to ask, the rematch starts at once (the bot now at seat 0)
        assert (seats_new[0]["kind"], seats_new[0]["bot"], seats_new[0]["name"]) == ("bot", "random", "Robo")
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
@given(headers=HEADERS, body=st.none() | st.text(max_size=20) | st.dictionaries(st.text(max_size=5), st.integers())
       | st.fixed_dictionaries({"answer": st.sampled_from(["propose", "accept", "decline", "yes", "", None])
                                | st.integers() | st.lists(st.text(max_size=3), max_size=2)}),
       which=st.sampled_from(["finished", "running", "x" * 40, "../x"]))
def test_fuzzed_rematch_requests_never_500(client, headers, body, which):
    if not hasattr(client, "_tables"):
        client._tables = {"finished": finished_table(client)[0],
                          "running": create(client, seats=[{"kind": "human"}, {"kind": "human"}])["table"]["id"]}
    tid = client._tables.get(which, which)
    before = table_count(client)
    proposal = _proposal(client, tid)
    content = json.dumps(body) if body is not None else None
    r = client.post(f"/api/tables/{tid}/rematch", headers=headers, content=content)
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.json()["detail"] and table_count(client) == before and _proposal(client, tid) == proposal


def _proposal(client, tid):
    """The table's rematch proposal as stored (None for a table that does not exist)."""
    from gemtable.server.db import PlayRow

    with client.app.state.manager.db.session() as s:
        row = s.get(PlayRow, tid)
        return None if row is None else (row.data.get("proposal"), row.rematch)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["propose", "accept", "decline", None, "x", 3])),
                      min_size=1, max_size=8))
def test_fuzzed_answers_by_real_seats_never_500_and_start_one_table_only_when_all_accepted(client, steps):
    """Any sequence of answers by the seats of a finished three-player table: a refusal changes
    nothing, and a table is made once, exactly when everyone has accepted the open proposal."""
    seats = [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cat")]
    r = client.post("/api/tables", json={"game": "toy", "players": 3, "seats": seats})
    tid, tokens = r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]
    play_out(client, tid, tokens)
    before = table_count(client)
    made = None
    for seat, what in steps:
        stored = _proposal(client, tid)
        prop = (stored[0] or {}) if stored[1] is None else None
        r = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": tokens[seat]},
                        json={"answer": what} if what is not None else None)
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            assert _proposal(client, tid) == stored and table_count(client) == before + (made is not None)
            continue
        if "table" in r.json():
            if made is None:  # the last acceptance: everyone else had said yes to the open proposal
                assert prop and prop.get("no") is None and set(prop["yes"]) | {seat} == {0, 1, 2}
                made = r.json()["table"]
            assert r.json()["table"] == made
        assert table_count(client) == before + (made is not None)
