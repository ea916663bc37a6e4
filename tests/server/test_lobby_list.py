"""The lobby's filtered, paged list (GET /api/lobby) and Play now (POST /api/lobby/play)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import event, select, update

from gemtable.server import listing, ratings
from gemtable.server.db import PlayerRow, RatingRow, TableRow, utcnow

from .test_players import named, other
from .test_robustness import JSON, SETTINGS

CLOCKED = {"mode": "turn", "per_move": 86400}
FUZZED = itertools.count()


def open_table(client, name, players=2, clock=None, seed=None, private=False, game="toy"):
    who = named(client, name, host=f"203.0.113.{abs(hash(name)) % 200 + 1}")
    body = {"game": game, "players": players, "seats": [{"kind": "me"}] + [{"kind": "open"}] * (players - 1),
            "private": private}
    if clock:
        body["clock"] = clock
    if seed is not None:
        body["seed"] = seed
    r = who.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return who, r.json()["table"]["id"]


def ids(client, query=""):
    r = client.get("/api/lobby" + query)
    assert r.status_code == 200, r.text
    return [t["id"] for t in r.json()["tables"]]


# -- the list ------------------------------------------------------------------------------
def test_filters_by_game_players_clock_and_open_seat(client):
    _, plain = open_table(client, "Ann")
    _, three = open_table(client, "Bea", players=3)
    _, clocked = open_table(client, "Cid", clock=CLOCKED)
    full = client.post("/api/tables", json={"game": "toy", "players": 2}).json()["table"]["id"]  # starts at once
    open_table(client, "Dan", private=True)
    everything = ids(client)
    assert set(everything) == {plain, three, clocked, full}  # a private table is never listed
    assert everything == [full, clocked, three, plain]  # newest first
    assert set(ids(client, "?players=3")) == {three}
    assert set(ids(client, "?players=2")) == {plain, clocked, full}
    assert set(ids(client, "?clock=turn")) == {clocked}
    assert set(ids(client, "?clock=none")) == {plain, three, full}
    assert set(ids(client, "?open=1")) == {plain, three, clocked}
    assert set(ids(client, "?open=1&players=2&clock=none")) == {plain}
    assert set(ids(client, "?game=toy&open=0")) == set(everything)
    assert ids(client, "?game=splendor") == []
    assert client.get("/api/lobby?open=1").json()["total"] == 3
    # a table whose last open seat is taken leaves the "open seat" list
    named(client, "Eve", host="203.0.113.250").post(f"/api/tables/{plain}/join", json={})
    assert set(ids(client, "?open=1")) == {three, clocked}


def test_pages_show_every_table_once_even_while_tables_are_added(client):
    made = [open_table(client, f"P{i}")[1] for i in range(7)]
    first = client.get("/api/lobby?per_page=3").json()
    assert first["total"] == 7 and len(first["tables"]) == 3 and first["next"]
    assert ids(client, "?per_page=3") == [t["id"] for t in first["tables"]]  # the same page again
    seen = [t["id"] for t in first["tables"]]
    cursor = first["next"]
    open_table(client, "Late")  # a new table while someone pages: it does not shift the next pages
    again = [t["id"] for t in client.get(f"/api/lobby?per_page=3&after={cursor}").json()["tables"]]
    while cursor:
        page = client.get(f"/api/lobby?per_page=3&after={cursor}").json()
        seen += [t["id"] for t in page["tables"]]
        cursor = page["next"]
    assert seen == list(reversed(made))
    assert again == seen[3:6]  # the same cursor, the same page


def test_the_list_never_carries_tokens_seeds_or_player_ids(client):
    _, tid = open_table(client, "Ann", seed=77)
    text = client.get("/api/lobby").text
    listed = json.loads(text)["tables"][0]
    assert listed["id"] == tid and listed["seed_fixed"] is True
    with client.app.state.manager.db.session() as s:
        from gemtable.server.db import SeatRow, TableRow

        seed = s.get(TableRow, tid).seed
        secrets_ = [r.token for r in s.query(SeatRow).filter_by(table_id=tid)] + \
                   [r.player_id for r in s.query(SeatRow).filter_by(table_id=tid) if r.player_id]
    assert f'"seed":{seed}' not in text.replace(" ", "")
    assert not any(x in text for x in secrets_)
    assert "state" not in listed and "legal" not in listed


BAD_QUERIES = ["game=nope", "players=0", "players=99", "players=abc", "players=-1", "players=2.5", "clock=fast",
               "open=maybe", "after=!!!", "after=YWJj", "per_page=0", "per_page=51", "per_page=x",
               "game=toy&players=4", "after=" + "A" * 400]


def test_malformed_filters_are_refused_with_a_clear_422(client):
    for q in BAD_QUERIES:
        r = client.get("/api/lobby?" + q)
        assert r.status_code == 422, (q, r.status_code, r.text)
        body = r.json()
        assert body["error"] in ("bad_filter", "bad_cursor") and body["detail"], q


@SETTINGS
@given(params=st.dictionaries(st.sampled_from(["game", "players", "clock", "open", "after", "per_page", "x"]),
                              st.text(max_size=30) | st.sampled_from(["toy", "2", "3", "turn", "none", "1", "0"]),
                              max_size=5))
def test_the_list_never_500s(client, params):
    r = client.get("/api/lobby", params=params)
    assert r.status_code in (200, 422), (params, r.status_code, r.text)


# -- Play now ------------------------------------------------------------------------------
def play(who, **body):
    return who.post("/api/lobby/play", json={"game": "toy", **body})


def test_play_now_seats_you_at_the_oldest_matching_table_you_may_join(client):
    _, private = open_table(client, "Priv", private=True)  # never offered
    _, fixed = open_table(client, "Seed", seed=5)  # its creator chose the deal: never offered
    _, three = open_table(client, "Three", players=3)
    _, clocked = open_table(client, "Clock", clock=CLOCKED)
    _, oldest_ok = open_table(client, "Ok1")
    _, newer_ok = open_table(client, "Ok2")

    yan = named(client, "Yan", host="203.0.113.242")
    r = play(yan, players=2, clock="none")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["table"]["id"] == oldest_ok and got["new"] is False and got["seat"] == 1 and got["token"]
    assert got["table"]["status"] == "running"  # every seat taken: it started
    # the next seeker gets the next matching one
    xia = named(client, "Xia", host="203.0.113.243")
    assert play(xia, players=2, clock="none").json()["table"]["id"] == newer_ok
    # any player count and clock: the oldest joinable one, the three-player table
    wu = named(client, "Wu", host="203.0.113.244")
    assert play(wu).json()["table"]["id"] == three
    assert play(named(client, "Vi", host="203.0.113.245"), clock="turn").json()["table"]["id"] == clocked
    for tid in (private, fixed):
        assert client.get(f"/api/tables/{tid}").json()["seats"][1]["open"] is True  # nobody was seated there
    # the seat's token works: it is that seat's
    state = yan.get(f"/api/tables/{oldest_ok}/state", headers={"X-Seat-Token": got["token"]}).json()
    assert state["seat"] == 1


def test_play_now_never_seats_you_where_the_host_removed_you(client):
    host, tid = open_table(client, "Host", players=3)
    zoe = named(client, "Zoe", host="203.0.113.240")
    assert zoe.post(f"/api/tables/{tid}/join", json={}).status_code == 200
    assert host.post(f"/api/tables/{tid}/kick", json={"seat": 1}).status_code == 200
    r = play(zoe)
    assert r.status_code == 200 and r.json()["table"]["id"] != tid and r.json()["new"] is True


def test_play_now_opens_a_table_when_none_matches_and_pressing_again_keeps_it(client):
    ann = named(client, "Ann", host="203.0.113.10")
    first = play(ann, players=3, clock="turn").json()
    assert first["new"] is True and first["seat"] == 0
    t = first["table"]
    assert t["status"] == "waiting" and t["players"] == 3 and t["clock"]["mode"] == "turn" and not t["private"]
    assert [s["open"] for s in t["seats"]] == [False, True, True]
    again = play(ann, players=3, clock="turn").json()
    assert again["table"]["id"] == t["id"] and again["new"] is False and again["seat"] == 0
    # the new table is what the next seeker finds
    bob = named(client, "Bob", host="203.0.113.11")
    assert play(bob, players=3).json()["table"]["id"] == t["id"]


def test_two_players_pressing_play_now_at_once_share_one_table(client):
    for round_ in range(3):
        seekers = [named(client, f"R{round_}a", host="203.0.113.20"), named(client, f"R{round_}b", host="203.0.113.21")]
        start = threading.Barrier(2)
        answers: list = [None, None]

        def press(i, start=start, answers=answers, seekers=seekers):
            start.wait()
            answers[i] = play(seekers[i], players=2, clock="realtime")

        threads = [threading.Thread(target=press, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        got = [a.json() for a in answers]
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        assert got[0]["table"]["id"] == got[1]["table"]["id"], got
        assert sorted(g["new"] for g in got) == [False, True]
        assert client.get(f"/api/tables/{got[0]['table']['id']}").json()["status"] == "running"


def test_play_now_needs_a_player_and_a_game(client):
    stranger = other(client, host="203.0.113.50")
    assert play(stranger).status_code == 401
    ann = named(client, "Ann", host="203.0.113.51")
    for body in ({"game": None}, {"game": ""}, {"game": "nope"}, {"players": 9}, {"players": "x"}, {"clock": "x"},
                 {"players": True}):
        r = ann.post("/api/lobby/play", json={"game": "toy", **body})
        assert r.status_code == 422, (body, r.text)
    assert ann.post("/api/lobby/play", json={}).status_code == 422
    assert client.get("/api/lobby").json()["total"] == 0  # nothing was opened by a refusal


@SETTINGS
@given(body=st.fixed_dictionaries({}, optional={"game": JSON | st.sampled_from(["toy", "splendor"]),
                                                "players": JSON | st.sampled_from([2, 3]),
                                                "clock": JSON | st.sampled_from(["none", "turn", "realtime"])}) | JSON)
def test_play_now_never_500s(client, body):
    ann = named(client, f"Fuzz{next(FUZZED)}", host="203.0.113.60")
    r = ann.post("/api/lobby/play", json=body)
    assert r.status_code in (200, 422, 404), (body, r.status_code, r.text)


# -- Play now by rating ---------------------------------------------------------------------
def rated(client, name, mu, game="toy"):
    """Give the player called ``name`` a rating of ``mu`` in ``game``."""
    with client.app.state.manager.db.session() as s:
        pid = s.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
        s.add(RatingRow(game_id=game, subject=f"p:{pid}", mu=mu, sigma=2.0, games=20, updated_at=utcnow()))
        s.commit()


def waited(client, table_id, seconds):
    """Make the table look as if it was opened ``seconds`` ago."""
    with client.app.state.manager.db.session() as s:
        s.execute(update(TableRow).where(TableRow.id == table_id)
                  .values(created_at=utcnow() - dt.timedelta(seconds=seconds)))
        s.commit()


def test_play_now_seats_you_with_the_players_nearest_your_rating(client):
    _, older = open_table(client, "Low")
    rated(client, "Low", 10.0)
    _, newer = open_table(client, "Near")
    rated(client, "Near", 31.0)
    sam = named(client, "Sam", host="203.0.113.70")
    rated(client, "Sam", 30.0)
    r = play(sam, players=2)
    assert r.status_code == 200, r.text
    assert r.json()["table"]["id"] == newer and r.json()["new"] is False
    # a guest counts with the default rating (25): the low-rated player is still far, but the
    # only one waiting: taken rather than a new table opened
    guest = named(client, "Gus", host="203.0.113.71")
    assert play(guest, players=2).json()["table"]["id"] == older


def test_the_window_widens_while_a_table_waits_and_a_far_table_is_still_taken(client):
    _, old_far = open_table(client, "Old")  # 18 points away, but it has waited ten minutes
    rated(client, "Old", 12.0)
    waited(client, old_far, 600)
    _, far = open_table(client, "Far")  # 25 points away
    rated(client, "Far", 5.0)
    waited(client, far, 20)
    _, mid = open_table(client, "Mid")  # 6 points away: nearer, yet outside a new table's window
    rated(client, "Mid", 24.0)
    seekers = []
    for i in range(3):
        seekers.append(named(client, f"S{i}", host=f"203.0.113.{80 + i}"))
        rated(client, f"S{i}", 30.0)
    got = [play(who, players=2).json() for who in seekers]
    # the table that waited long enough for its window to reach the seeker comes first; then
    # the nearest of those outside their window; the far one is still taken when it is the last
    assert [g["table"]["id"] for g in got] == [old_far, mid, far]
    assert not any(g["new"] for g in got)


def test_the_matcher_ranks_by_distance_within_widening_windows_ties_by_age():
    now = dt.datetime(2030, 1, 1, 12, 0, 0)
    seeker = listing.Seeker(None, "toy", 2, None, rating=30.0)

    def cand(name, age, *ratings):
        return listing.Candidate(name, now - dt.timedelta(seconds=age), tuple(f"p{i}" for i in range(len(ratings))),
                                 tuple(ratings))

    m = listing.Matcher()
    ranked = m.rank(seeker, [cand("young-near", 1, 31.5), cand("old-far", 900, 5.0), cand("young-far", 2, 12.0),
                             cand("mid", 5, 29.0, 33.2), cand("tie-newer", 3, 30.4), cand("tie-older", 4, 29.8),
                             cand("empty", 6)], now)
    # in their windows: nearest first in whole points (29/33.2 averages 2.1 points away), equal
    # ones by age; old-far is 25 points away but has waited 15 minutes; young-far last
    assert [c.table_id for c in ranked] == ["empty", "tie-older", "tie-newer", "young-near", "mid", "old-far",
                                            "young-far"]
    # the window reaches a table's players after a while, and not before
    assert m.reach(cand("x", 0, 1.0), now) == m.window
    assert m.reach(cand("x", 100, 1.0), now) == pytest.approx(m.window + 100 * m.widen)
    # a seeker without a rating counts at the default one
    assert m.distance(listing.Seeker(None, "toy", 2, None), cand("x", 0, ratings.DEFAULT_SKILL + 4)) == 4.0


def test_play_now_reads_every_candidates_ratings_in_one_query(client):
    for i in range(6):
        open_table(client, f"Host{i}")
        rated(client, f"Host{i}", 20.0 + i)
    seeker = named(client, "Quinn", host="203.0.113.90")
    statements: list[str] = []

    def seen(conn, cursor, statement, *args):
        statements.append(statement)

    engine = client.app.state.manager.db.engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert play(seeker, players=2).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert len([q for q in statements if "gt_ratings" in q]) == 1, statements


def test_play_now_at_two_workers_at_once_shares_one_table(postgres_url, toy_registered):
    """Two servers on one PostgreSQL database: the advisory lock orders their Play now too."""
    from fastapi.testclient import TestClient

    from gemtable.server import create_app
    from gemtable.server.limits import Limits

    with TestClient(create_app(postgres_url, bot_delay=0.0, limits=Limits.relaxed())) as one, \
            TestClient(create_app(postgres_url, bot_delay=0.0, limits=Limits.relaxed())) as two:
        for round_ in range(3):
            seekers = [named(one, f"W{round_}a", host="203.0.113.30"), named(two, f"W{round_}b", host="203.0.113.31")]
            start = threading.Barrier(2)
            answers: list = [None, None]

            def press(i, start=start, answers=answers, seekers=seekers):
                start.wait()
                answers[i] = play(seekers[i], players=2, clock="turn")

            threads = [threading.Thread(target=press, args=(i,)) for i in range(2)]
            for th in threads:
                th.start()
            for th in threads:
                th.join(60)
            got = [a.json() for a in answers]
            assert got[0]["table"]["id"] == got[1]["table"]["id"], got
            assert sorted(g["new"] for g in got) == [False, True]
