"""Tournaments: Swiss or round robin, played at ordinary tables made round by round.

A host with an account creates a tournament: a game, the players per table (within the game's
range), its options, a time control (as a table offers), the format (Swiss with a number of
rounds, or round robin for two-player tables), the start time and an optional cap on players.
Players with accounts register and unregister until the start.  Pairings, points per placing
and tiebreaks are pairing.py's (its docstring is the rule book); fewer players than a table
seats at the start time: the tournament is cancelled.

**Rounds.**  At the start time the tournament starts by itself: the round's games are paired
and stored with the ids of their tables, then the tables are made with the paired players
seated (bound to their accounts, so they show in "my games", and the turn alerts and mails
fire as at any table).  They are ordinary rated tables.  A round ends when every game of it has
a result; the next starts then.

**Exactly once across workers.**  A round starts by a compare-and-set on the tournament's
``round`` (``UPDATE … SET round = r + 1 WHERE round = r``) in the transaction that stores its
pairings: one worker wins, the others change nothing.  Results are read from the finished
tables' rows and written only where none is yet (``places IS NULL``), so any worker may record
them, any number of times.  Every worker sweeps the running tournaments every ``sweep``
seconds (as the clock sweeper does): a round whose tables all finished while the worker that
started it was down is closed and the next started by a live worker; a table that a worker
paired but died before making is made by the sweep (after ``repair_after`` seconds).

**No-shows.**  A seated player who neither opened their table nor moved within ``no_show``
seconds of its start (the tournament's setting; by default five minutes with a real-time
clock, a day otherwise) forfeits: their seat resigns (inplay.py), so they take the last place —
a two-player game ends at once; at a bigger table a bot plays the seat and the others play
on.  A table nobody came to gives every seat the last place (no points), and is left to expire.

**Blocks** (community.py) do not keep players apart here, as on Board Game Arena: the
pairing never looks at them, the table hides the blocked player's chat as at any table, and
no result or standing is ever hidden because of a block.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import re
import secrets
import socket
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, update

from gemtable.core.errors import GemtableError
from gemtable.core.registry import all_games, get_game

from gemtable.core import i18n
from . import pairing
from .db import (
    ActionRow,
    PlayerRow,
    RatingRow,
    SeatRow,
    TableRow,
    TournamentGameRow,
    TournamentPlayerRow,
    TournamentRow,
    utcnow,
)
from .hooks import TableHooks
from .limits import RateLimiter, shown
from .table import LiveTable, Rejected

if TYPE_CHECKING:  # pragma: no cover
    from .inplay import InPlay
    from .tables import TableManager

log = logging.getLogger("gemtable.server")

FORMATS = ("swiss", "roundrobin")
MAX_ROUNDS = 15  # Swiss
MAX_PLAYERS = 256
MAX_ROUND_ROBIN = 24  # players of a round robin (23 rounds)
MAX_AHEAD = 90 * 86400  # seconds: the furthest start time
LISTED = 50  # tournaments listed per status
WORKER = f"{socket.gethostname()[:40]}:{os.getpid()}"  # stored with the pairings this process made


@dataclass
class TournamentSettings:
    sweep: float = 2.0  # seconds between sweeps of the running tournaments (every worker)
    repair_after: float = 20.0  # seconds before a sweep makes a paired table its worker did not make
    no_show_realtime: int = 300  # default no-show time with a real-time clock (seconds)
    no_show_turn: int = 86400  # ... with a turn clock or none
    min_no_show: int = 10
    create_rate: float = 1 / 600  # tournaments created per second and player (one each 10 minutes) ...
    create_burst: int = 3  # ... after the first three
    register_rate: float = 1 / 3  # registrations and withdrawals per second and player ...
    register_burst: int = 10


@dataclass
class TableTour:
    """A table's tournament (a record of the table: None for an ordinary table)."""

    info: dict[str, Any] | None = None


def _iso(when: dt.datetime | None) -> str | None:
    return when.isoformat() + "Z" if when is not None else None


def _num(x: Fraction) -> float:
    return round(float(x), 3)


def _points_of(places: list[int] | None) -> list[float] | None:
    return None if places is None else [_num(p) for p in pairing.place_points(places)]


class Tournaments(TableHooks):
    """The tournaments of one server process (a worker): create, register, sweep, show."""

    def __init__(self, manager: TableManager, inplay: InPlay, settings: TournamentSettings | None = None) -> None:
        self.m = manager
        self.inplay = inplay
        self.settings = settings or TournamentSettings()
        self.create_limiter = RateLimiter(self.settings.create_rate, self.settings.create_burst)
        self.register_limiter = RateLimiter(self.settings.register_rate, self.settings.register_burst)
        self._task: asyncio.Task | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        self._pending: set[asyncio.Task] = set()

    # -- the table core's hooks --------------------------------------------------------------
    def read_rows(self, session: Any, table_id: str) -> dict[str, Any]:
        row = session.execute(select(TournamentGameRow.tournament_id, TournamentGameRow.round, TournamentRow.name)
                              .join(TournamentRow, TournamentRow.id == TournamentGameRow.tournament_id)
                              .where(TournamentGameRow.table_id == table_id)).first()
        return {"info": {"id": row[0], "round": row[1], "name": row[2]}} if row else {}

    def restored(self, table: LiveTable, row: Any, seat_rows: list[Any], extra: dict[str, Any]) -> None:
        table.record(TableTour).info = extra.get("info")

    def summary(self, table: LiveTable, out: dict[str, Any]) -> None:
        info = table.record(TableTour).info
        if info is not None:
            out["tournament"] = dict(info)

    def finished(self, table: LiveTable) -> None:
        info = table.record(TableTour).info
        if info is not None:  # the round may be complete: look now, not at the next sweep
            self._spawn(self.settle(info["id"]))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        tasks = [t for t in [self._task, *self._pending] if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._pending.add(task)

        def done(t: asyncio.Task) -> None:
            self._pending.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("tournament task failed: %r", t.exception())

        task.add_done_callback(done)

    # -- the sweep ---------------------------------------------------------------------------
    async def _loop(self) -> None:
        while not self.m.closing:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament sweep failed")
            await asyncio.sleep(self.settings.sweep)

    def _due(self) -> list[str]:
        now = utcnow()
        with self.m.db.session() as s:
            return list(s.scalars(select(TournamentRow.id).where(
                (TournamentRow.status == "running")
                | ((TournamentRow.status == "open") & (TournamentRow.starts_at <= now)))))

    async def sweep(self) -> None:
        """Start the tournaments whose time has come; settle the running ones."""
        for tid in await self.m.run_db(self._due):
            try:
                await self.settle(tid)
            except Rejected as exc:
                log.warning("tournament %s not settled now (%s)", tid, exc.code)

    async def settle(self, tid: str) -> None:
        """Bring a tournament forward as far as its rows allow (idempotent; any worker, any time):
        start it, record finished tables, forfeit no-shows, start the next round or finish it,
        make the tables of the round."""
        lock = self._locks.setdefault(tid, asyncio.Lock())
        async with lock:
            for _step in range(MAX_ROUNDS * 4 + 30):
                row = await self.m.run_db(self._get, tid)
                if row is None:
                    return
                if row.status == "open":
                    if row.starts_at > utcnow():
                        return
                    if not await self.m.run_db(self._begin, tid):
                        continue  # another worker began it (or it was cancelled): look again
                    await self._make_tables(tid, row.round + 1, fresh=True)
                    continue
                if row.status != "running":
                    return
                await self._make_tables(tid, row.round, fresh=False)
                no_shows = await self.m.run_db(self._record, tid, row.round)
                for table_id, seats in no_shows:
                    await self._forfeit(table_id, seats)
                if no_shows:
                    await self.m.run_db(self._record, tid, row.round)
                advanced = await self.m.run_db(self._advance, tid, row.round)
                if advanced is None:
                    return
                if advanced == "next":
                    await self._make_tables(tid, row.round + 1, fresh=True)
                # finished or a new round: look again (a round of byes only is complete at once)
            self._locks.pop(tid, None)

    # -- database steps (database threads) ---------------------------------------------------
    def _get(self, tid: str) -> TournamentRow | None:
        with self.m.db.session() as s:
            return s.get(TournamentRow, tid)

    def _begin(self, tid: str) -> bool:
        """Open → running (round 1), or cancelled with too few players; the first round paired.
        True if this call started it."""
        now = utcnow()
        with self.m.db.session() as s:
            won = s.execute(update(TournamentRow).where(
                TournamentRow.id == tid, TournamentRow.status == "open", TournamentRow.round == 0,
                TournamentRow.starts_at <= now).values(status="running", round=1, updated_at=now, round_at=now))
            if won.rowcount != 1:
                s.rollback()
                return False
            t = s.get(TournamentRow, tid)
            people = list(s.scalars(select(TournamentPlayerRow).where(TournamentPlayerRow.tournament_id == tid)))
            if len(people) < max(2, t.table_size):
                t.status, t.round = "cancelled", 0
                s.commit()
                log.info("tournament %s cancelled: %d players registered", tid, len(people))
                return True
            ratings = {r.subject: pairing_rating(r) for r in s.scalars(select(RatingRow).where(
                RatingRow.game_id == t.game_id, RatingRow.subject.in_([f"p:{p.player_id}" for p in people])))}
            for p in people:
                p.rating = ratings.get(f"p:{p.player_id}", 0.0)
            if t.format == "roundrobin":
                t.rounds = pairing.round_robin_rounds(len(people))
            s.flush()
            self._pair(s, t, 1)
            s.commit()
        log.info("tournament %s: round 1 started", tid)
        return True

    def _pair(self, s: Any, t: TournamentRow, round_no: int) -> None:
        """Store the games of round ``round_no`` (in the caller's transaction)."""
        players, played = self._played(s, t.id)
        if t.format == "roundrobin":
            order = [r.player for r in pairing.seeded(pairing.standings(players, []), True)]
            games = pairing.round_robin(order, round_no)
        else:
            games = pairing.swiss_round(pairing.standings(players, played), t.table_size, round_no == 1)
        for board, game in enumerate(games):
            bye = len(game) == 1
            s.add(TournamentGameRow(tournament_id=t.id, round=round_no, board=board, players=game,
                                    table_id=None if bye else secrets.token_hex(5), made=bye,
                                    places=[1] if bye else None, paired_by=WORKER))

    @staticmethod
    def _played(s: Any, tid: str) -> tuple[dict[str, tuple[str, float]], list[list[tuple[list[str], Any]]]]:
        people = s.execute(select(TournamentPlayerRow, PlayerRow.name)
                           .outerjoin(PlayerRow, PlayerRow.id == TournamentPlayerRow.player_id)
                           .where(TournamentPlayerRow.tournament_id == tid)).all()
        players = {p.player_id: (name or p.name, p.rating) for p, name in people}
        rounds: dict[int, list[tuple[list[str], Any]]] = {}
        for g in s.scalars(select(TournamentGameRow).where(TournamentGameRow.tournament_id == tid)
                           .order_by(TournamentGameRow.round, TournamentGameRow.board)):
            rounds.setdefault(g.round, []).append((list(g.players), g.places))
        return players, [rounds[r] for r in sorted(rounds)]

    def _record(self, tid: str, round_no: int) -> list[tuple[str, list[int]]]:
        """Write the places of the round's finished tables (only where none are yet); the tables
        with seats past their no-show time (table id, those seats) to forfeit."""
        now = utcnow()
        forfeit: list[tuple[str, list[int]]] = []
        with self.m.db.session() as s:
            t = s.get(TournamentRow, tid)
            games = list(s.scalars(select(TournamentGameRow).where(
                TournamentGameRow.tournament_id == tid, TournamentGameRow.round == round_no,
                TournamentGameRow.places.is_(None), TournamentGameRow.made.is_(True))))
            for g in games:
                k = len(g.players)
                table = s.get(TableRow, g.table_id)
                places, absent_all = None, None
                if table is None:  # removed (nobody ever acted there): everyone last
                    places = [k] * k
                elif table.status == "finished":
                    ranking = (table.result or {}).get("ranking")
                    places = [int(x) for x in ranking] if isinstance(ranking, list) and len(ranking) == k \
                        else [1] * k
                elif table.created_at + dt.timedelta(seconds=t.no_show) <= now:
                    seats = s.scalars(select(SeatRow).where(SeatRow.table_id == g.table_id)).all()
                    moved = set(s.scalars(select(ActionRow.seat).where(ActionRow.table_id == g.table_id).distinct()))
                    absent = [r.seat for r in seats if r.kind == "human" and not r.joined and r.seat not in moved]
                    if len(absent) == k:
                        places, absent_all = [k] * k, absent  # nobody came
                    elif absent:
                        forfeit.append((g.table_id, absent))
                if places is not None:
                    done = s.execute(update(TournamentGameRow).where(
                        TournamentGameRow.tournament_id == tid, TournamentGameRow.round == round_no,
                        TournamentGameRow.board == g.board, TournamentGameRow.places.is_(None))
                        .values(places=places, forfeit=absent_all))
                    if done.rowcount:
                        log.info("tournament %s: round %d board %d recorded %s", tid, round_no, g.board, places)
            s.commit()
        return forfeit

    def _advance(self, tid: str, round_no: int) -> str | None:
        """The round is complete: the next is paired and started ("next") or the tournament ends
        ("finished"), by a compare-and-set on its round; None: not complete, or another worker
        moved it first."""
        now = utcnow()
        with self.m.db.session() as s:
            t = s.get(TournamentRow, tid)
            if t is None or t.status != "running" or t.round != round_no:
                return None
            open_games = s.scalar(select(func.count()).select_from(TournamentGameRow).where(
                TournamentGameRow.tournament_id == tid, TournamentGameRow.round == round_no,
                TournamentGameRow.places.is_(None)))
            if open_games:
                return None
            last = round_no >= t.rounds
            values: dict[str, Any] = {"updated_at": now}
            if last:
                values["status"] = "finished"
            else:
                values.update(round=round_no + 1, round_at=now)
            won = s.execute(update(TournamentRow).where(
                TournamentRow.id == tid, TournamentRow.status == "running", TournamentRow.round == round_no)
                .values(**values))
            if won.rowcount != 1:
                s.rollback()
                return None
            if not last:
                s.expire(t)
                self._pair(s, s.get(TournamentRow, tid), round_no + 1)
            s.commit()
        log.info("tournament %s: %s", tid, "finished" if last else f"round {round_no + 1} started")
        return "finished" if last else "next"

    def _unmade(self, tid: str, round_no: int, fresh: bool) -> tuple[TournamentRow, list[TournamentGameRow],
                                                                          dict[str, str]]:
        with self.m.db.session() as s:
            t = s.get(TournamentRow, tid)
            query = select(TournamentGameRow).where(TournamentGameRow.tournament_id == tid,
                                                    TournamentGameRow.round == round_no,
                                                    TournamentGameRow.made.is_(False))
            games = list(s.scalars(query))
            if not fresh and games and t.round_at is not None \
                    and t.round_at + dt.timedelta(seconds=self.settings.repair_after) > utcnow():
                games = []  # the worker that paired the round is (probably) still making them
            ids = {p for g in games for p in g.players}
            names = dict(s.execute(select(PlayerRow.id, PlayerRow.name).where(PlayerRow.id.in_(ids))).all()) \
                if ids else {}
            return t, games, names

    def _mark_made(self, tid: str, round_no: int, board: int) -> bool:
        """The game's table exists (made here or elsewhere): marked.  False: it does not."""
        with self.m.db.session() as s:
            g = s.get(TournamentGameRow, (tid, round_no, board))
            if g is None or s.get(TableRow, g.table_id) is None:
                return False
            g.made = True
            s.commit()
            return True

    async def _make_tables(self, tid: str, round_no: int, fresh: bool) -> None:
        """Make the round's tables not made yet (``fresh``: this worker just paired the round)."""
        t, games, names = await self.m.run_db(self._unmade, tid, round_no, fresh)
        info = {"id": tid, "round": round_no, "name": t.name}
        for g in games:
            if await self.m.run_db(self._mark_made, tid, round_no, g.board):
                continue  # made meanwhile (another worker, or before this one was stopped)
            players = list(g.players)
            specs = [{"kind": "human", "name": (names.get(p) or f"Player {i + 1}")[:24]} for i, p in enumerate(players)]

            def setup(table: LiveTable, players: list[str] = players) -> None:
                for i, p in enumerate(players):
                    table.seats[i].player = p
                table.record(TableTour).info = dict(info)

            try:
                table = await self.m.create(t.game_id, len(players), dict(t.options or {}), specs, None,
                                            setup=[setup, self.inplay.clock_setup(t.clock or {"mode": "none"})],
                                            table_id=g.table_id)
            except Rejected as exc:
                # stored by another worker at the same moment (the id is taken), or the database
                # is away: marked if it exists, else made at a later sweep
                if not await self.m.run_db(self._mark_made, tid, round_no, g.board):
                    log.warning("tournament %s: table %s not made now (%s)", tid, g.table_id, exc.code)
                continue
            await self.m.run_db(self._mark_made, tid, round_no, g.board)
            # as when a lobby table starts: the clocks run, the turn alerts and mails go out
            self.m.hooks.seats_changed(table, None, None, True)
            self.m.broadcast(table)

    async def _forfeit(self, table_id: str, seats: list[int]) -> None:
        """No-shows resign (inplay.py): the last place; the game ends if one seat is left."""
        try:
            table = await self.m.get(table_id)
        except Rejected:
            return
        for seat in seats:
            if table.over:
                break
            try:
                await self.inplay.resign(table, seat)
                log.info("table %s: seat %d did not show up (forfeit)", table_id, seat)
            except Rejected:
                pass  # resigned already (another worker), or over

    # -- the public API ------------------------------------------------------------------------
    async def create(self, player: PlayerRow, body: dict[str, Any]) -> dict[str, Any]:
        self._account(player)
        s = self.settings
        name = clean_title(body.get("name"))
        game_id = body.get("game")
        if not isinstance(game_id, str) or game_id not in all_games():
            raise Rejected("unknown_game", i18n.msg("There is no game {game}.", game=shown(game_id)), 422)
        game = get_game(game_id)
        size = body.get("players")
        if isinstance(size, bool) or not isinstance(size, int):
            raise Rejected("bad_players", i18n.msg("'players' (per table) must be a whole number."), 422)
        options = body.get("options") if body.get("options") is not None else {}
        if not isinstance(options, dict):
            raise Rejected("bad_options", i18n.msg("'options' must be an object of option names to values."), 422)
        try:
            game.check_players(size)
            options = game.resolve_options(options)
        except GemtableError as exc:
            raise Rejected("bad_options", str(exc), 422) from None
        clock = self.inplay.parse_clock(body.get("clock") if body.get("clock") is not None else {"mode": "none"})
        fmt = body.get("format", "swiss")
        if fmt not in FORMATS:
            raise Rejected("bad_format", i18n.msg("'format' must be 'swiss' or 'roundrobin', not {value}.", value=shown(fmt)), 422)
        if fmt == "roundrobin" and size != 2:
            raise Rejected("bad_format", i18n.msg("A round robin is for two players a table: choose Swiss for tables "
                                             "of three or four."), 422)
        rounds = body.get("rounds")
        if fmt == "swiss":
            if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
                raise Rejected("bad_rounds", i18n.msg("'rounds' must be a whole number from 1 to {most}.", most=MAX_ROUNDS), 422)
        else:
            rounds = 0  # set at the start (one fewer than the players, or as many when odd)
        cap = MAX_ROUND_ROBIN if fmt == "roundrobin" else MAX_PLAYERS
        most = body.get("max_players")
        if most is not None and (isinstance(most, bool) or not isinstance(most, int) or not size <= most <= cap):
            raise Rejected("bad_max", i18n.msg("'max_players' must be a whole number from {least} to {most}, or none.",
                                                   least=size, most=cap), 422)
        starts_at = start_time(body.get("starts_at"), body.get("starts_in"))
        timed = clock.get("mode") == "realtime"
        no_show = body.get("no_show")
        if no_show is None:
            no_show = s.no_show_realtime if timed else s.no_show_turn
        if isinstance(no_show, bool) or not isinstance(no_show, int) or not s.min_no_show <= no_show <= 7 * 86400:
            raise Rejected("bad_no_show", i18n.msg("'no_show' must be seconds from {least} to {most}.",
                                                       least=s.min_no_show, most=7 * 86400), 422)
        limited(self.create_limiter, player.id, i18n.mark("Too many new tournaments: try again in {wait} s."))
        tid = secrets.token_hex(6)
        now = utcnow()

        def store() -> None:
            with self.m.db.session() as ses:
                ses.add(TournamentRow(id=tid, name=name, game_id=game.id, table_size=size, options=options,
                                      clock=clock, format=fmt, rounds=rounds, round=0, status="open",
                                      starts_at=starts_at, max_players=most, no_show=no_show,
                                      host_player=player.id, created_at=now, updated_at=now))
                ses.commit()

        await self.m.run_db(store)
        return await self.view(tid, player.id)

    @staticmethod
    def _account(player: PlayerRow) -> None:
        if player.password_hash is None:
            raise Rejected("no_account", i18n.msg("Tournaments are for accounts: register (a name and a password) first."), 403)

    async def register(self, tid: Any, player: PlayerRow, join: bool) -> dict[str, Any]:
        self._account(player)
        check_id(tid)
        limited(self.register_limiter, player.id, i18n.mark("Too many registrations: try again in {wait} s."))

        def change() -> None:
            with self.m.db.session() as s:
                t = s.execute(select(TournamentRow).where(TournamentRow.id == tid).with_for_update()).scalar()
                if t is None:
                    raise Rejected("no_tournament", i18n.msg("There is no such tournament."), 404)
                if t.status != "open" or t.starts_at <= utcnow():
                    raise Rejected("closed", i18n.msg("Registration is closed: the tournament has started."), 409)
                mine = s.get(TournamentPlayerRow, (tid, player.id))
                if join:
                    if mine is not None:
                        return
                    count = s.scalar(select(func.count()).select_from(TournamentPlayerRow)
                                     .where(TournamentPlayerRow.tournament_id == tid))
                    cap = t.max_players or (MAX_ROUND_ROBIN if t.format == "roundrobin" else MAX_PLAYERS)
                    if count >= cap:
                        raise Rejected("full", i18n.msg("The tournament is full."), 409)
                    s.add(TournamentPlayerRow(tournament_id=tid, player_id=player.id, name=player.name, at=utcnow()))
                elif mine is not None:
                    s.delete(mine)
                else:
                    raise Rejected("not_registered", i18n.msg("You are not registered for this tournament."), 409)
                s.commit()

        await self.m.run_db(change)
        return await self.view(tid, player.id)

    def _list(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "finished": []}
        with self.m.db.session() as s:
            counts = dict(s.execute(select(TournamentPlayerRow.tournament_id, func.count())
                                    .group_by(TournamentPlayerRow.tournament_id)).all())
            for status, order in (("open", TournamentRow.starts_at.asc()), ("running", TournamentRow.starts_at.desc()),
                                  ("finished", TournamentRow.updated_at.desc())):
                for t in s.scalars(select(TournamentRow).where(TournamentRow.status == status)
                                   .order_by(order).limit(LISTED)):
                    out[status].append(self._brief(t, counts.get(t.id, 0)))
        return out

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        return await self.m.run_db(self._list)

    @staticmethod
    def _brief(t: TournamentRow, players: int) -> dict[str, Any]:
        try:
            title = get_game(t.game_id).title
        except KeyError:
            title = t.game_id
        return {"id": t.id, "name": t.name, "game": t.game_id, "title": title, "table_size": t.table_size,
                "format": t.format, "rounds": t.rounds, "round": t.round, "status": t.status,
                "starts_at": _iso(t.starts_at), "players": players, "max_players": t.max_players,
                "clock": t.clock}

    def _view(self, tid: str, viewer: str | None) -> dict[str, Any]:
        with self.m.db.session() as s:
            t = s.get(TournamentRow, tid)
            if t is None:
                raise Rejected("no_tournament", i18n.msg("There is no such tournament."), 404)
            players, played = self._played(s, tid)
            games = list(s.scalars(select(TournamentGameRow).where(TournamentGameRow.tournament_id == tid)
                                   .order_by(TournamentGameRow.round, TournamentGameRow.board)))
            table_ids = [g.table_id for g in games if g.table_id]
            status = dict(s.execute(select(TableRow.id, TableRow.status).where(TableRow.id.in_(table_ids))).all()) \
                if table_ids else {}
            host = s.get(PlayerRow, t.host_player)
            registered = list(s.execute(select(TournamentPlayerRow, PlayerRow.name)
                                        .outerjoin(PlayerRow, PlayerRow.id == TournamentPlayerRow.player_id)
                                        .where(TournamentPlayerRow.tournament_id == tid)
                                        .order_by(TournamentPlayerRow.at)).all())
        out = self._brief(t, len(players))
        name = {p: n for p, (n, _r) in players.items()}
        out.update(options=t.options, no_show=t.no_show, host=host.name if host else None,
                   registered=viewer is not None and viewer in players,
                   can_register=t.status == "open" and t.starts_at > utcnow()
                   and (t.max_players is None or len(players) < t.max_players),
                   entrants=[{"name": n or p.name, "rating": round(p.rating, 2)} for p, n in registered])
        rounds: dict[int, list[dict[str, Any]]] = {}
        for g in games:
            bye = len(g.players) == 1
            rounds.setdefault(g.round, []).append({
                "board": g.board + 1, "bye": bye, "table": None if bye else g.table_id,
                "players": [name.get(p, "?") for p in g.players], "places": g.places,
                "points": _points_of(g.places), "forfeit": g.forfeit or [],
                "status": "bye" if bye else "finished" if g.places is not None else status.get(g.table_id, "starting"),
                "mine": viewer is not None and viewer in g.players,
            })
        out["rounds_played"] = [{"round": r, "games": rounds[r]} for r in sorted(rounds)]
        table = pairing.standings(players, played)
        out["standings"] = [{"rank": i + 1, "name": r.name, "score": _num(r.score), "buchholz": _num(r.buchholz),
                             "sonneborn": _num(r.sonneborn), "rating": round(r.rating, 2), "games": r.games,
                             "byes": r.byes, "me": r.player == viewer}
                            for i, r in enumerate(table)] if t.status != "open" else []
        return out

    async def view(self, tid: Any, viewer: str | None) -> dict[str, Any]:
        check_id(tid)
        return await self.m.run_db(self._view, tid, viewer)


def pairing_rating(row: RatingRow) -> float:
    from .ratings import ordinal

    return ordinal(row.mu, row.sigma)


def limited(limiter: RateLimiter, key: str, what: str) -> None:
    bucket = limiter.bucket(key)
    if not bucket.take():
        wait = bucket.retry_after()
        raise Rejected("rate_limited", i18n.msg(what, wait=wait), 429, retry_after=wait)


def check_id(tid: Any) -> None:
    if not isinstance(tid, str) or not re.fullmatch(r"[0-9a-f]{1,16}", tid):
        raise Rejected("no_tournament", i18n.msg("There is no such tournament."), 404)


def clean_title(value: Any) -> str:
    if not isinstance(value, str):
        raise Rejected("bad_name", i18n.msg("'name' must be the tournament's name (text)."), 422)
    text = " ".join(value.split())
    if not 3 <= len(text) <= 60 or any(not ch.isprintable() for ch in text):
        raise Rejected("bad_name", i18n.msg("A tournament's name is 3 to 60 printable characters."), 422)
    return text


def start_time(at: Any, within: Any) -> dt.datetime:
    """The start time: ``starts_at`` (ISO 8601; no zone: UTC) or ``starts_in`` seconds from now."""
    now = utcnow()
    if (at is None) == (within is None):
        raise Rejected("bad_start", i18n.msg("Give the start as 'starts_at' (ISO 8601 date and time) or 'starts_in' "
                                        "(seconds from now), one of the two."), 422)
    if within is not None:
        if isinstance(within, bool) or not isinstance(within, (int, float)) or not 0 <= within <= MAX_AHEAD:
            raise Rejected("bad_start", i18n.msg("'starts_in' must be seconds from 0 to {most}.", most=MAX_AHEAD), 422)
        return now + dt.timedelta(seconds=float(within))
    if not isinstance(at, str) or len(at) > 40:
        raise Rejected("bad_start", i18n.msg("'starts_at' must be an ISO 8601 date and time."), 422)
    try:
        when = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        raise Rejected("bad_start", i18n.msg("'starts_at' is not an ISO 8601 date and time: {value}.", value=shown(at)), 422) from None
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if not now - dt.timedelta(minutes=5) <= when <= now + dt.timedelta(seconds=MAX_AHEAD):
        raise Rejected("bad_start", i18n.msg("'starts_at' must be from now to 90 days ahead."), 422)
    return max(when, now)
