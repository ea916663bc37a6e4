"""The lobby: open seats, waiting tables, joining, leaving, the host, "my games".

A table created with at least one ``"open"`` seat waits (status ``"waiting"``):
no actions, no bot moves.  It starts by itself when every open seat is taken,
or when its host starts it (the free seats then get bots).  ``"me"`` is the
creator's own seat, bound to their player (cookie).  The host is the
creator's player, or whoever holds the creator's seat token (the ``"me"`` seat,
else the first invite seat).  Private tables are never listed; anyone with the
table's address may still join its open seats (the address is the invite).

Seat tokens go only to the seat's holder: an open seat's token is given to
the player who joins it and is replaced when they leave or are removed.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import select, update

from gemtable.core import i18n
from .db import Conflict, KickedRow, PlayerRow, SeatRow, TableRow, bump, utcnow
from .hooks import TableHooks
from .limits import shown
from .table import SEED_NOTE, LiveTable, Rejected
from .tables import TableManager

log = logging.getLogger("gemtable.server")

MY_GAMES_LIMIT = 50  # finished tables listed in "my games" (running and waiting: all)


@dataclass
class LobbyRecord:
    """The lobby's part of a table: listed or not, who hosts it, who was removed from it."""

    private: bool = False
    host_seat: int | None = None  # the creator's seat (or the first invite seat)
    host_player: str | None = None  # the creator's player
    kicked: set[str] = field(default_factory=set)  # players the host removed (they cannot come back)


def lobby_of(table: LiveTable) -> LobbyRecord:
    return table.record(LobbyRecord)


def is_host(table: LiveTable, seat: int | None) -> bool:
    """The seat is the host's: the creator's seat, or a seat held by the host's player."""
    if seat is None:
        return False
    rec = lobby_of(table)
    if seat == rec.host_seat:
        return True
    return rec.host_player is not None and table.seats[seat].player == rec.host_player


def bot_levels() -> tuple[str, ...]:
    """The named bot levels, easiest first (``gemtable.bots.LEVELS``: a level added there is offered here)."""
    from gemtable.bots import LEVELS

    return tuple(LEVELS)


# -- creation ---------------------------------------------------------------------------
def prepare(seats: list[dict[str, Any]] | None, player: PlayerRow | None,
            private: bool) -> tuple[list[dict[str, Any]] | None, Callable[[LiveTable], None]]:
    """Turn the lobby's seat kinds into the table manager's ("human"/"bot") and a setup step."""
    opens: list[int] = []
    me: int | None = None
    out = None
    if seats is not None:
        out = []
        for i, spec in enumerate(seats):
            kind = spec.get("kind") if isinstance(spec, dict) else None
            if kind == "open":
                opens.append(i)
                out.append({"kind": "human", "name": None})
            elif kind == "me":
                if player is None:
                    raise Rejected("no_player", i18n.msg("Seat {seat} is 'me': pick a name first (the gt_player cookie).",
                                                                   seat=i + 1), 422)
                if me is not None:
                    raise Rejected("bad_seats", i18n.msg("Only one seat can be 'me' (use invite seats for hotseat play)."), 422)
                me = i
                out.append({"kind": "human", "name": player.name})
            else:
                out.append(spec)
    invites = [i for i, spec in enumerate(out or [{"kind": "human"}])
               if isinstance(spec, dict) and spec.get("kind", "human") == "human" and i not in opens]
    host_seat = me if me is not None else (invites[0] if invites else None)

    def setup(table: LiveTable) -> None:
        for i in opens:
            table.seats[i].open = True
        if me is not None:
            table.seats[me].player = player.id
        table.waiting = bool(opens)
        rec = lobby_of(table)
        rec.private = bool(private)
        rec.host_seat = host_seat
        rec.host_player = player.id if player is not None else None

    return out, setup


def free_seats(table: LiveTable) -> list[int]:
    return [s.seat for s in table.seats if s.open and s.player is None and s.kind == "human"]


def host_name(table: LiveTable) -> str | None:
    rec = lobby_of(table)
    if rec.host_seat is not None and 0 <= rec.host_seat < len(table.seats):
        return table.seats[rec.host_seat].name
    held = [s.name for s in table.seats if rec.host_player and s.player == rec.host_player]
    return held[0] if held else None


def summary_fields(table: LiveTable, out: dict[str, Any]) -> None:
    """The lobby's part of a table summary (never a player id or a token)."""
    out["private"] = lobby_of(table).private
    out["host"] = host_name(table)
    if table.waiting:
        out["open"] = bool(free_seats(table))
    for pub, seat in zip(out["seats"], table.seats):
        pub["open"] = table.waiting and seat.open and seat.player is None and seat.kind == "human"
        pub["player"] = seat.name if seat.player is not None else None
        pub.setdefault("away", False)


def row_summary(row: TableRow, seat_rows: list[SeatRow], moves: int | None = None) -> dict[str, Any]:
    """A summary of a table that is not in memory (a finished one), from its rows."""
    from gemtable.core.registry import get_game

    try:
        title = get_game(row.game_id).title
    except KeyError:
        title = row.game_id
    host = next((s.name for s in seat_rows if s.seat == row.host_seat), None)
    return {
        "id": row.id, "game": row.game_id, "title": title, "players": row.num_players,
        "options": row.options, "status": row.status, "open": False, "version": moves,
        "private": bool(row.private), "host": host,
        "seed_fixed": bool(row.seed_chosen), "seed_note": SEED_NOTE if row.seed_chosen else None,
        "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot, "connected": s.kind == "bot",
                   "joined": True, "open": False, "player": s.name if s.player_id else None, "away": False}
                  for s in seat_rows],
        "created_at": row.created_at.isoformat() + "Z" if row.created_at else None,
        "updated_at": row.updated_at.isoformat() + "Z" if row.updated_at else None,
        "winners": (row.result or {}).get("winners"),
    }


def row_fields(row: TableRow, out: dict[str, Any]) -> None:
    """The lobby's fields of a summary built from rows (a table not in memory)."""
    out["private"] = bool(row.private)
    out["host"] = next((s.name for s in row.seats if s.seat == row.host_seat), None)
    for pub, seat in zip(out["seats"], row.seats):
        pub.setdefault("open", False)
        pub.setdefault("player", seat.name if seat.player_id else None)
        pub.setdefault("away", False)


# -- changes ----------------------------------------------------------------------------
def _store(manager: TableManager, table_id: str, seats: dict[int, dict[str, Any]], status: str | None, now,
           expected: int = 0, kicked: str | None = None) -> None:
    """Write seat changes and the table's status in one transaction (a database thread).

    From revision ``expected`` of the table (``Conflict`` if another worker changed it first).
    """
    with manager.db.session() as s:
        values = {"updated_at": now}
        if status is not None:
            values["status"] = status
        bump(s, table_id, expected, **values)
        for seat, changes in seats.items():
            s.execute(update(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat == seat).values(**changes))
        if kicked is not None:
            s.merge(KickedRow(table_id=table_id, player_id=kicked))
        manager.bus.publish(s, table_id, "seats")
        s.commit()


async def _retry(manager: TableManager, table: LiveTable, change: Callable[[], Any]) -> Any:
    """A lobby change; if another worker changed the table first, catch up and decide again."""
    for _attempt in range(4):
        try:
            return await change()
        except Conflict:
            await manager.catch_up(table, {"reload"})
    raise Rejected("busy", i18n.msg("The table kept changing meanwhile: try again."), 409)


async def _apply(manager: TableManager, table: LiveTable, seats: dict[int, dict[str, Any]],
                 start: bool, kicked: str | None = None) -> None:
    """Store, then change the live table (a failed store changes nothing); call under table.lock."""
    now = utcnow()
    await manager.run_db(_store, manager, table.id, seats, "running" if start else None, now, table.rev, kicked)
    table.rev += 1
    if kicked is not None:
        lobby_of(table).kicked.add(kicked)
    for i, values in seats.items():
        seat = table.seats[i]
        seat.player = values.get("player_id", seat.player)
        seat.name = values.get("name", seat.name)
        seat.token = values.get("token", seat.token)
        seat.kind = values.get("kind", seat.kind)
        seat.bot = values.get("bot", seat.bot)
        if "joined" in values:
            seat.joined = values["joined"]
    table.updated_at = now
    if start:
        table.waiting = False
        table.match.meta["names"] = table.names


def _freed(table: LiveTable, i: int) -> dict[str, Any]:
    """A seat given back to the lobby: no player, a new token (the old holder's stops working)."""
    return {"player_id": None, "name": f"Player {i + 1}", "token": secrets.token_urlsafe(18), "joined": False}


def _seat_number(value: Any, table: LiveTable) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < table.num_players:
        raise Rejected("bad_seat", i18n.msg("'seat' must be a seat number from 0 to {last}, not {value}.",
                                            last=table.num_players - 1, value=shown(value)), 422)
    return value


def _must_wait(table: LiveTable) -> None:
    if table.over or not table.waiting:
        raise Rejected("started", i18n.msg("The game has started: seats can no longer change."), 409)


def _after(manager: TableManager, table: LiveTable, started: bool, event: str | None = None,
           name: str | None = None) -> None:
    """Tell the table's subscribers: a system line for the seat change (stored and sent in the
    background) and, when the game starts, its clocks start (inplay.py)."""
    manager.hooks.seats_changed(table, event, name, started)  # a system line, the clocks start
    manager.broadcast(table)
    if started:
        manager.wake_bots(table)


async def bind_seat(manager: TableManager, table: LiveTable, seat: int, player_id: str | None) -> None:
    """An invite seat opened (with its token) by a browser that has a player: bind it to the player.

    Only a seat nobody holds yet, and never an open seat (those are bound by joining).
    A database failure leaves the seat unbound (bound again at the next connection).
    """
    target = table.seats[seat]
    if player_id is None or target.player is not None or target.open or target.kind != "human":
        return

    def store() -> None:
        with manager.db.session() as s:
            s.execute(update(SeatRow).where(SeatRow.table_id == table.id, SeatRow.seat == seat,
                                            SeatRow.player_id.is_(None)).values(player_id=player_id))
            manager.bus.publish(s, table.id, "seats")
            s.commit()

    def exists() -> bool:
        with manager.db.session() as s:
            return s.get(PlayerRow, player_id) is not None

    async with table.lock:  # not while another worker's change is being read in (catch_up)
        target = table.seats[seat]
        if target.player is not None:
            return
        try:
            if not await manager.run_db(exists):
                return
            await manager.run_db(store)
        except Rejected:
            return
        target.player = player_id


async def join(manager: TableManager, table: LiveTable, player: PlayerRow, seat: Any) -> int:
    return await _retry(manager, table, lambda: _join(manager, table, player, seat))


async def _join(manager: TableManager, table: LiveTable, player: PlayerRow, seat: Any) -> int:
    async with table.lock:
        mine = [s.seat for s in table.seats if s.player == player.id]
        if mine:
            return mine[0]  # already seated here (a second click): the same seat
        _must_wait(table)
        if player.id in lobby_of(table).kicked:
            raise Rejected("kicked", i18n.msg("The host removed you from this table."), 403)
        free = free_seats(table)
        if seat is None:
            if not free:
                raise Rejected("full", i18n.msg("Every seat of this table is taken."), 409)
            chosen = free[0]
        else:
            chosen = _seat_number(seat, table)
            if chosen not in free:
                raise Rejected("seat_taken", i18n.msg("Seat {seat} is not free to join.", seat=chosen), 409)
        start = len(free) == 1
        await _apply(manager, table, {chosen: {"player_id": player.id, "name": player.name}}, start)
    _after(manager, table, start, "join", player.name)
    return chosen


async def leave(manager: TableManager, table: LiveTable, player: PlayerRow) -> None:
    await _retry(manager, table, lambda: _leave(manager, table, player))


async def _leave(manager: TableManager, table: LiveTable, player: PlayerRow) -> None:
    async with table.lock:
        _must_wait(table)
        mine = [s for s in table.seats if s.player == player.id]
        if not mine:
            raise Rejected("no_seat", i18n.msg("You hold no seat at this table."), 404)
        seat = mine[0]
        if not seat.open:
            raise Rejected("host_seat", i18n.msg("The host's seat cannot be left: start the game, or let the "
                                            "table expire."), 409)
        name = seat.name
        await _apply(manager, table, {seat.seat: _freed(table, seat.seat)}, False)
    _after(manager, table, False, "leave", name)


async def kick(manager: TableManager, table: LiveTable, seat: Any) -> None:
    try:
        await _retry(manager, table, lambda: _kick(manager, table, seat))
    except Rejected as exc:
        if exc.code != "bad_seat" or exc.status != 409:
            raise
        # the player may have taken the seat at another worker a moment ago, before its notice
        # reached this one: read the table again and decide once more
        await manager.catch_up(table, {"reload"})
        await _retry(manager, table, lambda: _kick(manager, table, seat))


async def _kick(manager: TableManager, table: LiveTable, seat: Any) -> None:
    async with table.lock:
        _must_wait(table)
        i = _seat_number(seat, table)
        target = table.seats[i]
        if not target.open or target.player is None:
            raise Rejected("bad_seat", i18n.msg("Seat {seat} holds no player who joined from the lobby.", seat=i), 409)
        if target.player == lobby_of(table).host_player:
            raise Rejected("bad_seat", i18n.msg("The host cannot remove themselves."), 409)
        gone, name = target.player, target.name
        await _apply(manager, table, {i: _freed(table, i)}, False, kicked=gone)  # kept in the database
    _after(manager, table, False, "kick", name)


async def start(manager: TableManager, table: LiveTable, level: Any) -> None:
    levels = bot_levels()
    if level is None:
        level = levels[0]
    if not isinstance(level, str) or level not in levels:
        raise Rejected("bad_bot", i18n.msg("'bots' must be one of {levels}, not {level}.",
                                            levels=", ".join(levels), level=shown(level)), 422)
    await _retry(manager, table, lambda: _start(manager, table, level))


async def _start(manager: TableManager, table: LiveTable, level: str) -> None:
    async with table.lock:
        _must_wait(table)
        changes = {i: {"kind": "bot", "bot": level, "name": f"Bot {i + 1} ({level})"} for i in free_seats(table)}
        await _apply(manager, table, changes, True)
    _after(manager, table, True, "start", None)


async def games_of(manager: TableManager, player_id: str, finished_limit: int = MY_GAMES_LIMIT,
                   only_finished: bool = False) -> dict[str, list[dict[str, Any]]]:
    """The tables where a player holds a seat, grouped by status (newest first)."""
    from sqlalchemy import func

    from .db import ActionRow

    def load():
        with manager.db.session() as s:
            query = (select(TableRow, SeatRow.seat).join(SeatRow, SeatRow.table_id == TableRow.id)
                     .where(SeatRow.player_id == player_id))
            if only_finished:
                query = query.where(TableRow.status == "finished")
            rows = s.execute(query.order_by(TableRow.updated_at.desc()).limit(500)).all()
            seen, picked = set(), []
            finished = 0
            for row, seat in rows:
                if row.id in seen:
                    continue
                if row.status == "finished":
                    if finished >= finished_limit:
                        continue
                    finished += 1
                seen.add(row.id)
                picked.append((row, seat))
            ids = [r.id for r, _ in picked]
            seat_rows = {}
            if ids:
                for sr in s.scalars(select(SeatRow).where(SeatRow.table_id.in_(ids)).order_by(SeatRow.seat)):
                    seat_rows.setdefault(sr.table_id, []).append(sr)
            counts = dict(s.execute(select(ActionRow.table_id, func.count()).where(ActionRow.table_id.in_(ids))
                                    .group_by(ActionRow.table_id)).all()) if ids else {}
            return [(r, seat, seat_rows.get(r.id, []), counts.get(r.id, 0)) for r, seat in picked]

    out: dict[str, list[dict[str, Any]]] = {"waiting": [], "running": [], "finished": []}
    for row, seat, seat_rows, moves in await manager.run_db(load):
        live = manager.tables.get(row.id)
        item = live.summary() if live is not None else row_summary(row, seat_rows, moves)
        item["my_seat"] = seat
        status = item["status"] if item["status"] in out else "running"
        if status == "finished":
            item["result"] = row.result
        out[status].append(item)
    return out


class LobbyHooks(TableHooks):
    """The lobby plugged into the table core (hooks.py)."""

    def store_new(self, session: Any, table: LiveTable) -> None:
        rec = lobby_of(table)
        row = session.get(TableRow, table.id)
        row.private, row.host_seat, row.host_player = rec.private, rec.host_seat, rec.host_player

    def read_rows(self, session: Any, table_id: str) -> dict[str, Any]:
        return {"kicked": set(session.scalars(select(KickedRow.player_id).where(KickedRow.table_id == table_id)))}

    def restored(self, table: LiveTable, row: Any, seat_rows: list[Any], extra: dict[str, Any]) -> None:
        rec = lobby_of(table)
        rec.private = bool(row.private)
        rec.host_seat = row.host_seat
        rec.host_player = row.host_player
        rec.kicked = set(extra.get("kicked", ()))

    def summary(self, table: LiveTable, out: dict[str, Any]) -> None:
        summary_fields(table, out)

    def row_summary(self, row: Any, out: dict[str, Any]) -> None:
        row_fields(row, out)  # private, host, per seat open/player/away

    def payload(self, table: LiveTable, msg: dict[str, Any], viewer: int | None, reset: bool) -> None:
        msg["is_host"] = is_host(table, viewer)

    def carry_over(self, old: LiveTable, new: LiveTable, order: list[int]) -> None:
        """A rematch: the same players (in the seats ``order`` gives them), the same host and privacy."""
        for j, twin in enumerate(new.seats):
            if old.seats[order[j]].player is not None:
                twin.player = old.seats[order[j]].player
        before, after = lobby_of(old), lobby_of(new)
        after.host_seat = order.index(before.host_seat) if before.host_seat in order else before.host_seat
        after.host_player, after.private = before.host_player, before.private
