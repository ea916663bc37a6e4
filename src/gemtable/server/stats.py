"""Statistics from finished games: per player and game, and per game over the whole site.

Only finished tables count (``gt_tables.status == "finished"``): a running or waiting table
never shows here, so nothing of a game in progress leaks.  Every query is bounded: a
player's latest ``PLAYER_GAMES`` finished tables, a game's latest ``SITE_GAMES``, a rating
history's latest ``HISTORY_POINTS`` points, each read through an index.

Per player and game: games, wins (a shared first place is a win), average score and place,
the share of games played to the end (ratings.py decides what was abandoned) and the rating
after each rated game (``gt_rating_history``, written when ratings.py rates a table).
A table where the player held several seats (playing oneself) is left out.

Per game: finished tables per day (UTC) over the last ``DAYS`` days and, for each player
count, each seat's share of the wins with a 95 % Wilson interval (win shares: a first place
shared by k seats counts 1/k).  Only tables where a person held a seat count: bot-only
tables are the bots' business, not the site's players'.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select

from gemtable.analysis.stats import wilson

from .db import RatingHistoryRow, SeatRow, TableRow, utcnow
from .ratings import ordinal, was_abandoned

PLAYER_GAMES = 2000
SITE_GAMES = 5000
HISTORY_POINTS = 200
DAYS = 30


def _valid(result: Any, seats: int) -> tuple[list[int], list[Any]] | None:
    """The ranking (and scores) of a finished table, or None when the result is not usable."""
    if not isinstance(result, dict):
        return None
    ranking = result.get("ranking")
    if not isinstance(ranking, list) or len(ranking) != seats \
            or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in ranking):
        return None
    scores = result.get("scores")
    scores = scores if isinstance(scores, list) and len(scores) == seats else [None] * seats
    return ranking, scores


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def history(db, subject: str, game_id: str | None = None, limit: int = HISTORY_POINTS) -> dict[str, list]:
    """The latest ``limit`` rating points per game, oldest first: ``{game: [{at, rating, table}]}``."""
    out: dict[str, list] = {}
    with db.session() as s:
        games = [game_id] if game_id else list(s.scalars(
            select(RatingHistoryRow.game_id).where(RatingHistoryRow.subject == subject).distinct().limit(50)))
        for g in games:
            rows = s.execute(select(RatingHistoryRow).where(RatingHistoryRow.subject == subject,
                                                            RatingHistoryRow.game_id == g)
                             .order_by(RatingHistoryRow.id.desc()).limit(limit)).scalars().all()
            if rows:
                out[g] = [{"at": r.at.isoformat(), "rating": round(ordinal(r.mu, r.sigma), 3), "table": r.table_id}
                          for r in reversed(rows)]
    return out


def player_stats(db, player_id: str, limit: int = PLAYER_GAMES) -> dict[str, Any]:
    """Per game: games, wins, average score and place, finished share, over the latest ``limit`` tables."""
    with db.session() as s:
        latest = (select(TableRow.id, TableRow.updated_at).join(SeatRow, SeatRow.table_id == TableRow.id)
                  .where(SeatRow.player_id == player_id, TableRow.status == "finished").distinct()
                  .order_by(TableRow.updated_at.desc()).limit(limit))
        ids = [tid for tid, _ in s.execute(latest)]
        rows = s.execute(select(TableRow.id, TableRow.game_id, TableRow.num_players, TableRow.result,
                                SeatRow.seat, SeatRow.player_id)
                         .join(SeatRow, SeatRow.table_id == TableRow.id)
                         .where(TableRow.id.in_(ids))).all() if ids else []
    tables: dict[str, dict[str, Any]] = {}
    for tid, game_id, n, result, seat, pid in rows:
        t = tables.setdefault(tid, {"game": game_id, "n": n, "result": result, "mine": set()})
        if pid == player_id:
            t["mine"].add(seat)
    per: dict[str, dict[str, Any]] = {}
    for t in tables.values():
        if len(t["mine"]) != 1:
            continue  # playing oneself at several seats
        seat = next(iter(t["mine"]))
        g = per.setdefault(t["game"], {"games": 0, "wins": 0, "abandoned": 0, "places": [], "scores": []})
        g["games"] += 1
        g["abandoned"] += was_abandoned(t["result"], t["mine"])
        valid = _valid(t["result"], t["n"])
        if valid is None or seat >= t["n"]:
            continue
        ranking, scores = valid
        g["wins"] += ranking[seat] == 1
        g["places"].append(ranking[seat])
        if (score := _number(scores[seat])) is not None:
            g["scores"].append(score)
    out = {}
    for game_id, g in sorted(per.items()):
        out[game_id] = {
            "games": g["games"], "wins": g["wins"],
            "win_share": round(g["wins"] / g["games"], 3),
            "avg_place": round(sum(g["places"]) / len(g["places"]), 2) if g["places"] else None,
            "avg_score": round(sum(g["scores"]) / len(g["scores"]), 1) if g["scores"] else None,
            "finished": {"games": g["games"], "abandoned": g["abandoned"],
                         "share": round((g["games"] - g["abandoned"]) / g["games"], 3)},
        }
    return {"games": out, "counted": len(tables), "limit": limit}


def game_stats(db, game_id: str, limit: int = SITE_GAMES, days: int = DAYS,
               now: dt.datetime | None = None) -> dict[str, Any]:
    """Games per day and the advantage of each seat, from the site's latest ``limit`` finished tables."""
    with db.session() as s:
        people = select(SeatRow.table_id).where(SeatRow.table_id == TableRow.id, SeatRow.kind == "human")
        rows = s.execute(select(TableRow.id, TableRow.num_players, TableRow.result, TableRow.updated_at)
                         .where(TableRow.game_id == game_id, TableRow.status == "finished", people.exists())
                         .order_by(TableRow.updated_at.desc()).limit(limit)).all()
    today = (now or utcnow()).date()
    first = today - dt.timedelta(days=days - 1)
    per_day = {first + dt.timedelta(days=i): 0 for i in range(days)}
    seats: dict[int, dict[str, Any]] = {}
    for _tid, n, result, at in rows:
        if at is not None and at.date() in per_day:
            per_day[at.date()] += 1
        valid = _valid(result, n)
        if valid is None:
            continue
        ranking, _ = valid
        winners = [p for p, r in enumerate(ranking) if r == 1]
        if not winners:
            continue
        c = seats.setdefault(n, {"games": 0, "wins": [0.0] * n})
        c["games"] += 1
        for p in winners:
            c["wins"][p] += 1 / len(winners)
    advantage = {}
    for n, c in sorted(seats.items()):
        out = []
        for seat, w in enumerate(c["wins"]):
            low, high = wilson(w, c["games"])
            out.append({"seat": seat, "wins": round(w, 2), "share": round(w / c["games"], 3),
                        "low": round(low, 3), "high": round(high, 3)})
        advantage[str(n)] = {"games": c["games"], "seats": out}
    return {"game": game_id, "counted": len(rows), "limit": limit,
            "per_day": [{"day": d.isoformat(), "games": k} for d, k in per_day.items()],
            "seats": advantage}
