"""Ratings: OpenSkill per game, once per finished table, accounts and bot levels only."""

from __future__ import annotations

import pytest

import json

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select, update

from gemtable.server import create_app, ratings
from gemtable.server.db import RatingRow, TableRow
from gemtable.server.limits import Limits

from .conftest import create
from .test_lobby import play_out, wait_for
from .test_players import named
from .test_robustness import SETTINGS


def rows(client) -> dict[str, RatingRow]:
    with client.app.state.manager.db.session() as s:
        return {r.subject: r for r in s.scalars(select(RatingRow))}


def account(client, name, host):
    c = named(client, name, host=host)
    assert c.post("/api/account/register", json={"password": "correct horse"}).status_code == 200
    return c


def finished_game(client, player, seats):
    res = create(player, seats=seats, players=len(seats))
    tid = res["table"]["id"]
    tokens = [s["token"] for s in res["seats"] if s.get("token")]
    play_out(client, tid, tokens)
    return tid, res


def settled(client, tid):
    """Wait until the table's rating decision is stored (the hook runs after the last move)."""
    def done():
        with client.app.state.manager.db.session() as s:
            return s.get(TableRow, tid).rated
    assert wait_for(done)


def test_an_account_and_a_bot_level_are_rated_once(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        ann = account(client, "Ann", "203.0.113.40")
        tid, _ = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "medium"}])
        settled(client, tid)
        got = rows(client)
        pid = client.app.state.manager.tables[tid].seats[0].player
        assert set(got) == {f"p:{pid}", "bot:medium"}
        assert all(r.games == 1 and r.game_id == "toy" for r in got.values())
        board = client.get("/api/leaderboard/toy").json()
        assert {e["name"] for e in board} == {"Ann", "bot: medium"}
        assert [e["rank"] for e in board] == [1, 2]
        assert board[0]["ordinal"] >= board[1]["ordinal"]
        by_name = {e["name"]: e for e in board}
        assert by_name["bot: medium"]["bot"] is True and by_name["Ann"]["bot"] is False
        winner_seat = client.get(f"/api/tables/{tid}").json()["winners"][0]
        winner = "Ann" if winner_seat == 0 else "bot: medium"
        assert by_name[winner]["mu"] > 25 > by_name[{"Ann": "bot: medium", "bot: medium": "Ann"}[winner]]["mu"]
        # a finish hook firing again (a retry) changes nothing
        assert client.portal.call(ratings.rate, client.app.state.manager, tid) is False
    # a restart: nothing is rated twice
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        assert {k: r.games for k, r in rows(client).items()} == {k: 1 for k in got}


def test_a_table_finished_before_a_crash_is_rated_at_the_next_start(db_url, toy_registered):
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        client.app.state.ratings.active = False  # the server "dies" before it rates the table
        ann = account(client, "Ann", "203.0.113.41")
        finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
        assert rows(client) == {}
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        assert {r.games for r in rows(client).values()} == {1} and len(rows(client)) == 2
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits.relaxed())) as client:
        assert {r.games for r in rows(client).values()} == {1}


def test_guests_custom_bots_and_bot_only_tables_are_not_rated(client):
    gus = named(client, "Gus", host="203.0.113.42")  # a guest: no password
    tid, _ = finished_game(client, gus, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    settled(client, tid)
    tid, _ = finished_game(client, gus, [{"kind": "bot", "bot": "easy"}, {"kind": "bot", "bot": "hard"}])
    ann = account(client, "Ann", "203.0.113.43")
    tid2, _ = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "random"}])
    settled(client, tid2)
    assert rows(client) == {}
    assert client.get("/api/leaderboard/toy").json() == []


def test_an_account_and_a_guest_rate_only_the_account_against_the_bot(client):
    ann = account(client, "Ann", "203.0.113.44")
    res = create(ann, players=3, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "hard"}])
    tid = res["table"]["id"]
    gus = named(client, "Gus", host="203.0.113.45")
    gus_token = gus.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    play_out(client, tid, [res["seats"][0]["token"], gus_token])
    settled(client, tid)
    assert sorted(k.split(":")[0] for k in rows(client)) == ["bot", "p"]
    assert [e["name"] for e in client.get("/api/leaderboard/toy").json()].count("Gus") == 0


@pytest.mark.parametrize("mark", ["took_back"])
def test_a_game_with_taken_back_turns_is_not_rated(client, mark):
    client.app.state.ratings.active = False
    ann = account(client, "Ann", "203.0.113.46")
    tid, _ = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    manager = client.app.state.manager
    with manager.db.session() as s:
        row = s.get(TableRow, tid)
        s.execute(update(TableRow).where(TableRow.id == tid).values(result=dict(row.result, **{mark: [0]})))
        s.commit()
    assert client.portal.call(ratings.rate, manager, tid) is False
    assert rows(client) == {}
    with manager.db.session() as s:
        assert s.get(TableRow, tid).rated is True  # decided once, never looked at again


def test_one_account_at_two_seats_is_not_rated(client):
    client.app.state.ratings.active = False
    ann = account(client, "Ann", "203.0.113.47")
    res = create(ann, players=3, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "easy"}])
    tid = res["table"]["id"]
    manager = client.app.state.manager
    from gemtable.server.db import SeatRow

    pid = manager.tables[tid].seats[0].player
    with manager.db.session() as s:  # the same account at seat 1 too (as after a hotseat)
        s.execute(update(SeatRow).where(SeatRow.table_id == tid, SeatRow.seat == 1).values(player_id=pid))
        s.execute(update(TableRow).where(TableRow.id == tid).values(status="finished",
                                                                  result={"ranking": [1, 2, 3]}))
        s.commit()
    assert client.portal.call(ratings.rate, manager, tid) is False and rows(client) == {}


def test_profiles_show_ratings_and_recent_games(client):
    ann = account(client, "Ann", "203.0.113.48")
    tid, res = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    settled(client, tid)
    profile = client.get("/api/players/ann").json()
    assert profile["name"] == "Ann" and profile["account"] is True
    assert profile["ratings"]["toy"]["games"] == 1 and profile["ratings"]["toy"]["rank"] in (1, 2)
    assert [t["id"] for t in profile["recent"]] == [tid] and profile["recent"][0]["my_seat"] == 0
    assert res["seats"][0]["token"] not in json.dumps(profile)
    bot = client.get("/api/players/bot: easy").json()
    assert bot["bot"] is True and bot["ratings"]["toy"]["games"] == 1
    assert client.get("/api/players/nobody").status_code == 404
    gus = named(client, "Gus", host="203.0.113.49")
    assert client.get("/api/players/Gus").json() == {"name": "Gus", "account": False, "bot": False,
                                                     "ratings": {}, "recent": [],
                                                     "finished": {"games": 0, "abandoned": 0, "share": None}}
    assert gus.get("/api/me").json()["player"]["name"] == "Gus"


def test_leaderboard_of_an_unknown_game_is_404(client):
    r = client.get("/api/leaderboard/nope")
    assert r.status_code == 404 and r.json()["error"] == "unknown_game"


@SETTINGS
@given(name=st.text(max_size=40) | st.sampled_from(["\ud800", "bot:", "bot: nope", "%00", "..", "a/b"]),
       game=st.text(max_size=12) | st.sampled_from(["toy", "splendor"]))
def test_profile_and_leaderboard_never_500(client, name, game):
    from urllib.parse import quote

    q = quote(name.encode("utf-8", "surrogatepass"), safe="")
    r = client.get(f"/api/players/{q}")
    assert r.status_code in (200, 404), r.text
    r = client.get(f"/api/leaderboard/{quote(game, safe='')}")
    assert r.status_code in (200, 404), r.text
