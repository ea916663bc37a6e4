"""Statistics: per player and game, per game over the site; finished games only, bounded, never a 5xx."""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import update

from gemtable.server import stats
from gemtable.server.db import RatingHistoryRow, SeatRow, TableRow, utcnow

from .conftest import create
from .test_ratings import account, finished_game, settled
from .test_robustness import SETTINGS


def test_a_players_statistics_come_from_finished_games_only(client):
    ann = account(client, "Ann", "203.0.113.60")
    tids = []
    for _ in range(3):
        tid, res = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
        settled(client, tid)
        tids.append(tid)
    running = create(ann, seats=[{"kind": "me"}, {"kind": "bot", "bot": "easy"}])["table"]["id"]
    got = client.get("/api/stats/players/ann").json()
    toy = got["games"]["toy"]
    with client.app.state.manager.db.session() as s:
        infos = [s.get(TableRow, t).result for t in tids]
    wins = sum(i["ranking"][0] == 1 for i in infos)
    assert toy["games"] == 3 and toy["wins"] == wins and toy["win_share"] == round(wins / 3, 3)
    places = [i["ranking"][0] for i in infos]
    assert toy["avg_place"] == round(sum(places) / 3, 2)
    assert toy["avg_score"] == round(sum(i["scores"][0] for i in infos) / 3, 1)
    assert toy["finished"] == {"games": 3, "abandoned": 0, "share": 1.0}
    # one rating point per rated game, oldest first, the last one the current rating
    points = got["history"]["toy"]
    assert [p["table"] for p in points] == tids
    profile = client.get("/api/players/ann").json()
    assert points[-1]["rating"] == profile["ratings"]["toy"]["ordinal"]
    text = json.dumps(got)
    assert running not in text and res["seats"][0]["token"] not in text
    bot = client.get("/api/stats/players/bot: easy").json()
    assert [p["table"] for p in bot["history"]["toy"]] == tids and bot["games"] == {}
    assert client.get("/api/stats/players/nobody").status_code == 404


def test_a_running_game_never_counts_in_the_sites_statistics(client):
    ann = account(client, "Ann", "203.0.113.61")
    tid, _ = finished_game(client, ann, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])
    before = client.get("/api/stats/games/toy").json()
    running = create(ann, seats=[{"kind": "me"}, {"kind": "bot", "bot": "easy"}])["table"]["id"]
    manager = client.app.state.manager
    with manager.db.session() as s:  # a result already stored on a running table still does not count
        s.execute(update(TableRow).where(TableRow.id == running).values(result={"ranking": [1, 2]}))
        s.commit()
    after = client.get("/api/stats/games/toy").json()
    assert after == before
    assert before["counted"] == 1 and before["seats"]["2"]["games"] == 1
    assert before["per_day"][-1] == {"day": utcnow().date().isoformat(), "games": 1}
    assert len(before["per_day"]) == stats.DAYS
    winner = client.get(f"/api/tables/{tid}").json()["winners"][0]
    seats = before["seats"]["2"]["seats"]
    assert seats[winner]["share"] == 1.0 and seats[1 - winner]["share"] == 0.0
    assert 0.0 < seats[winner]["low"] < 1.0 == seats[winner]["high"]


def test_seat_advantage_counts_shared_wins_and_skips_bot_only_tables(client, db_url):
    ann = account(client, "Ann", "203.0.113.62")
    manager = client.app.state.manager
    made = []
    for ranking in ([1, 2], [1, 2], [1, 1], [2, 1]):
        tid = create(ann, seats=[{"kind": "me"}, {"kind": "bot", "bot": "easy"}])["table"]["id"]
        made.append(tid)
        with manager.db.session() as s:
            s.execute(update(TableRow).where(TableRow.id == tid).values(status="finished",
                                                                      result={"ranking": ranking}))
            s.commit()
    bots = create(ann, seats=[{"kind": "bot", "bot": "easy"}, {"kind": "bot", "bot": "easy"}])["table"]["id"]
    with manager.db.session() as s:
        s.execute(update(TableRow).where(TableRow.id == bots).values(status="finished", result={"ranking": [1, 2]}))
        s.execute(update(SeatRow).where(SeatRow.table_id == bots).values(kind="bot"))
        s.commit()
    got = stats.game_stats(manager.db, "toy")
    seats = got["seats"]["2"]
    assert seats["games"] == 4
    assert [x["wins"] for x in seats["seats"]] == [2.5, 1.5]
    from gemtable.analysis.stats import wilson

    low, high = wilson(2.5, 4)
    assert seats["seats"][0]["low"] == round(low, 3) and seats["seats"][0]["high"] == round(high, 3)
    # bounded: only the latest ``limit`` tables are read
    assert stats.game_stats(manager.db, "toy", limit=2)["seats"]["2"]["games"] == 2


def test_player_statistics_are_bounded_and_skip_playing_oneself(client):
    ann = account(client, "Ann", "203.0.113.63")
    manager = client.app.state.manager
    pid = None
    for i, ranking in enumerate(([1, 2], [2, 1], [1, 2])):
        res = create(ann, seats=[{"kind": "me"}, {"kind": "open"}])
        tid = res["table"]["id"]
        pid = manager.tables[tid].seats[0].player
        with manager.db.session() as s:
            s.execute(update(TableRow).where(TableRow.id == tid).values(
                status="finished", result={"ranking": ranking, "scores": [10 * (i + 1), 5],
                                           "abandoned": [0] if i == 1 else []},
                updated_at=dt.datetime(2026, 1, 1 + i)))
            if i == 2:  # the same account at both seats
                s.execute(update(SeatRow).where(SeatRow.table_id == tid, SeatRow.seat == 1).values(player_id=pid))
            s.commit()
    got = stats.player_stats(manager.db, pid)["games"]["toy"]
    assert got["games"] == 2 and got["wins"] == 1 and got["avg_place"] == 1.5 and got["avg_score"] == 15.0
    assert got["finished"] == {"games": 2, "abandoned": 1, "share": 0.5}
    assert stats.player_stats(manager.db, pid, limit=1) == {"games": {}, "counted": 1, "limit": 1}
    latest = stats.player_stats(manager.db, pid, limit=2)  # the two latest tables: one played alone
    assert latest["counted"] == 2 and latest["games"]["toy"]["games"] == 1
    assert latest["games"]["toy"]["avg_place"] == 2.0


def test_the_history_is_the_latest_points_oldest_first(client):
    db = client.app.state.manager.db
    with db.session() as s:
        for i in range(5):
            s.add(RatingHistoryRow(game_id="toy", subject="p:x", table_id=f"t{i}", mu=25 + i, sigma=5))
        s.commit()
    got = stats.history(db, "p:x", limit=3)
    assert [p["table"] for p in got["toy"]] == ["t2", "t3", "t4"]


@SETTINGS
@given(name=st.text(max_size=40) | st.sampled_from(["\ud800", "bot:", "bot: easy", "bot: nope", "%00", "..", "a/b"]),
       game=st.text(max_size=12) | st.sampled_from(["toy", "splendor", "%2e%2e"]))
def test_statistics_never_500(client, name, game):
    from urllib.parse import quote

    q = quote(name.encode("utf-8", "surrogatepass"), safe="")
    r = client.get(f"/api/stats/players/{q}")
    assert r.status_code in (200, 404), r.text
    r = client.get(f"/api/stats/games/{quote(game, safe='')}")
    assert r.status_code in (200, 404), r.text


def test_statistics_on_postgresql(postgres_url):
    """The same queries on PostgreSQL (DISTINCT with ORDER BY, the indexes made on an existing schema)."""
    from sqlalchemy import text

    from gemtable.server.db import Database

    db = Database(postgres_url)
    with db.engine.begin() as conn:  # an older schema without the statistics index
        conn.execute(text("DROP INDEX IF EXISTS ix_gt_tables_game_status"))
    db.dispose()
    db = Database(postgres_url)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_gt_tables_game_status'")).scalar() == 1
    now = utcnow()
    with db.session() as s:
        for i, (status, ranking) in enumerate([("finished", [1, 2]), ("finished", [2, 1]), ("running", [1, 2])]):
            s.add(TableRow(id=f"pg{i}", game_id="toy", num_players=2, options={}, seed=i, status=status,
                           updated_at=now - dt.timedelta(hours=i), result={"ranking": ranking, "scores": [3, 2]}))
            s.add(SeatRow(table_id=f"pg{i}", seat=0, kind="human", name="Pia", token=f"pga{i}", player_id="pia"))
            s.add(SeatRow(table_id=f"pg{i}", seat=1, kind="bot", bot="easy", name="Bot", token=f"pgb{i}"))
        s.add(RatingHistoryRow(game_id="toy", subject="p:pia", table_id="pg0", mu=27, sigma=7))
        s.commit()
    got = stats.player_stats(db, "pia")
    assert got["counted"] == 2 and got["games"]["toy"]["wins"] == 1 and got["games"]["toy"]["avg_score"] == 3.0
    site = stats.game_stats(db, "toy")
    assert site["counted"] == 2 and [x["wins"] for x in site["seats"]["2"]["seats"]] == [1, 1]
    assert stats.history(db, "p:pia")["toy"][0]["table"] == "pg0"
    db.dispose()
