"""Fairness at a finished table: what a stand-in bot did is in the result and costs only its own
seat (ratings.py's rule), resigning (two players: the game ends; three or more: a bot plays the
seat on), abandoning a game (recorded, the profile's finished share)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from gemtable.server import ratings
from gemtable.server.db import PlayRow, SeatRow, TableRow

from .conftest import create, seat_socket
from .test_clocks import FakeTime, app_client, fake, pick, tick, timed, until  # noqa: F401 (fixtures)
from .test_lobby import play_out, wait_for
from .test_ratings import account, rows, settled

PICK = {"type": "pick", "n": 1}


def version(client, tid):
    return client.get(f"/api/tables/{tid}").json()["version"]


def resign(client, tid, token=None):
    return client.post(f"/api/tables/{tid}/resign", headers={"X-Seat-Token": token} if token else {})


def people(client, n, host_base=60):
    """``n`` accounts at one ``n``-seat toy table (the first creates it, the others join): the
    table id, every seat's token and the clients."""
    players = [account(client, name, f"203.0.113.{host_base + i}") for i, name in enumerate(["Ann", "Bob", "Cat"][:n])]
    res = create(players[0], players=n, seats=[{"kind": "me"}] + [{"kind": "open"}] * (n - 1))
    tid = res["table"]["id"]
    tokens = [res["seats"][0]["token"]]
    for p in players[1:]:
        tokens.append(p.post(f"/api/tables/{tid}/join", json={}).json()["token"])
    return tid, tokens, players


def pids_of(client, tid):
    with client.app.state.manager.db.session() as s:
        return [r.player_id for r in s.scalars(select(SeatRow).where(SeatRow.table_id == tid).order_by(SeatRow.seat))]


# -- stand-in moves ------------------------------------------------------------------------------
def test_the_result_names_the_seat_a_stand_in_played_and_for_how_many_moves(timed, fake):
    timed.app.state.inplay.settings.away_after = 10**6  # only the clock matters here
    r = timed.post("/api/tables", json={"game": "toy", "players": 2, "clock": {"mode": "realtime", "base": 20,
                                                                               "increment": 0},
                                        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]})
    tid, tokens = r.json()["table"]["id"], [s["token"] for s in r.json()["seats"]]
    with seat_socket(timed, tid, tokens[1]) as bob:
        until(bob, lambda m: m["type"] == "state")
        pick(timed, tid, tokens[0], 0)
        fake.advance(20)
        assert tick(timed) == [(tid, 1, "time")]
        # the stand-in picks Bob's round 1, then his round 2 (Ann has not picked yet): two moves
        until(bob, lambda m: m["type"] == "state" and m["version"] >= 3)
        bob.send_json({"type": "take_seat"})
        until(bob, lambda m: m["type"] == "state" and not m["table"]["seats"][1]["away"])
    for token in (tokens[0], tokens[1], tokens[0]):
        pick(timed, tid, token, version(timed, tid))
    result = timed.get(f"/api/tables/{tid}/state").json()["result"]
    assert result["replaced"] == [1]
    assert result["stand_ins"] == [{"seat": 1, "moves": 2, "of": 3}]
    assert result["unrated"] == [1]  # two of three moves: more than a fifth
    assert "abandoned" not in result and "resigned" not in result  # Bob came back and finished
    with timed.app.state.manager.db.session() as s:
        stored = s.get(TableRow, tid).result
        assert stored["stand_ins"] == result["stand_ins"] and stored["ranking"] == result["ranking"]


def _rate_with(client, tid, **marks):
    manager = client.app.state.manager
    with manager.db.session() as s:
        row = s.get(TableRow, tid)
        s.execute(update(TableRow).where(TableRow.id == tid).values(result=dict(row.result, **marks), rated=False))
        s.commit()
    return client.portal.call(ratings.rate, manager, tid)


def test_a_few_stand_in_moves_keep_the_rating_and_more_cost_only_that_seat(client):
    client.app.state.ratings.active = False
    tid, tokens, _ = people(client, 3)
    play_out(client, tid, tokens)
    pids = pids_of(client, tid)
    # a fifth of Bob's moves (2 of 10) by a stand-in: everyone is rated
    assert _rate_with(client, tid, replaced=[1], stand_ins=[{"seat": 1, "moves": 2, "of": 10}]) is True
    assert {k: r.games for k, r in rows(client).items()} == {f"p:{p}": 1 for p in pids}
    # more than a fifth (3 of 10): Bob's rating stays, Ann and Cat are rated among themselves
    assert _rate_with(client, tid, replaced=[1], stand_ins=[{"seat": 1, "moves": 3, "of": 10}]) is True
    assert {k: r.games for k, r in rows(client).items()} == {f"p:{pids[0]}": 2, f"p:{pids[1]}": 1,
                                                              f"p:{pids[2]}": 2}
    assert ratings.unrated_seats({"stand_ins": [{"seat": 1, "moves": 3, "of": 10}]}) == [1]
    assert ratings.unrated_seats({"stand_ins": [{"seat": 1, "moves": 3, "of": 10}], "abandoned": [1]}) == []


def test_a_seat_never_replaced_is_rated_when_the_other_seat_was(client):
    client.app.state.ratings.active = False
    tid, tokens, _ = people(client, 2, host_base=70)
    play_out(client, tid, tokens)
    # Bob's stand-in made all his moves: Bob is left out; Ann alone cannot be rated (no opponent)
    assert _rate_with(client, tid, replaced=[1], stand_ins=[{"seat": 1, "moves": 3, "of": 3}]) is False
    # Bob abandoned (a stand-in finished for him): he is last and both are rated
    assert _rate_with(client, tid, replaced=[1], abandoned=[1], ranking=[1, 2], winners=[0],
                      stand_ins=[{"seat": 1, "moves": 2, "of": 3}]) is True
    got = rows(client)
    pids = pids_of(client, tid)
    assert got[f"p:{pids[0]}"].mu > got[f"p:{pids[1]}"].mu


# -- resigning ----------------------------------------------------------------------------------
def test_resigning_at_two_players_ends_the_game_rated_and_survives_a_restart(db_url, toy_registered):
    with app_client(db_url) as client:
        tid, tokens, players = people(client, 2, host_base=80)
        pick(client, tid, tokens[0], 0)
        with seat_socket(client, tid) as spec:
            until(spec, lambda m: m["type"] == "state")
            r = resign(players[0], tid)  # by the player cookie (no token)
            assert r.status_code == 200, r.text
            assert r.json()["ended"] is True and r.json()["over"] is True
            final = until(spec, lambda m: m["type"] == "state" and m["over"])
        result = final["result"]
        assert (result["ranking"], result["winners"], result["resigned"]) == ([2, 1], [1], [0])
        assert result["ended_by"] == "resignation"
        settled(client, tid)
        pids = pids_of(client, tid)
        got = rows(client)
        assert got[f"p:{pids[1]}"].mu > 25 > got[f"p:{pids[0]}"].mu
        # nothing more can be played or resigned
        r = client.post(f"/api/tables/{tid}/actions", headers={"X-Seat-Token": tokens[1]},
                        json={"version": 1, "action": PICK})
        assert (r.status_code, r.json()["error"]) == (409, "over")
        assert (resign(client, tid, tokens[1]).status_code, resign(client, tid, tokens[1]).json()["error"]) \
            == (409, "over")
        chat = client.get(f"/api/tables/{tid}/state").json()["chat"]
        assert chat[-1]["text"] == "Ann resigned: the game is over."
    with app_client(db_url) as client:  # a restart: still finished, the same result
        info = client.get(f"/api/tables/{tid}").json()
        assert info["status"] == "finished" and info["winners"] == [1]
        assert client.get(f"/api/tables/{tid}/state").json()["result"]["resigned"] == [0]
        assert client.get(f"/api/tables/{tid}/replay").status_code == 200
        assert client.get(f"/api/tables/{tid}/match").status_code == 200
        assert rows(client)[f"p:{pids[0]}"].games == 1  # not rated again


def test_resigning_at_three_players_hands_the_seat_to_a_bot_and_the_others_play_on(client):
    tid, tokens, _ = people(client, 3, host_base=90)
    r = resign(client, tid, tokens[0])
    assert r.status_code == 200 and r.json() == {"ended": False, "over": False, "result": None}
    info = client.get(f"/api/tables/{tid}").json()
    assert info["status"] == "running" and info["seats"][0]["resigned"] and info["seats"][0]["away"]
    # the resigned seat cannot be taken back nor resign again
    with seat_socket(client, tid, tokens[0]) as ann:
        until(ann, lambda m: m["type"] == "state")
        ann.send_json({"type": "take_seat"})
        assert until(ann, lambda m: m["type"] == "error")["code"] == "resigned"
    assert resign(client, tid, tokens[0]).json()["error"] == "resigned"
    final = play_out(client, tid, tokens[1:])  # a bot picks for Ann
    result = client.get(f"/api/tables/{tid}/state").json()["result"]
    assert final["status"] == "finished" and result["resigned"] == [0] and result["ranking"][0] == 3
    assert sorted(result["ranking"][1:]) in ([1, 2], [1, 1])
    assert "abandoned" not in result and "stand_ins" not in result


def test_the_last_seat_that_has_not_resigned_wins_at_once(client):
    tid, tokens, _ = people(client, 3, host_base=100)
    assert resign(client, tid, tokens[0]).json()["ended"] is False
    r = resign(client, tid, tokens[2])
    assert r.json()["ended"] is True
    result = r.json()["result"]
    assert (result["ranking"], result["winners"], result["resigned"]) == ([3, 1, 2], [1], [0, 2])


def test_resign_refusals_change_nothing(client):
    waiting = create(client, seats=[{"kind": "human"}, {"kind": "open"}])
    wid, wtok = waiting["table"]["id"], waiting["seats"][0]["token"]
    tid, tokens, _ = people(client, 2, host_base=110)
    before = _stored(client, tid)
    cases = [
        (resign(client, tid), 403, "no_seat"),  # a spectator
        (resign(client, tid, "not-a-token"), 403, "bad_token"),
        (resign(client, "nope", tokens[0]), 404, "no_table"),
        (resign(client, wid, wtok), 409, "waiting"),
        (client.post(f"/api/tables/{tid}/resign?token={tokens[0]}"), 400, "token_in_url"),
        (client.get(f"/api/tables/{tid}/resign"), 405, "method_not_allowed"),
    ]
    for r, status, code in cases:
        assert (r.status_code, r.json()["error"]) == (status, code), r.text
    assert _stored(client, tid) == before


def _stored(client, tid):
    with client.app.state.manager.db.session() as s:
        row, play = s.get(TableRow, tid), s.get(PlayRow, tid)
        return (row.status if row else None, row.rev if row else None,
                json.dumps(play.data, sort_keys=True) if play else None)


HEADERS = st.dictionaries(st.sampled_from(["X-Seat-Token", "Authorization", "Cookie", "Content-Type"]),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
                          max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(headers=HEADERS, body=st.none() | st.text(max_size=20) | st.dictionaries(st.text(max_size=5), st.integers()),
       which=st.sampled_from(["running", "x" * 40, "../x", "%00"]))
def test_fuzzed_resign_requests_never_500_and_change_nothing(client, headers, body, which):
    if not hasattr(client, "_running"):
        client._running = create(client, seats=[{"kind": "human"}, {"kind": "human"}])["table"]["id"]
    tid = client._running if which == "running" else which
    before = _stored(client, client._running)
    content = json.dumps(body) if body is not None else None
    r = client.post(f"/api/tables/{tid}/resign", headers=headers, content=content)
    assert 400 <= r.status_code < 500, r.text  # no valid token among them: always refused
    assert r.json()["detail"] and _stored(client, client._running) == before


# -- abandoning -----------------------------------------------------------------------------------
def test_a_game_a_stand_in_finished_is_abandoned_and_the_profile_shows_the_finished_share(timed, fake):
    timed.app.state.inplay.settings.away_after = 10**6
    ann = account(timed, "Ann", "203.0.113.120")
    bob = account(timed, "Bob", "203.0.113.121")

    def table(clock):
        res = ann.post("/api/tables", json={"game": "toy", "players": 2, "clock": clock,
                                            "seats": [{"kind": "me"}, {"kind": "open"}]}).json()
        tid = res["table"]["id"]
        return tid, [res["seats"][0]["token"], bob.post(f"/api/tables/{tid}/join", json={}).json()["token"]]

    # a finished game: Bob plays it to the end
    done, tokens = table(None)
    play_out(timed, done, tokens)
    # Bob runs out of time and never comes back: a stand-in finishes for him
    left, tokens = table({"mode": "realtime", "base": 20, "increment": 0})
    pick(timed, left, tokens[0], 0)
    fake.advance(21)
    assert tick(timed) == [(left, 1, "time")]
    play_out(timed, left, tokens[:1])
    result = timed.get(f"/api/tables/{left}/state").json()["result"]
    assert result["abandoned"] == [1] and result["ranking"] == [1, 2] and result["winners"] == [0]
    assert result["stand_ins"] == [{"seat": 1, "moves": 3, "of": 3}] and "unrated" not in result
    assert wait_for(lambda: all(_rated(timed, t) for t in (done, left)))
    assert timed.get("/api/players/Bob").json()["finished"] == {"games": 2, "abandoned": 1, "share": 0.5}
    assert timed.get("/api/players/Ann").json()["finished"] == {"games": 2, "abandoned": 0, "share": 1.0}


def _rated(client, tid):
    with client.app.state.manager.db.session() as s:
        return s.get(TableRow, tid).rated


def test_forfeit_ranking_keeps_the_others_order():
    from gemtable.server.inplay import forfeit_ranking, rotation

    assert forfeit_ranking([1, 2, 3, 4], [0], []) == [4, 1, 2, 3]
    assert forfeit_ranking([1, 1, 3, 4], [3, 0], []) == [3, 1, 2, 4]  # seat 3 resigned first: last
    assert forfeit_ranking([1, 2, 3], [], [1, 0]) == [2, 2, 1]
    assert rotation(3) == [1, 2, 0] and rotation(2) == [1, 0]
