"""Ratings: OpenSkill (Plackett-Luce) per game, a leaderboard and player profiles.

A finished table is rated once: the claim (``gt_tables.rated``) is set in the
same transaction as the new ratings, so neither a second worker, a restart
nor a retry can count a table twice, and a table finished while the server
went down is rated at the next start (``catch_up``).

Who is rated: players with an account, and bots playing at one of the named
levels (under "bot: <level>").  Guests, custom bot specs and anyone else are
left out, the others are rated on their places among themselves.  Not rated
at all: tables with no account among the seats, tables where one account
held several seats (playing oneself), tables where a seat took back a whole
turn past a draw or a reveal (``result["took_back"]``: they saw what comes), tables where a
seat was shown hints (``gt_hints``) and tables marked as practice (``gt_practice``).  Several bots of one level
at a table are rated seat by seat from the same rating; the level's new
rating is the mean of those.

Stand-in bots (a seat out of time or away, until its player takes it back; inplay.py) and
resignations, seat by seat (README "Ratings"):

- a seat whose stand-in made at most a fifth of its moves (``STAND_IN_SHARE``) is rated on
  its place as if its player had made every move;
- a seat whose stand-in made more than that, and whose player came back and finished the
  game, is not rated (``result["unrated"]``); the others are rated among themselves;
- a seat that resigned, or that a stand-in was still playing when the game ended (abandoned,
  ``result["abandoned"]``), takes the last place (inplay.py writes it into the ranking) and
  is rated on it;
- a seat never played by a stand-in is rated whatever happened at the other seats.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import select, update

from .db import (
    HintRow,
    PlayerRow,
    PracticeRow,
    RatingHistoryRow,
    RatingRow,
    SeatRow,
    TableRow,
    utcnow,
)
from .hooks import TableHooks
from .table import LiveTable
from .tables import TableManager

log = logging.getLogger("gemtable.server")

LEADERBOARD_SIZE = 100
RECENT = 20


def model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


DEFAULT_SKILL = 25.0  # the skill (mu) of a rating nobody has earned yet: OpenSkill's default


def skills(session: Any, game_id: str, player_ids: Any) -> dict[str, float]:
    """The skill (``mu``) in ``game_id`` of each of ``player_ids`` that has a rating, read in one
    query whatever their number (Play now ranks many tables at once).  A guest or a player not
    rated yet is left out: count them at ``DEFAULT_SKILL``."""
    ids = sorted({p for p in player_ids if p})
    if not ids:
        return {}
    rows = session.execute(select(RatingRow.subject, RatingRow.mu).where(
        RatingRow.game_id == game_id, RatingRow.subject.in_(["p:" + p for p in ids])))
    return {subject[2:]: float(mu) for subject, mu in rows}


def levels() -> tuple[str, ...]:
    """The rated bot levels: every named level of ``gemtable.bots.LEVELS``, easiest first."""
    from gemtable.bots import LEVELS

    return tuple(LEVELS)


def bot_name(level: str) -> str:
    return f"bot: {level}"


def subject_of(seat: SeatRow, accounts: set[str]) -> str | None:
    if seat.kind == "bot":
        return f"bot:{seat.bot}" if seat.bot in levels() else None
    if seat.player_id is not None and seat.player_id in accounts:
        return f"p:{seat.player_id}"
    return None


STAND_IN_SHARE = 0.2  # more than this share of a seat's moves made by a stand-in: the seat is not rated


def unrated_seats(result: dict[str, Any]) -> list[int]:
    """The seats a stand-in played too much of (``STAND_IN_SHARE``) whose player came back:
    left out of the rating.  Resigned and abandoned seats are rated (at the last place)."""
    out = set(result.get("resigned") or ()) | set(result.get("abandoned") or ())
    seats = []
    for entry in result.get("stand_ins") or ():
        if not isinstance(entry, dict):
            continue
        seat, moves, of = entry.get("seat"), entry.get("moves"), entry.get("of")
        if isinstance(seat, int) and isinstance(moves, int) and isinstance(of, int) and seat not in out \
                and moves > STAND_IN_SHARE * of:
            seats.append(seat)
    return sorted(seats)


def rate_table(db, table_id: str) -> bool:
    """Rate one finished table (a database thread).  True when ratings changed."""
    with db.session() as s:
        row = s.get(TableRow, table_id)
        if row is None or row.status != "finished" or row.rated:
            return False
        claimed = s.execute(update(TableRow).where(TableRow.id == table_id, TableRow.rated.is_not(True))
                            .values(rated=True))
        if claimed.rowcount != 1:
            s.rollback()
            return False
        result = row.result or {}
        ranking = result.get("ranking")
        seats = list(s.scalars(select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)))
        ids = [seat.player_id for seat in seats if seat.player_id]
        accounts = set(s.scalars(select(PlayerRow.id).where(PlayerRow.id.in_(ids),
                                                             PlayerRow.password_hash.is_not(None)))) if ids else set()
        left_out = set(unrated_seats(result))
        entries = [(seat.seat, subject_of(seat, accounts)) for seat in seats if seat.seat not in left_out]
        entries = [(seat, subj) for seat, subj in entries if subj is not None]
        people = [subj for _, subj in entries if subj.startswith("p:")]
        rated = (
            not result.get("took_back")
            and s.scalar(select(HintRow.seat).where(HintRow.table_id == table_id).limit(1)) is None  # hints.py
            and s.get(PracticeRow, table_id) is None
            and people and len(set(people)) == len(people)
            and len(entries) >= 2
            and isinstance(ranking, list) and len(ranking) == len(seats)
            and all(isinstance(r, int) and not isinstance(r, bool) for r in ranking)
        )
        if not rated:
            s.commit()  # decided once: this table is not rated
            return False
        m = model()
        stored = {r.subject: r for r in s.scalars(select(RatingRow).where(
            RatingRow.game_id == row.game_id, RatingRow.subject.in_({subj for _, subj in entries})))}
        teams = []
        for _, subj in entries:
            r = stored.get(subj)
            teams.append([m.rating(mu=r.mu, sigma=r.sigma) if r is not None else m.rating()])
        new = m.rate(teams, ranks=[ranking[seat] for seat, _ in entries])
        gathered: dict[str, list[Any]] = {}
        for (_, subj), team in zip(entries, new):
            gathered.setdefault(subj, []).append(team[0])
        now = utcnow()
        for subj, ratings in gathered.items():
            mu = sum(r.mu for r in ratings) / len(ratings)
            sigma = sum(r.sigma for r in ratings) / len(ratings)
            r = stored.get(subj)
            if r is None:
                s.add(RatingRow(game_id=row.game_id, subject=subj, mu=mu, sigma=sigma, games=1, updated_at=now))
            else:
                r.mu, r.sigma, r.games, r.updated_at = mu, sigma, r.games + 1, now
            s.add(RatingHistoryRow(game_id=row.game_id, subject=subj, table_id=table_id, mu=mu, sigma=sigma, at=now))
        s.commit()
        return True


def unrated_ids(db) -> list[str]:
    """Finished tables not yet rated where some seat is held by a player."""
    with db.session() as s:
        return list(s.scalars(
            select(TableRow.id).where(TableRow.status == "finished", TableRow.rated.is_not(True),
                                      TableRow.id.in_(select(SeatRow.table_id).where(SeatRow.player_id.is_not(None))))
        ))


async def rate(manager: TableManager, table_id: str) -> bool:
    try:
        return await manager.run_db(rate_table, manager.db, table_id)
    except Exception:  # tried again at the next start (catch_up)
        log.exception("rating table %s failed", table_id)
        return False


async def catch_up(manager: TableManager) -> int:
    """Start-up: rate the finished tables that were not rated (the server stopped in between)."""
    count = 0
    for table_id in await manager.run_db(unrated_ids, manager.db):
        count += bool(await rate(manager, table_id))
    return count


class RatingsHooks(TableHooks):
    """Rates every finished table once (in the background; claimed in the database, so once
    across workers too).  ``active`` False: finished tables are left for ``catch_up``."""

    def __init__(self, manager: TableManager) -> None:
        self.m = manager
        self.active = True
        self.tasks: set[asyncio.Task] = set()

    def finished(self, table: LiveTable) -> None:
        if not self.active:
            return
        task = asyncio.get_running_loop().create_task(rate(self.m, table.id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


# -- reading ------------------------------------------------------------------------------
def leaderboard(db, game_id: str, limit: int = LEADERBOARD_SIZE) -> list[dict[str, Any]]:
    with db.session() as s:
        rows = s.execute(
            select(RatingRow, PlayerRow.name)
            .outerjoin(PlayerRow, RatingRow.subject == "p:" + PlayerRow.id)
            .where(RatingRow.game_id == game_id)
            .order_by((RatingRow.mu - 3.0 * RatingRow.sigma).desc(), RatingRow.games.desc())
            .limit(limit * 2)
        ).all()
    out = []
    for r, name in rows:
        bot = r.subject.startswith("bot:")
        if bot:
            name = bot_name(r.subject[4:])
        elif name is None:
            continue  # a player removed since
        out.append({"rank": len(out) + 1, "name": name, "bot": bot, "ordinal": round(ordinal(r.mu, r.sigma), 3),
                    "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": r.games})
        if len(out) >= limit:
            break
    return out


def was_abandoned(result: Any, seats: set[int]) -> bool:
    """True when a stand-in bot was still playing one of ``seats`` when the game ended."""
    return isinstance(result, dict) and bool(seats & set(result.get("abandoned") or ()))


def finished_share(db, player_id: str) -> dict[str, Any]:
    """How many of a player's finished games they played to the end: the games where a
    stand-in bot was still playing their seat at the end are abandoned (a resignation is not)."""
    with db.session() as s:
        rows = s.execute(select(TableRow.id, TableRow.result, SeatRow.seat)
                         .join(SeatRow, SeatRow.table_id == TableRow.id)
                         .where(SeatRow.player_id == player_id, TableRow.status == "finished")).all()
    seats: dict[str, set[int]] = {}
    results: dict[str, Any] = {}
    for table_id, result, seat in rows:
        seats.setdefault(table_id, set()).add(seat)
        results[table_id] = result
    abandoned = sum(1 for t, mine in seats.items() if was_abandoned(results[t], mine))
    games = len(seats)
    return {"games": games, "abandoned": abandoned,
            "share": round((games - abandoned) / games, 3) if games else None}


def ratings_of(db, subject: str) -> dict[str, dict[str, Any]]:
    from sqlalchemy import func

    with db.session() as s:
        out = {}
        for r in s.scalars(select(RatingRow).where(RatingRow.subject == subject)):
            above = s.scalar(select(func.count()).select_from(RatingRow).where(
                RatingRow.game_id == r.game_id, (RatingRow.mu - 3.0 * RatingRow.sigma) > ordinal(r.mu, r.sigma)))
            out[r.game_id] = {"rank": above + 1, "ordinal": round(ordinal(r.mu, r.sigma), 3),
                              "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": r.games}
        return out
