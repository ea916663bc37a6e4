"""The clocks of in-table play: the time controls' bookkeeping per table and the loop that
drives them (timeouts hand a seat to a stand-in bot; a heartbeat marks how long the server,
and each table's driver, was alive, so that downtime is charged to nobody).

``Clockwork`` is the clock-driving half of ``InPlay`` (inplay.py), which mixes it in: it
uses the host's ``m`` (the table manager), ``settings``, ``now``, ``play``, ``_write``,
``_push_lines`` and ``_background``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from . import chat as chatmod
from .clocks import PlayState
from .db import Conflict, HeartbeatRow, PlayRow
from .table import LiveTable, Rejected

if TYPE_CHECKING:  # pragma: no cover
    from .tables import TableManager

log = logging.getLogger("gemtable.server")

AWAY_BOT = "medium"  # the bot that plays a seat for its player (out of time, or away)
SYSTEM_NAME = "Table"  # the name of the table's own chat lines


@dataclass
class PlaySettings:
    chat_rate: float = 1.0  # chat lines per second, per seat (or spectator address) and table
    chat_burst: int = 5
    tick: float = 1.0  # seconds between timeout checks
    heartbeat: float = 2.0  # seconds between heartbeats while a clock runs
    away_after: float = 60.0  # real time: disconnected this long while to move -> a bot plays
    grace: float = 30.0  # real time: seconds a seat taken back gets (once) if it has less
    rematch_wait: float = 120.0  # seconds a rematch proposal waits for the others' answers


def retrying(method):
    """An in-play change of a table: if another worker changed the table first (``Conflict``),
    catch the cached copy up from the database and decide again."""

    @functools.wraps(method)
    async def wrapper(self, table, *args, **kwargs):
        for _attempt in range(4):
            try:
                return await method(self, table, *args, **kwargs)
            except Conflict:
                await self.m.catch_up(table, {"reload"})
        raise rejected("busy", "The table kept changing meanwhile: try again.", 409)

    return wrapper


def rejected(code: str, message: str, status: int = 409) -> Rejected:
    return Rejected(code, message, status)


@dataclass
class InPlayRecord:
    """In-table play's part of a table: its clocks and flags, and the recent chat lines."""

    play: PlayState | None = None
    chat: Any = None  # (chat.recent(): the last lines, sent with a full state)
    # the clocks an action being committed leads to, and its seat (read by the result hook,
    # which runs before the commit installs them)
    pending: PlayState | None = None
    pending_actor: int | None = None


def rec(table: LiveTable) -> InPlayRecord:
    return table.record(InPlayRecord)


def save_play(session: Session, table_id: str, play: PlayState) -> None:
    """Store a table's play row (an ORM session; with an action, storage.py writes it)."""
    row = session.get(PlayRow, table_id)
    if row is None:
        session.add(PlayRow(table_id=table_id, data=play.to_json(), rematch=play.rematch))
    else:
        row.data = play.to_json()
        row.rematch = play.rematch


def clocked(table: LiveTable, state: Any) -> set[int]:
    """The seats to move whose clocks run: people's seats (a bot's seat has no clock)."""
    return {p for p in state.to_move() if table.seats[p].kind != "bot"}


def active(table: LiveTable) -> bool:
    return not table.over and not table.waiting


class Clockwork:
    """Timeouts, stand-ins and heartbeats of every timed table this worker drives."""

    m: TableManager
    settings: PlaySettings
    last_alive: int | None
    _alive_read: bool
    _last_beat: int
    _task: asyncio.Task | None

    async def _read_alive(self) -> None:
        if not self._alive_read:
            self._alive_read = True
            self.last_alive = await self.m.run_db(self._load_heartbeat)

    def _load_heartbeat(self) -> int | None:
        with self.m.db.session() as s:
            row = s.get(HeartbeatRow, 1)
            return row.at_ms if row is not None else None

    async def take_over(self, table: LiveTable) -> None:
        """Several workers: this one now drives the table's clocks (bus.py).  Running clocks are
        charged up to the last heartbeat of any worker, then restart: time nobody drove the
        table (all workers down, or the seconds of a handover) is not charged."""
        if not self.m.bus.shared:
            return
        await self._take_over(table)
        if rec(table).play is not None and rec(table).play.timed:
            self._background(table, self.check(table), "clock check after a takeover")

    def _load_alive(self, table_id: str) -> int | None:
        """When the last worker driving ``table_id`` was last known alive (its heartbeat)."""
        with self.m.db.session() as s:
            return s.scalar(select(PlayRow.alive_ms).where(PlayRow.table_id == table_id))

    @retrying
    async def _take_over(self, table: LiveTable) -> None:
        async with table.lock:
            play = self.play(table)
            if not play.running:
                return
            # none yet: the driver died within a heartbeat of starting the clocks (charged nothing)
            last = await self.m.run_db(self._load_alive, table.id)
            now = self.now()
            new = play.copy()
            if new.resume(now, last, now):
                await self._write(table, new, [])
                rec(table).play = new

    # -- clocks -----------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        try:
            await self._read_alive()
        except Exception:
            log.exception("could not read the last heartbeat")
        while not self.m.closing:
            await asyncio.sleep(self.settings.tick)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock check failed")

    async def tick(self) -> list[tuple[str, int, str]]:
        """Check every live table's clocks: hand seats out of time (or away) to a bot; heartbeat."""
        handed: list[tuple[str, int, str]] = []
        for table in list(self.m.tables.values()):
            if rec(table).play is None or not rec(table).play.timed or not self.m.bus.owns(table.id) \
                    or self.m.bus.arriving(table.id):
                continue  # no clock, another worker drives this table, or its takeover is under way
            try:
                handed += [(table.id, p, why) for p, why in await self.check(table)]
            except Rejected as exc:
                log.warning("clock check of table %s not stored (%s)", table.id, exc.code)
        now = self.now()
        if self._driven() and now - self._last_beat >= self.settings.heartbeat * 1000:
            await self.beat(now)
        return handed

    def _driven(self) -> list[str]:
        """The tables whose running clocks this worker drives (their takeover done)."""
        return [t.id for t in list(self.m.tables.values())
                if rec(t).play is not None and rec(t).play.running and self.m.bus.owns(t.id) and not self.m.bus.arriving(t.id)]

    async def beat(self, now: int | None = None) -> None:
        """The heartbeat: this server is alive at ``now``, and so is the driver of every table whose
        clocks it runs.  After a restart (one process) running clocks are charged up to the
        server's heartbeat; a worker taking a table over (several workers) charges them up to that
        table's own heartbeat, written only by the worker that drove it, so a takeover never
        charges the time between the old driver's death and the takeover, however long it took
        and whichever other workers were alive meanwhile."""
        now = self.now() if now is None else now
        driven = self._driven()

        def store() -> None:
            from sqlalchemy.exc import IntegrityError

            for _attempt in range(2):  # two workers writing the first heartbeat at once: update then
                with self.m.db.session() as s:
                    try:
                        s.merge(HeartbeatRow(id=1, at_ms=now))
                        if driven:
                            s.execute(update(PlayRow).where(PlayRow.table_id.in_(driven)).values(alive_ms=now))
                        s.commit()
                        return
                    except IntegrityError:
                        s.rollback()

        await self.m.run_db(store)
        self._last_beat = now

    @retrying
    async def check(self, table: LiveTable) -> list[tuple[int, str]]:
        async with table.lock:
            play = self.play(table)
            now = self.now()
            new = play.copy()
            running = active(table)
            changed = new.sync(clocked(table, table.state), running, now)
            away_ms = int(self.settings.away_after * 1000)
            # a seat that never opened the table (an invite not yet used) only has its clock against it
            present = table.connected_seats() | {s.seat for s in table.seats if not s.joined}
            due = new.due(now, present, away_ms) if running else []
            if not due and not changed:
                return []
            lines = []
            for p, why in due:
                new.go_away(p, now)
                name = table.seats[p].name
                lines.append((p, chatmod.ran_out(name, AWAY_BOT) if why == "time"
                              else chatmod.disconnected(name, AWAY_BOT)))
            stored = await self._write(table, new, lines)
            new.gone_since = play.gone_since
            rec(table).play = new
        self._push_lines(table, stored)
        self.m.broadcast(table)
        if due:
            self.m.wake_bots(table)
        return due

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        if any(rec(t).play is not None and rec(t).play.running for t in self.m.tables.values()):
            try:
                await self.beat()  # a clean stop: clocks are charged up to now, not further
            except Exception:
                log.warning("last heartbeat not stored")
