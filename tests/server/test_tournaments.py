"""Tournaments through the HTTP and WebSocket API: a Swiss of eight accounts from registration
to the final standings, no-shows, round robin with byes, limits, blocks, and every endpoint
fuzzed (server/tournaments.py, routes/tournaments.py)."""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gemtable.server import create_app
from gemtable.server.db import (
    RatingRow,
    TournamentGameRow,
    TournamentPlayerRow,
    TournamentRow,
    TurnRow,
)
from gemtable.server.limits import Limits

from .conftest import seat_socket
from .test_players import other


def account(client, name, host):
    c = other(client, host)
    r = c.post("/api/account/register", json={"name": name, "password": "correct horse"})
    assert r.status_code == 200, r.text
    return c


def fast(client):
    """The tournaments' sweep every 0.1 s, no-show times from 1 s (the defaults are for people)."""
    s = client.app.state.tournaments.settings
    s.sweep, s.min_no_show, s.repair_after = 0.1, 1, 1.0
    return client


@pytest.fixture
def tclient(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())
    with TestClient(app) as c:
        yield fast(c)


def wait_for(check, timeout=30.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def new_tournament(host, **kw):
    body = {"name": "Friday Swiss", "game": "toy", "players": 2, "format": "swiss", "rounds": 3,
            "starts_in": 1, "no_show": 600, **kw}
    r = host.post("/api/tournaments", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def view(client, tid):
    r = client.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    return r.json()


def my_table(who, tid, round_no):
    """The player's table of that round, found in "my games" (running tables)."""
    def find():
        for t in who.get("/api/me/games").json()["running"]:
            tour = t.get("tournament")
            if tour and tour["id"] == tid and tour["round"] == round_no:
                return t
        return None
    return wait_for(find, what=f"a table of round {round_no} in my games")


def play_table(people, table):
    """Every seated player opens the table's WebSocket with their seat's token (from "my
    games" → /seat) and picks until the game is over; seat i always picks i + 1."""
    tid = table["id"]
    tokens = {}
    for s in table["seats"]:
        who = people[s["player"]]
        r = who.get(f"/api/tables/{tid}/seat")
        assert r.status_code == 200, r.text
        tokens[r.json()["seat"]] = (who, r.json()["token"])
    sockets = {seat: seat_socket(who, tid, token).__enter__() for seat, (who, token) in tokens.items()}
    try:
        version = 0
        last = {seat: next_state(ws, 0) for seat, ws in sockets.items()}
        while not any(m["over"] for m in last.values()):
            mover = next(seat for seat, m in last.items() if seat in m["to_move"])
            msg = last[mover]
            choice = msg["legal"][min(mover, len(msg["legal"]) - 1)]
            sockets[mover].send_json({"type": "action", "version": version, "action": choice["json"]})
            version += 1
            last = {seat: next_state(ws, version) for seat, ws in sockets.items()}
        return next(iter(last.values()))["result"]
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


def next_state(ws, version):
    while True:
        msg = json.loads(ws.receive_text())
        assert msg["type"] != "error", msg
        if msg["type"] == "state" and msg["version"] >= version:
            return msg


def test_a_swiss_of_eight_accounts_runs_three_rounds_end_to_end(tclient):
    people = {f"P{i}": account(tclient, f"P{i}", f"203.0.113.{10 + i}") for i in range(8)}
    host = people["P0"]
    tid = new_tournament(host, starts_in=2)
    listed = tclient.get("/api/tournaments").json()
    assert [t["id"] for t in listed["open"]] == [tid]
    for name, who in people.items():
        r = who.post(f"/api/tournaments/{tid}/register")
        assert r.status_code == 200 and r.json()["registered"], r.text
    # withdrawing and coming back before the start
    assert people["P7"].post(f"/api/tournaments/{tid}/unregister").json()["registered"] is False
    assert people["P7"].post(f"/api/tournaments/{tid}/register").json()["registered"] is True
    assert view(tclient, tid)["players"] == 8
    wait_for(lambda: view(tclient, tid)["status"] == "running", what="the start")
    late = account(tclient, "Late", "203.0.113.99")
    assert late.post(f"/api/tournaments/{tid}/register").status_code == 409  # registration closed
    results = []
    for round_no in (1, 2, 3):
        tables = {}
        for name, who in people.items():
            t = my_table(who, tid, round_no)
            tables[t["id"]] = t
        assert len(tables) == 4 and all(t["status"] == "running" for t in tables.values())
        if round_no == 1:  # the turn alerts were written as at any table (nobody had it open)
            with tclient.app.state.manager.db.session() as s:
                waiting = {r.table_id for r in s.scalars(select(TurnRow))}
            assert set(tables) <= waiting
        for t in tables.values():
            results.append(play_table(people, t))
        if round_no < 3:
            wait_for(lambda: view(tclient, tid)["round"] == round_no + 1, what=f"round {round_no + 1}")
    final = wait_for(lambda: (v := view(tclient, tid))["status"] == "finished" and v, what="the end")
    assert [r["round"] for r in final["rounds_played"]] == [1, 2, 3]
    pairs = Counter(frozenset(g["players"]) for r in final["rounds_played"] for g in r["games"])
    assert len(pairs) == 12 and set(pairs.values()) == {1}  # no repeat pairings
    for r in final["rounds_played"]:
        assert sorted(p for g in r["games"] for p in g["players"]) == sorted(people)
        assert all(g["status"] == "finished" and g["places"] for g in r["games"])
    standings = final["standings"]
    assert len(standings) == 8 and sum(s["score"] for s in standings) == 12
    assert [s["rank"] for s in standings] == list(range(1, 9))
    keys = [(-s["score"], -s["buchholz"], -s["sonneborn"]) for s in standings]
    assert keys == sorted(keys)
    # the recorded places are the tables' results
    recorded = sorted(tuple(g["places"]) for r in final["rounds_played"] for g in r["games"])
    assert recorded == sorted(tuple(x["ranking"]) for x in results)
    # rated as ordinary rated games: three games each
    def rated():
        with tclient.app.state.manager.db.session() as s:
            return [r.games for r in s.scalars(select(RatingRow).where(RatingRow.game_id == "toy"))]
    assert wait_for(lambda: sorted(rated()) == [3] * 8 and True, what="the ratings")
    assert [t["id"] for t in tclient.get("/api/tournaments").json()["finished"]] == [tid]
    # the tables say which tournament and round they belong to
    some = next(iter(tables))
    assert tclient.get(f"/api/tables/{some}").json()["tournament"] == {"id": tid, "round": 3, "name": "Friday Swiss"}


def test_a_no_show_forfeits_and_a_bye_counts_as_a_win(tclient):
    people = {n: account(tclient, n, f"203.0.113.{20 + i}") for i, n in enumerate(("Ann", "Bob", "Cat"))}
    tid = new_tournament(people["Ann"], rounds=1, no_show=2, clock={"mode": "realtime", "base": 600, "increment": 0})
    for who in people.values():
        assert who.post(f"/api/tournaments/{tid}/register").status_code == 200
    wait_for(lambda: view(tclient, tid)["status"] == "running", what="the start")
    games = view(tclient, tid)["rounds_played"][0]["games"]
    bye = [g for g in games if g["bye"]]
    assert len(bye) == 1 and bye[0]["players"] == ["Cat"]  # the lowest-ranked (ratings equal: by name)
    table = [g for g in games if not g["bye"]][0]
    # one of the two opens the table and waits; the other never comes
    shows = table["players"][0]
    r = people[shows].get(f"/api/tables/{table['table']}/seat")
    with seat_socket(people[shows], table["table"], r.json()["token"]) as ws:
        next_state(ws, 0)
        final = wait_for(lambda: (v := view(tclient, tid))["status"] == "finished" and v, what="the forfeit")
    game = [g for g in final["rounds_played"][0]["games"] if not g["bye"]][0]
    assert game["places"] == [1, 2] and game["points"] == [1, 0]
    result = tclient.get(f"/api/tables/{table['table']}").json()
    assert result["status"] == "finished" and result["winners"] == [0]
    assert result["seats"][1]["resigned"] is True  # the no-show's seat resigned
    scores = {s["name"]: s["score"] for s in final["standings"]}
    assert scores[shows] == 1 and scores[table["players"][1]] == 0 and scores[bye[0]["players"][0]] == 1


def test_a_table_nobody_comes_to_gives_nobody_points(tclient):
    people = [account(tclient, n, f"203.0.113.{30 + i}") for i, n in enumerate(("Dee", "Eve"))]
    tid = new_tournament(people[0], rounds=1, no_show=1)
    for who in people:
        who.post(f"/api/tournaments/{tid}/register")
    final = wait_for(lambda: (v := view(tclient, tid))["status"] == "finished" and v, what="the end")
    game = final["rounds_played"][0]["games"][0]
    assert game["places"] == [2, 2] and game["points"] == [0, 0] and sorted(game["forfeit"]) == [0, 1]
    assert [s["score"] for s in final["standings"]] == [0, 0]


def test_a_round_robin_of_three_meets_everyone_with_a_bye_each(tclient):
    people = {n: account(tclient, n, f"203.0.113.{40 + i}") for i, n in enumerate(("Fay", "Gus", "Hal"))}
    tid = new_tournament(people["Fay"], format="roundrobin", rounds=None)
    for who in people.values():
        who.post(f"/api/tournaments/{tid}/register")
    wait_for(lambda: view(tclient, tid)["status"] == "running", what="the start")
    assert view(tclient, tid)["rounds"] == 3
    for round_no in (1, 2, 3):
        wait_for(lambda: view(tclient, tid)["round"] == round_no, what=f"round {round_no}")
        game = [g for g in view(tclient, tid)["rounds_played"][round_no - 1]["games"] if not g["bye"]][0]
        names = game["players"]
        table = my_table(people[names[0]], tid, round_no)
        play_table(people, table)
    final = wait_for(lambda: (v := view(tclient, tid))["status"] == "finished" and v, what="the end")
    met = Counter(frozenset(g["players"]) for r in final["rounds_played"] for g in r["games"] if not g["bye"])
    assert set(met) == {frozenset(p) for p in itertools.combinations(people, 2)}
    byes = Counter(g["players"][0] for r in final["rounds_played"] for g in r["games"] if g["bye"])
    assert byes == Counter(list(people))
    assert sum(s["score"] for s in final["standings"]) == 3 + 3  # three games and three byes


def test_blocked_players_are_paired_and_their_results_shown(tclient):
    ann, bob = account(tclient, "Ann", "203.0.113.50"), account(tclient, "Bob", "203.0.113.51")
    assert ann.post("/api/me/blocks", json={"name": "Bob"}).status_code in (200, 201)
    tid = new_tournament(ann, rounds=1)
    assert ann.post(f"/api/tournaments/{tid}/register").status_code == 200
    assert bob.post(f"/api/tournaments/{tid}/register").status_code == 200
    wait_for(lambda: view(tclient, tid)["status"] == "running", what="the start")
    table = my_table(ann, tid, 1)
    play_table({"Ann": ann, "Bob": bob}, table)
    final = wait_for(lambda: (v := view(tclient, tid))["status"] == "finished" and v, what="the end")
    for who in (ann, bob, tclient):  # the blocker, the blocked and a stranger see the same result
        seen = who.get(f"/api/tournaments/{tid}").json()
        assert [(s["name"], s["score"]) for s in seen["standings"]] == [(s["name"], s["score"]) for s in final["standings"]]
        assert seen["rounds_played"][0]["games"][0]["places"] == final["rounds_played"][0]["games"][0]["places"]


def test_creation_is_for_accounts_checked_and_rate_limited(db_url, toy_registered):
    app = create_app(db_url, bot_delay=0.0)
    with TestClient(app) as client:
        guest = other(client, "203.0.113.60")
        assert guest.post("/api/me", json={"name": "Guest"}).status_code == 200
        body = {"name": "Cup", "game": "toy", "players": 2, "rounds": 2, "starts_in": 3600}
        r = guest.post("/api/tournaments", json=body)
        assert r.status_code == 403 and r.json()["error"] == "no_account"
        assert other(client, "203.0.113.61").post("/api/tournaments", json=body).status_code == 401
        host = account(client, "Host", "203.0.113.62")
        bad = [{"game": "nope"}, {"players": 9}, {"players": "2"}, {"rounds": 0}, {"rounds": 99},
               {"format": "knockout"}, {"format": "roundrobin", "players": 3}, {"starts_in": -5},
               {"starts_in": None, "starts_at": "tomorrow"}, {"starts_at": "2020-01-01T00:00:00Z"},
               {"name": "x"}, {"clock": {"mode": "warp"}}, {"max_players": 1}, {"no_show": 0},
               {"options": []}]
        for change in bad:
            r = host.post("/api/tournaments", json={**body, **change})
            assert r.status_code == 422, (change, r.text)
        with client.app.state.manager.db.session() as s:
            assert s.scalars(select(TournamentRow)).all() == []
        made = [host.post("/api/tournaments", json=body) for _ in range(4)]
        assert [r.status_code for r in made] == [201, 201, 201, 429]
        assert made[-1].headers.get("retry-after")
        tid = made[0].json()["id"]
        codes = [host.post(f"/api/tournaments/{tid}/{'register' if i % 2 == 0 else 'unregister'}").status_code
                 for i in range(12)]
        assert codes[:10] == [200] * 10 and 429 in codes[10:]
        # full
        capped = host.post("/api/tournaments", json={**body, "max_players": 2})
        assert capped.status_code == 429  # (still limited)


def test_a_full_tournament_refuses_more_players(tclient):
    people = [account(tclient, n, f"203.0.113.{70 + i}") for i, n in enumerate(("Ivy", "Jon", "Kim"))]
    tid = new_tournament(people[0], max_players=2, starts_in=3600)
    assert people[0].post(f"/api/tournaments/{tid}/register").status_code == 200
    assert people[1].post(f"/api/tournaments/{tid}/register").status_code == 200
    r = people[2].post(f"/api/tournaments/{tid}/register")
    assert r.status_code == 409 and r.json()["error"] == "full"
    assert view(tclient, tid)["can_register"] is False


# -- fuzzing -------------------------------------------------------------------------------------
JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
                       | st.text(max_size=30), lambda kids: st.lists(kids, max_size=3)
                       | st.dictionaries(st.text(max_size=8), kids, max_size=3), max_leaves=8)
BODIES = st.none() | JSONISH | st.fixed_dictionaries({}, optional={
    "name": JSONISH | st.just("Cup"), "game": JSONISH | st.just("toy"), "players": JSONISH | st.just(2),
    "options": JSONISH, "clock": JSONISH, "format": JSONISH | st.sampled_from(["swiss", "roundrobin"]),
    "rounds": JSONISH | st.just(2), "starts_at": JSONISH, "starts_in": JSONISH | st.just(60),
    "max_players": JSONISH, "no_show": JSONISH})
ENDPOINTS = [("get", "/api/tournaments"), ("post", "/api/tournaments"), ("get", "/api/tournaments/{tid}"),
             ("post", "/api/tournaments/{tid}/register"), ("post", "/api/tournaments/{tid}/unregister")]


def tournament_rows(client):
    with client.app.state.manager.db.session() as s:
        return tuple(sorted(repr((type(r).__name__, {k: v for k, v in vars(r).items() if not k.startswith("_")}))
                            for kind in (TournamentRow, TournamentPlayerRow, TournamentGameRow)
                            for r in s.scalars(select(kind))))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(ENDPOINTS), body=BODIES, who=st.sampled_from(["account", "guest", "nobody"]),
       path_text=st.text(max_size=20))
def test_tournament_endpoints_never_500_and_refusals_change_nothing(tclient, which, body, who, path_text):
    client = tclient
    if not hasattr(client, "fuzz"):
        host = account(client, "Fuzz", "203.0.113.80")
        guest = other(client, "203.0.113.81")
        guest.post("/api/me", json={"name": "Guesty"})
        tid = new_tournament(host, starts_in=3600)
        client.fuzz = {"account": host, "guest": guest, "nobody": other(client, "203.0.113.82"), "tid": tid}
    caller = client.fuzz[who]
    method, path = which
    from urllib.parse import quote

    path = path.replace("{tid}", client.fuzz["tid"] if path_text == "" else quote(path_text, safe=""))
    before = tournament_rows(client)
    r = caller.request(method.upper(), path, json=body) if method != "get" else caller.get(path)
    assert r.status_code < 500, (method, path, body, r.text)
    if r.status_code >= 400:
        assert tournament_rows(client) == before, (method, path, body, r.text)
