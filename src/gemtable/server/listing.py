"""The lobby's list of tables (filters, stable paging) and "Play now".

**The list** (``GET /api/lobby``): every listed table — waiting, running and finished; never a
private one — newest first, filtered by game, player count, time control and "has an open
seat".  Pages are cut by a cursor (the last table's creation time and id, which never change),
not by an offset: paging through shows every table at most once even while new tables appear,
and the same cursor gives the same page.  As in the plain listing, one creator's address has
at most ``Limits.lobby_per_creator`` tables in it.

**Play now** (``POST /api/lobby/play``): a player asks for a game (optionally a player count
and a time control) and is seated at a matching table that waits for players and that they may
join, or, when none does, at a new table of their own whose other seats are open.
Matching never offers a private table, a table whose creator chose the seed (they may know
the hidden cards), a table that has started, a full one, or one whose host removed the player.
A player already waiting at a matching table is sent back there.

Finding a table and opening one is one step for each game (a lock per game in this process
and, on PostgreSQL, an advisory lock across workers): two players pressing Play now at once
do not both open a table; the second sits down at the first one's.

Which of the matching tables comes first is ``Matcher.rank``'s choice, by rating as on chess
sites.  Every player counts with their rating for that game (ratings.py; a guest or a player
not rated yet with the default one), and a table's distance from the seeker is how far, on
average, its seated players' ratings are from the seeker's.  Each table has a window that
starts at ``Matcher.window`` rating points and widens by ``Matcher.widen`` a second while the
table waits.  Tables whose distance is inside their window come first, the nearest first; then
the others, the nearest first, so a table whose players nobody near their rating comes for is
still taken when nothing better is there: nobody waits forever.  Distances are compared in
whole points (a smaller difference is noise in a rating); equal ones go to the table that has
waited longest.  The ratings of every candidate's players are read in one query.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import dataclasses
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, exists, func, or_, select, text

from gemtable.core import i18n
from . import lobby, ratings
from .db import ActionRow, KickedRow, PlayerRow, PlayRow, SeatRow, TableRow, utcnow
from .limits import shown
from .table import LiveTable, Rejected
from .tables import TableManager

CLOCK_MODES = ("none", "realtime", "turn")
PER_PAGE = 20
MAX_PER_PAGE = 50
MAX_CANDIDATES = 200  # waiting tables (the oldest) one Play now ranks
MAX_TRIES = 20  # of those, the best ones it tries to join before it opens a table


# -- filters ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Filters:
    game: str | None = None
    players: int | None = None
    clock: str | None = None
    open_seat: bool = False


def _game(value: str | None, known: dict[str, Any]) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or value not in known:
        raise Rejected("bad_filter", i18n.msg("'game' must be one of {games}, not {value}.", games=", ".join(sorted(known)),
                                              value=shown(value)), 422)
    return value


def _players(value: Any, game: Any = None) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit()
                                                                  and len(value) <= 2)):
        raise Rejected("bad_filter", i18n.msg("'players' must be a whole number of players, not {value}.",
                                              value=shown(value)), 422)
    n = int(value)
    allowed = tuple(game.player_counts) if game is not None else range(1, 13)
    if n not in allowed:
        raise Rejected("bad_filter", (i18n.msg("'players' must be one of {counts}, not {n}.", counts=", ".join(map(str, allowed)), n=n)
                                     if game is None else
                                     i18n.msg("'players' must be one of {counts} for {game}, not {n}.",
                                              counts=", ".join(map(str, allowed)), game=i18n.msg(game.title), n=n)),
                       422, domains=game.domains if game is not None else (i18n.CORE_DOMAIN,))
    return n


def _clock(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or value not in CLOCK_MODES:
        raise Rejected("bad_filter", i18n.msg("'clock' must be one of {modes}, not {value}.", modes=", ".join(CLOCK_MODES),
                                              value=shown(value)), 422)
    return value


def parse_filters(game: Any = None, players: Any = None, clock: Any = None, open_seat: Any = None) -> Filters:
    """Filters from a request's values (strings or JSON); anything malformed is a 422 that names it."""
    from gemtable.core.registry import all_games

    known = all_games()
    g = _game(game, known)
    if open_seat in (None, "", "0", "false", False):
        wants_open = False
    elif open_seat in ("1", "true", True):
        wants_open = True
    else:
        raise Rejected("bad_filter", i18n.msg("'open' must be true or false (1 or 0), not {value}.",
                                              value=shown(open_seat)), 422)
    return Filters(g, _players(players, known[g] if g else None), _clock(clock), wants_open)


def _cursor(created: dt.datetime, table_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created.isoformat()}|{table_id}".encode()).decode().rstrip("=")


def parse_cursor(value: Any) -> tuple[dt.datetime, str] | None:
    if value in (None, ""):
        return None
    try:
        if not isinstance(value, str) or len(value) > 200:
            raise ValueError
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        when, _, table_id = raw.partition("|")
        created = dt.datetime.fromisoformat(when)
        if not table_id or created.tzinfo is not None:
            raise ValueError
        return created, table_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise Rejected("bad_cursor", i18n.msg("'after' must be a 'next' value from an earlier page of the list."), 422) from None


def parse_per_page(value: Any) -> int:
    if value in (None, ""):
        return PER_PAGE
    if not (isinstance(value, str) and value.isdigit() and len(value) <= 3) or not 1 <= int(value) <= MAX_PER_PAGE:
        raise Rejected("bad_filter", i18n.msg("'per_page' must be a whole number from 1 to {most}, not {value}.",
                                              most=MAX_PER_PAGE, value=shown(value)), 422)
    return int(value)


def _clock_mode():
    return func.coalesce(PlayRow.data[("clock", "mode")].as_string(), "none")


def _has_free_open_seat():
    return exists().where(SeatRow.table_id == TableRow.id, SeatRow.open_seat.is_(True),
                          SeatRow.player_id.is_(None), SeatRow.kind == "human")


def _conditions(f: Filters) -> list[Any]:
    out: list[Any] = [TableRow.private.is_not(True)]
    if f.game is not None:
        out.append(TableRow.game_id == f.game)
    if f.players is not None:
        out.append(TableRow.num_players == f.players)
    if f.clock is not None:
        out.append(_clock_mode() == f.clock)
    if f.open_seat:
        out += [TableRow.status == "waiting", _has_free_open_seat()]
    return out


# -- the list -------------------------------------------------------------------------------
def _page_rows(manager: TableManager, f: Filters, after: tuple[dt.datetime, str] | None, per_page: int,
               per_creator: int) -> tuple[list[TableRow], int, str | None]:
    """One page of rows (seats loaded, ``moves`` set), the number of matching tables, the next cursor."""
    rank = func.row_number().over(partition_by=func.coalesce(TableRow.creator, TableRow.id),
                                  order_by=(TableRow.created_at.desc(), TableRow.id.desc())).label("rank")
    inner = (select(TableRow.id, TableRow.created_at, rank)
             .select_from(TableRow).outerjoin(PlayRow, PlayRow.table_id == TableRow.id)
             .where(*_conditions(f)).subquery())
    listed = select(inner.c.id, inner.c.created_at).where(inner.c.rank <= per_creator)
    with manager.db.session() as s:
        total = s.scalar(select(func.count()).select_from(listed.subquery()))
        page = listed
        if after is not None:
            when, last = after
            page = page.where(or_(inner.c.created_at < when, and_(inner.c.created_at == when, inner.c.id < last)))
        picked = s.execute(page.order_by(inner.c.created_at.desc(), inner.c.id.desc()).limit(per_page + 1)).all()
        more = len(picked) > per_page
        picked = picked[:per_page]
        ids = [r.id for r in picked]
        by_id = {r.id: r for r in s.scalars(select(TableRow).where(TableRow.id.in_(ids)))} if ids else {}
        counts = dict(s.execute(select(ActionRow.table_id, func.count()).where(ActionRow.table_id.in_(ids))
                                .group_by(ActionRow.table_id)).all()) if ids else {}
        clocks = dict(s.execute(select(PlayRow.table_id, _clock_mode()).where(PlayRow.table_id.in_(ids))).all()) \
            if ids else {}
        rows = []
        for i in ids:
            row = by_id.get(i)
            if row is None:
                continue
            _ = row.seats  # load while the session is open
            row.moves = counts.get(i, 0)
            row.clock_mode = clocks.get(i, "none")
            rows.append(row)
        nxt = _cursor(picked[-1].created_at, picked[-1].id) if more and picked else None
        return rows, int(total or 0), nxt


async def page(manager: TableManager, f: Filters, after: tuple[dt.datetime, str] | None,
               per_page: int) -> dict[str, Any]:
    """``{"tables": [public summaries], "total": n, "next": cursor or None}``."""
    rows, total, nxt = await manager.run_db(_page_rows, manager, f, after, per_page, manager.limits.lobby_per_creator)
    tables = manager.summaries_of(rows)
    for row, summary in zip(rows, tables):
        if row.id in manager.tables:
            continue
        # a table another worker holds: its open seats and time control from its rows
        summary.setdefault("clock", {"mode": row.clock_mode})
        if row.status == "waiting":
            free = [s.seat for s in row.seats if s.open_seat and s.player_id is None and s.kind == "human"]
            summary["open"] = bool(free)
            for pub in summary["seats"]:
                pub["open"] = pub["seat"] in free
    return {"tables": tables, "total": total, "next": nxt, "per_page": per_page}


# -- Play now -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Seeker:
    """Who presses Play now, and for what (``players``/``clock`` None: any); ``rating``: their
    skill in that game (``ratings.skills``; None: not read yet, counted at the default)."""

    player: PlayerRow
    game: str
    players: int | None
    clock: str | None
    rating: float | None = None


@dataclass(frozen=True)
class Candidate:
    """A table Play now may seat the seeker at."""

    table_id: str
    created_at: dt.datetime
    seated: tuple[str, ...]  # the ids of the players already seated there
    ratings: tuple[float, ...] = ()  # their skills in the game, in the same order


class Matcher:
    """Orders the candidate tables for a seeker by rating, within a window that widens while a
    table waits (see the module)."""

    window = 3.0  # rating points (OpenSkill's mu) a table just opened accepts either way
    widen = 0.1  # points more for every second the table has waited: everyone after a few minutes

    def distance(self, seeker: Seeker, cand: Candidate) -> float:
        """How far the seated players' ratings are from the seeker's, on average (0: nobody seated)."""
        mine = ratings.DEFAULT_SKILL if seeker.rating is None else seeker.rating
        return sum(abs(mine - r) for r in cand.ratings) / len(cand.ratings) if cand.ratings else 0.0

    def reach(self, cand: Candidate, now: dt.datetime) -> float:
        """The table's window: how far from its players' ratings it accepts a seeker by now."""
        return self.window + self.widen * max(0.0, (now - cand.created_at).total_seconds())

    def rank(self, seeker: Seeker, candidates: list[Candidate], now: dt.datetime | None = None) -> list[Candidate]:
        now = now or utcnow()

        def key(c: Candidate) -> tuple[bool, int, dt.datetime, str]:
            d = self.distance(seeker, c)
            return d > self.reach(c, now), int(d), c.created_at, c.table_id

        return sorted(candidates, key=key)


def _matching(manager: TableManager, seeker: Seeker) -> tuple[str | None, float, list[Candidate]]:
    """(a matching waiting table where the seeker already sits, the seeker's rating, the tables
    they may join with their seated players' ratings).  Four queries, however many tables."""
    f = Filters(seeker.game, seeker.players, seeker.clock, True)
    mine = (select(TableRow.id).outerjoin(PlayRow, PlayRow.table_id == TableRow.id)
            .where(TableRow.status == "waiting", *_conditions(Filters(seeker.game, seeker.players, seeker.clock)),
                   exists().where(SeatRow.table_id == TableRow.id, SeatRow.player_id == seeker.player.id))
            .order_by(TableRow.created_at, TableRow.id).limit(1))
    joinable = (select(TableRow.id, TableRow.created_at).outerjoin(PlayRow, PlayRow.table_id == TableRow.id)
                .where(*_conditions(f), TableRow.seed_chosen.is_not(True),
                       ~exists().where(KickedRow.table_id == TableRow.id, KickedRow.player_id == seeker.player.id))
                .order_by(TableRow.created_at, TableRow.id).limit(MAX_CANDIDATES))
    with manager.db.session() as s:
        here = s.scalar(mine)
        rows = s.execute(joinable).all()
        ids = [r.id for r in rows]
        seated: dict[str, list[str]] = {}
        if ids:
            for tid, pid in s.execute(select(SeatRow.table_id, SeatRow.player_id)
                                      .where(SeatRow.table_id.in_(ids), SeatRow.player_id.is_not(None))
                                      .order_by(SeatRow.table_id, SeatRow.seat)):
                seated.setdefault(tid, []).append(pid)
        everyone = {seeker.player.id}.union(*seated.values())
        known = ratings.skills(s, seeker.game, everyone)  # one query for every candidate's players

        def skill(pid: str) -> float:
            return known.get(pid, ratings.DEFAULT_SKILL)

        return here, skill(seeker.player.id), [
            Candidate(r.id, r.created_at, tuple(seated.get(r.id, ())), tuple(skill(p) for p in seated.get(r.id, ())))
            for r in rows]


class PlayNow:
    """Play now for one server process (see the module)."""

    def __init__(self, manager: TableManager, matcher: Matcher | None = None) -> None:
        self.manager = manager
        self.matcher = matcher or Matcher()
        self._locks: dict[str, asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def _exclusive(self, game: str):
        lock = self._locks.setdefault(game, asyncio.Lock())
        async with lock:
            if not self.manager.db.url.startswith("postgresql"):
                yield
                return
            conn = await self.manager.run_db(self._pg_lock, game)
            try:
                yield
            finally:
                await asyncio.to_thread(self._pg_unlock, conn, game)

    def _pg_lock(self, game: str):
        conn = self.manager.db.engine.connect()
        conn.execute(text("SELECT pg_advisory_lock(hashtextextended(:k, 0))"), {"k": "gemtable play now " + game})
        conn.commit()  # the lock is the session's: no transaction left open meanwhile
        return conn

    @staticmethod
    def _pg_unlock(conn, game: str) -> None:
        try:
            conn.execute(text("SELECT pg_advisory_unlock(hashtextextended(:k, 0))"), {"k": "gemtable play now " + game})
            conn.commit()
        finally:
            conn.close()

    async def play(self, seeker: Seeker, open_table: Callable[[], Awaitable[LiveTable]]) -> tuple[LiveTable, int, bool]:
        """Seat the seeker: (the table, their seat, whether the table is new).  ``open_table``
        opens a new table with the seeker's seat and open seats (the caller's rate limits apply)."""
        manager = self.manager
        async with self._exclusive(seeker.game):
            here, rating, candidates = await manager.run_db(_matching, manager, seeker)
            if here is not None:
                table = await manager.get(here)
                seat = next((s.seat for s in table.seats if s.player == seeker.player.id), None)
                if seat is not None and table.waiting:
                    return table, seat, False
            ranked = self.matcher.rank(dataclasses.replace(seeker, rating=rating), candidates)
            for cand in ranked[:MAX_TRIES]:
                try:
                    table = await manager.get(cand.table_id)
                    if not table.waiting or lobby.lobby_of(table).private or table.seed_chosen:
                        continue
                    seat = await lobby.join(manager, table, seeker.player, None)
                    return table, seat, False
                except Rejected:
                    continue  # taken, started or gone meanwhile: the next one
            table = await open_table()
            seat = next(s.seat for s in table.seats if s.player == seeker.player.id)
            return table, seat, True
