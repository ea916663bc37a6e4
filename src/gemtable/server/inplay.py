"""In-table play (issue 15): clocks and away seats, chat, undo and rematch.

One ``InPlay`` per table manager (``manager.inplay``) ties ``clocks`` and
``chat`` to the live tables.  The table manager calls it at a few points
(creating and loading a table, committing an action, a bot's move, the
payloads); the WebSocket handler hands it the messages ``chat``, ``undo``,
``take_seat`` and ``mute_spectators``.

Time is epoch milliseconds from ``InPlay.clock`` (tests replace it and call
``tick`` themselves).  Decisions, also in docs/websocket.md and PLAY.md:

- A seat out of time (or, with a real-time clock, disconnected for
  ``away_after`` seconds while to move) is played by a bot ("medium") until its
  player sends ``take_seat``; the result lists it under ``replaced``.  Taking
  the seat back is never automatic: a reconnecting player sees that a bot plays
  for them and chooses to take over.  With a real-time clock a seat taken back
  with less than ``grace`` seconds left gets ``grace`` seconds, once per game;
  a seat whose clock ran out again stays with the bot.
- Time the server was down is not charged: running clocks are charged up to
  the last heartbeat (written every ``heartbeat`` seconds while a clock runs)
  and restart when the table is loaded again.  With several workers each
  table has its own heartbeat, written by the worker driving its clocks, so a
  worker taking a table over charges it up to its old driver's last sign of
  life, never up to another worker's.
- Undo removes the seat's last action if it drew and revealed nothing and the
  seat is still to move (its turn is not over); at tables where only one
  person plays (one human seat, or every human seat held by the same player)
  it removes the seat's whole last turn, through bots' moves.  Time spent is
  not given back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from gemtable.core import Match
from gemtable.core.undo import undo_span

from . import chat as chatmod
from .clocks import ClockError, PlayState, parse_clock
from .db import ActionRow, Conflict, HeartbeatRow, PlayRow, TableRow, bump, utcnow
from .limits import RateLimiter

if TYPE_CHECKING:  # pragma: no cover
    from .tables import LiveTable, Subscriber, TableManager

log = logging.getLogger("gemtable.server")

AWAY_BOT = "medium"
SYSTEM_NAME = "Table"
MESSAGES = ("chat", "undo", "take_seat", "mute_spectators")


@dataclass
class PlaySettings:
    chat_rate: float = 1.0  # chat lines per second, per seat (or spectator address) and table
    chat_burst: int = 5
    tick: float = 1.0  # seconds between timeout checks
    heartbeat: float = 2.0  # seconds between heartbeats while a clock runs
    away_after: float = 60.0  # real time: disconnected this long while to move -> a bot plays
    grace: float = 30.0  # real time: seconds a seat taken back gets (once) if it has less


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
        raise _rejected("busy", "The table kept changing meanwhile: try again.", 409)

    return wrapper


def is_checkpoint(state: Any, seat: int, action: Any) -> bool:
    """The kernel's answer (asked before applying); True when the game cannot answer."""
    try:
        return bool(state.is_checkpoint(seat, action))
    except Exception:
        log.exception("is_checkpoint failed for %s; treating the action as a checkpoint", action)
        return True


def _rejected(code: str, message: str, status: int = 409):
    from .tables import Rejected

    return Rejected(code, message, status)


def save_play(session, table_id: str, play: PlayState) -> None:
    """Store a table's play row: ``session`` is an ORM session or a Core connection (hot path)."""
    if not isinstance(session, Session):
        t = PlayRow.__table__
        values = {"data": play.to_json(), "rematch": play.rematch}
        if session.execute(update(t).where(t.c.table_id == table_id).values(**values)).rowcount != 1:
            session.execute(t.insert().values(table_id=table_id, **values))
        return
    row = session.get(PlayRow, table_id)
    if row is None:
        session.add(PlayRow(table_id=table_id, data=play.to_json(), rematch=play.rematch))
    else:
        row.data = play.to_json()
        row.rematch = play.rematch


def clocked(table: LiveTable, state: Any) -> set[int]:
    """The seats to move whose clocks run: people's seats (a bot's seat has no clock)."""
    return {p for p in state.to_move() if table.seats[p].kind != "bot"}


def _active(table: LiveTable) -> bool:
    return not table.over and not getattr(table, "waiting", False)


def is_host(table: LiveTable, seat: int | None) -> bool:
    """The seat is the host's: the creator's seat, or a seat held by the host's player."""
    if seat is None:
        return False
    if seat == getattr(table, "host_seat", None):
        return True
    host_player = getattr(table, "host_player", None)
    return host_player is not None and getattr(table.seats[seat], "player", None) == host_player


def whole_turns(table: LiveTable) -> bool:
    """One person plays every human seat (or there is one human seat): undo whole turns."""
    humans = [s for s in table.seats if s.kind == "human"]
    if len(humans) <= 1:
        return True
    players = {getattr(s, "player", None) for s in humans}
    return len(players) == 1 and None not in players


NOT_YOURS = "The last move is not yours: you can take back only your own moves, before anyone else moves."
CHECKPOINT = ("Your last move drew or revealed something (a card, a tile, a refill or a hidden piece), "
              "so it cannot be taken back.")


class _History(Sequence):
    """``(seat, checkpoint)`` of every accepted action, read from the table's lists without
    copying them (``undo_span`` looks only at the last few; this is asked for every message)."""

    __slots__ = ("actions", "checkpoints")

    def __init__(self, actions: list[tuple[int, Any]], checkpoints: list[bool]) -> None:
        self.actions = actions
        self.checkpoints = checkpoints

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, i: int) -> tuple[int, bool]:  # type: ignore[override]
        return self.actions[i][0], self.checkpoints[i]


def undo_check(table: LiveTable, seat: int | None) -> tuple[int, tuple[str, str, int] | None]:
    """(actions to remove, None) or (0, (code, reason, status)) for ``seat`` asking to undo."""
    if seat is None:
        return 0, ("spectator", "Spectators cannot take back moves.", 403)
    if table.over:
        return 0, ("over", "The game is over: no move can be taken back.", 409)
    if getattr(table, "waiting", False):
        return 0, ("waiting", "The game has not started: there is no move to take back.", 409)
    play = table.play
    if play is not None and seat in play.away:
        return 0, ("away", "A bot plays your seat now: take your seat back first.", 409)
    if len(table.checkpoints) != len(table.match.actions):
        return 0, ("checkpoint", "No move can be taken back here.", 409)
    history = _History(table.match.actions, table.checkpoints)
    whole = whole_turns(table)
    n = undo_span(history, seat, whole_turns=whole)
    if n > 0:
        if not whole and seat not in table.state.to_move():
            return 0, ("turn_over", "Your turn is over: moves can be taken back only within your turn.", 409)
        return (n if whole else 1), None
    if not history:
        return 0, ("nothing", "No move has been made yet: there is nothing to take back.", 409)
    if history[-1][0] != seat:
        return 0, ("not_yours", NOT_YOURS, 409)
    return 0, ("checkpoint", CHECKPOINT, 409)


# -- payload decorations (called by LiveTable.summary / payload) ------------------------------
def decorate_summary(table: LiveTable, out: dict[str, Any]) -> None:
    play = table.play
    if play is None:
        return
    for s in out.get("seats", ()):
        s["away"] = s.get("seat") in play.away
    out["clock"] = play.public(_now_of(table))
    out["mute_spectators"] = play.mute
    out["rematch"] = play.rematch


def decorate_payload(table: LiveTable, msg: dict[str, Any], viewer: int | None, reset: bool) -> None:
    play = table.play
    if play is not None:
        msg["clock"] = msg["table"].get("clock") or play.public(_now_of(table))
        if msg.get("result") is not None:
            InPlay.result_extras(table, msg["result"])
    msg["can_undo"] = viewer is not None and undo_check(table, viewer)[1] is None
    if reset:
        msg["chat"] = list(table.chat or ())


_clock_of: weakref.WeakKeyDictionary[Any, Callable[[], int]] = weakref.WeakKeyDictionary()


def _now_of(table: LiveTable) -> int:
    hub = _clock_of.get(table)
    return hub() if hub is not None else int(time.time() * 1000)


class InPlay:
    def __init__(self, manager: TableManager, settings: PlaySettings | None = None) -> None:
        self.m = manager
        self.settings = settings or PlaySettings()
        self.clock: Callable[[], float] = lambda: time.time() * 1000
        self.chat_limiter = RateLimiter(self.settings.chat_rate, self.settings.chat_burst)
        self.process_start = self.now()
        self.last_alive: int | None = None
        self._alive_read = False
        self._last_beat = 0
        self._task: asyncio.Task | None = None
        self._locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._pending: set[asyncio.Task] = set()

    def now(self) -> int:
        return int(self.clock())

    def _lock(self, table: LiveTable) -> asyncio.Lock:
        lock = self._locks.get(table)
        if lock is None:
            lock = self._locks[table] = asyncio.Lock()
        return lock

    def play(self, table: LiveTable) -> PlayState:
        if table.play is None:  # a table made without a time control: none
            table.play = PlayState.new({"mode": "none"}, table.num_players)
        _clock_of[table] = self.now
        if table.chat is None:
            table.chat = chatmod.recent()
        return table.play

    # -- creating and loading -----------------------------------------------------------
    @staticmethod
    def parse_clock(raw: Any) -> dict[str, Any]:
        try:
            return parse_clock(raw)
        except ClockError as exc:
            raise _rejected("bad_clock", str(exc), 422) from None

    def init_table(self, table: LiveTable, config: dict[str, Any]) -> None:
        """A new table: its time control (clocks start when the game does)."""
        play = PlayState.new(config, table.num_players)
        now = self.now()
        play.gone_since = {p: now for p in range(table.num_players)}
        table.play = play
        self.play(table)
        play.sync(clocked(table, table.state), _active(table), now)

    def store_new(self, session, table: LiveTable) -> None:
        """In the creating transaction: the table's time control."""
        save_play(session, table.id, self.play(table))

    async def _read_alive(self) -> None:
        if not self._alive_read:
            self._alive_read = True
            self.last_alive = await self.m.run_db(self._load_heartbeat)

    def _load_heartbeat(self) -> int | None:
        with self.m.db.session() as s:
            row = s.get(HeartbeatRow, 1)
            return row.at_ms if row is not None else None

    def _load_rows(self, table_id: str) -> tuple[dict | None, str | None, list[dict[str, Any]]]:
        with self.m.db.session() as s:
            row = s.get(PlayRow, table_id)
            data, rematch = (row.data, row.rematch) if row is not None else (None, None)
        return data, rematch, chatmod.load_recent(self.m.db, table_id)

    async def load_extras(self, table: LiveTable) -> None:
        """A table rebuilt from the database: its clocks (downtime not charged) and recent chat."""
        await self._read_alive()
        data, rematch, lines = await self.m.run_db(self._load_rows, table.id)
        play = PlayState.from_json(data, table.num_players, rematch)
        now = self.now()
        play.gone_since = {p: now for p in range(table.num_players)}
        # several workers: a table read into one more worker's cache keeps its clocks as stored
        # (the worker driving it charges them); the one process resumes them after a restart
        changed = False if self.m.bus.shared else play.resume(now, self.last_alive, self.process_start)
        for p, started in play.running.items():
            play.turn_since.setdefault(p, started)
        table.play = play
        table.chat = chatmod.recent()
        table.chat.extend(lines)
        self.play(table)
        if changed:
            await self._write(table, play, [])

    async def take_over(self, table: LiveTable) -> None:
        """Several workers: this one now drives the table's clocks (bus.py).  Running clocks are
        charged up to the last heartbeat of any worker, then restart: time nobody drove the
        table (all workers down, or the seconds of a handover) is not charged."""
        if not self.m.bus.shared:
            return
        await self._take_over(table)
        if table.play is not None and table.play.timed:
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
                table.play = new

    def install_play(self, table: LiveTable, data: dict[str, Any] | None, rematch: str | None,
                     bump: bool = False) -> str | None:
        """Another worker changed the clocks or flags: take the stored ones.  The new rematch id, if any."""
        old = self.play(table)
        if data is None:
            return None
        new = PlayState.from_json(data, table.num_players, rematch)
        new.gone_since = old.gone_since
        new.turn_since = {p: old.turn_since.get(p, t) for p, t in new.running.items()}
        # a bot's pending move must not be played if its seat was taken back or moves were undone
        new.epoch = old.epoch + (1 if bump or new.away != old.away else 0)
        table.play = new
        return rematch if rematch and rematch != old.rematch else None

    async def announce_rematch(self, table: LiveTable, new_id: str) -> None:
        """Tell this worker's subscribers of a rematch started at another worker (with their tokens)."""
        try:
            new = await self.m.get(new_id)
        except Exception:
            return
        self._send_rematch(table, new)

    def _send_rematch(self, table: LiveTable, new: LiveTable) -> None:
        for sub in list(table.subscribers):
            msg: dict[str, Any] = {"type": "rematch", "table": new.id}
            if sub.seat is not None and new.seats[sub.seat].kind == "human":
                msg["token"] = new.seats[sub.seat].token
            if not sub.push(msg):
                table.subscribers.discard(sub)

    # -- actions ----------------------------------------------------------------------------
    def before_commit(self, table: LiveTable, actor: int, after: Any) -> tuple[PlayState | None, Any]:
        """The clocks after an action (not installed yet) and a writer for the commit's transaction."""
        play = self.play(table)
        if not play.timed:
            return None, None
        new = play.copy()
        active = not after.is_over() and not getattr(table, "waiting", False)
        new.after_action(actor, clocked(table, after), active, self.now(), before=clocked(table, table.state))
        table_id = table.id
        return new, lambda session: save_play(session, table_id, new)

    @staticmethod
    def after_commit(table: LiveTable, new: PlayState | None) -> None:
        if new is not None:
            new.gone_since = table.play.gone_since
            table.play = new

    @staticmethod
    def result_extras(table: LiveTable, result: dict[str, Any] | None) -> dict[str, Any] | None:
        if result is not None and table.play is not None:
            if table.play.replaced:
                result["replaced"] = sorted(table.play.replaced)
            if table.play.took_back:
                result["took_back"] = sorted(table.play.took_back)
        return result

    def bot_plays(self, table: LiveTable, seat: int) -> bool:
        return table.seats[seat].kind == "bot" or seat in self.play(table).away

    def bot_epoch(self, table: LiveTable) -> int:
        return self.play(table).epoch

    def bot_may_move(self, table: LiveTable, seat: int, epoch: int) -> bool:
        return epoch == self.play(table).epoch and self.bot_plays(table, seat)

    def disconnected(self, table: LiveTable, sub: Subscriber) -> None:
        if sub.seat is not None and sub.seat not in table.connected_seats():
            self.play(table).gone_since[sub.seat] = self.now()

    # -- storing ----------------------------------------------------------------------------
    def _store(self, table_id: str, expected: int, play: PlayState, lines: list[tuple[int | None, str]],
               extra: Callable[[Any], None] | None = None, kind: str = "play") -> list[dict[str, Any]]:
        """Store ``play`` and system lines in one transaction; the lines as sent to clients.

        The table moves from revision ``expected`` to the next (``Conflict`` if another worker
        changed it first); other workers hear ``kind`` on commit.
        """
        at = utcnow()
        with self.m.db.session() as s:
            bump(s, table_id, expected)
            if extra is not None:
                extra(s)
            save_play(s, table_id, play)
            rows = [chatmod.add_line(s, table_id, None, SYSTEM_NAME, text, True, at) for _seat, text in lines]
            self.m.bus.publish(s, table_id, kind)
            s.commit()
            return [chatmod.line_json(r) for r in rows]

    async def _write(self, table: LiveTable, play: PlayState, lines: list[tuple[int | None, str]],
                     extra: Callable[[Any], None] | None = None, kind: str = "play") -> list[dict[str, Any]]:
        """``_store`` from the table's cached revision (call under ``table.lock``)."""
        stored = await self.m.run_db(self._store, table.id, table.rev, play, lines, extra, kind)
        table.rev += 1
        return stored

    def _push_lines(self, table: LiveTable, lines: list[dict[str, Any]]) -> None:
        from .tables import encode_message

        self.play(table)
        for line in lines:
            table.chat.append(line)
            msg = encode_message({"type": "chat", "line": line})  # once for every subscriber
            for sub in list(table.subscribers):
                if not sub.push(msg):
                    table.subscribers.discard(sub)

    async def system_line(self, table: LiveTable, text: str) -> dict[str, Any]:
        """A system line (public facts only), stored then sent: for joins, leaves and the like."""
        line = await self.m.run_db(chatmod.store_line, self.m.db, table.id, None, SYSTEM_NAME, text, True, utcnow(),
                                self.m.bus.publish)
        self._push_lines(table, [line])
        return line

    def _background(self, table: LiveTable, coro: Any, what: str) -> None:
        task = asyncio.ensure_future(coro)
        self._pending.add(task)

        def done(t: asyncio.Task) -> None:
            self._pending.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("%s at table %s failed: %r", what, table.id, t.exception())

        task.add_done_callback(done)

    def lobby_event(self, table: LiveTable, event: str, name: str | None) -> None:
        """A seat changed before the start (join, leave, kick, start): a system line, stored then sent."""
        text = chatmod.lobby_line(event, name)
        if text is not None:
            self._background(table, self.system_line(table, text), "lobby line")

    def table_started(self, table: LiveTable) -> None:
        """A waiting table started: its clocks start now, not at the next periodic check."""
        if table.play is not None and table.play.timed and self.m.bus.owns(table.id):
            self._background(table, self.check(table), "starting the clocks")
        self.m.bus.wake()  # several workers: the table's lease is taken at once, not at the next sweep

    # -- WebSocket messages -------------------------------------------------------------
    async def handle(self, table: LiveTable, sub: Subscriber, data: dict[str, Any]) -> None:
        from .tables import Rejected

        kind = data["type"]
        try:
            if kind == "chat":
                await self.chat(table, sub, data.get("text"))
            elif kind == "undo":
                await self.undo(table, sub.seat)
            elif kind == "take_seat":
                await self.take_seat(table, sub.seat)
            elif kind == "mute_spectators":
                await self.mute(table, sub, data.get("on"))
        except Rejected as exc:
            sub.push({"type": "error", "code": exc.code, "message": exc.message, "version": table.version})

    async def chat(self, table: LiveTable, sub: Subscriber, text: Any) -> dict[str, Any]:
        play = self.play(table)
        try:
            text = chatmod.clean_text(text)
        except chatmod.ChatError as exc:
            raise _rejected("bad_chat", str(exc), 422) from None
        if sub.seat is None and play.mute:
            raise _rejected("muted", "The host has muted spectators' chat at this table.", 403)
        key = f"{table.id}:{sub.seat}" if sub.seat is not None else f"{table.id}:a:{getattr(sub, 'address', '')}"
        bucket = self.chat_limiter.bucket(key)
        if not bucket.take():
            wait = bucket.retry_after()
            raise _rejected("rate_limited", f"Too many chat messages: wait {wait} s before the next one.", 429)
        if sub.seat is not None:
            name = table.seats[sub.seat].name
        else:
            name = getattr(sub, "player_name", None) or "Spectator"
        async with self._lock(table):
            line = await self.m.run_db(chatmod.store_line, self.m.db, table.id, sub.seat, name, text, False, utcnow(),
                                    self.m.bus.publish)
            self._push_lines(table, [line])
        return line

    @retrying
    async def mute(self, table: LiveTable, sub: Subscriber, on: Any) -> None:
        if not isinstance(on, bool):
            raise _rejected("malformed", "'on' must be true or false.", 422)
        if not is_host(table, sub.seat):
            raise _rejected("not_host", "Only the table's host can mute spectators.", 403)
        async with table.lock:
            play = self.play(table)
            if play.mute == on:
                return
            new = play.copy()
            new.mute = on
            lines = await self._write(table, new, [(None, chatmod.spectators_muted(on))])
            table.play = new
        self._push_lines(table, lines)
        self.m.broadcast_presence(table)

    @retrying
    async def take_seat(self, table: LiveTable, seat: int | None) -> None:
        if seat is None:
            raise _rejected("spectator", "Spectators hold no seat to take.", 403)
        async with table.lock:
            play = self.play(table)
            if seat not in play.away:
                raise _rejected("not_away", "Nobody else plays your seat: there is nothing to take back.", 409)
            if table.over:
                raise _rejected("over", "The game is over.", 409)
            new = play.copy()
            if not new.take_back(seat, int(self.settings.grace * 1000)):
                raise _rejected("out_of_time", "Your clock has run out again: the bot finishes the game for "
                                               "your seat.", 409)
            new.sync(clocked(table, table.state), _active(table), self.now())
            lines = await self._write(table, new, [(seat, chatmod.returned(table.seats[seat].name))])
            new.gone_since = play.gone_since
            table.play = new
        self._push_lines(table, lines)
        self.m.broadcast(table)

    @retrying
    async def undo(self, table: LiveTable, seat: int | None) -> int:
        """Take back ``seat``'s last action (or whole turn); returns how many actions were removed."""
        async with table.lock:
            n, refusal = undo_check(table, seat)
            if refusal is not None:
                raise _rejected(*refusal)
            keep = table.version - n
            rebuilt = self._replayed(table, table.match.actions[:keep])
            play = self.play(table)
            new = play.copy()
            now = self.now()
            new.settle(now)
            new.sync(clocked(table, rebuilt.state), _active(rebuilt), now)
            new.epoch += 1
            if any(table.checkpoints[keep:]):  # a whole turn back past a draw or reveal
                new.took_back.add(seat)
            name = table.seats[seat].name
            text = chatmod.took_back_turns(name) if n > 1 else chatmod.took_back(name)
            stamp = utcnow()
            table_id = table.id

            def cut(session) -> None:
                session.execute(delete(ActionRow).where(ActionRow.table_id == table_id, ActionRow.index >= keep))
                session.execute(update(TableRow).where(TableRow.id == table_id).values(updated_at=stamp))

            lines = await self._write(table, new, [(seat, text)], cut, kind="undo")
            for name_ in ("match", "state", "events", "checkpoints", "decision_since", "legal_ids"):
                setattr(table, name_, getattr(rebuilt, name_))
            table.updated_at = stamp
            new.gone_since = play.gone_since
            table.play = new
            self.m._replays.pop(table.id, None)
            for sub in table.subscribers:
                sub.sent_version = -1  # the log shrank: everyone starts again from their own view
        self.m.broadcast(table)
        self._push_lines(table, lines)
        self.m.wake_bots(table)
        return n

    def _replayed(self, table: LiveTable, actions: list[tuple[int, dict[str, Any]]]) -> LiveTable:
        """A copy of ``table`` (not installed) with the state after ``actions`` only."""
        game = table.game
        match = Match(game.id, table.num_players, table.seed, dict(table.options), meta=dict(table.match.meta))
        state = match.start(game)
        copy = dataclasses.replace(table, match=match, state=state, events=[], checkpoints=[],
                                   decision_since=[0] * table.num_players, legal_ids=[()] * table.num_players)
        copy.refresh_decisions(None)
        for player, data in actions:
            action = game.action_from_json(data)
            copy.checkpoints.append(is_checkpoint(state, player, action))
            copy.events.append(state.apply(player, action))
            match.record(player, action)
            copy.refresh_decisions(player)
        return copy

    # -- clocks -----------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        try:
            await self._read_alive()
        except Exception:
            log.exception("could not read the last heartbeat")
        while not self.m._closing:
            await asyncio.sleep(self.settings.tick)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock check failed")

    async def tick(self) -> list[tuple[str, int, str]]:
        """Check every live table's clocks: hand seats out of time (or away) to a bot; heartbeat."""
        from .tables import Rejected

        handed: list[tuple[str, int, str]] = []
        for table in list(self.m.tables.values()):
            if table.play is None or not table.play.timed or not self.m.bus.owns(table.id) \
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
                if t.play is not None and t.play.running and self.m.bus.owns(t.id) and not self.m.bus.arriving(t.id)]

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
            active = _active(table)
            changed = new.sync(clocked(table, table.state), active, now)
            away_ms = int(self.settings.away_after * 1000)
            # a seat that never opened the table (an invite not yet used) only has its clock against it
            present = table.connected_seats() | {s.seat for s in table.seats if not s.joined}
            due = new.due(now, present, away_ms) if active else []
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
            table.play = new
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
        if any(t.play is not None and t.play.running for t in self.m.tables.values()):
            try:
                await self.beat()  # a clean stop: clocks are charged up to now, not further
            except Exception:
                log.warning("last heartbeat not stored")

    # -- rematch ----------------------------------------------------------------------------
    @retrying
    async def rematch(self, table: LiveTable, seat: int | None) -> LiveTable:
        """The finished table's rematch (created by the first caller): same seats, new deal."""
        if seat is None:
            raise _rejected("no_seat", "Only a seat of this table can start its rematch.", 403)
        if not table.over:
            raise _rejected("running", "A rematch can start when the game is over.", 409)
        async with self._lock(table):
            play = self.play(table)
            if play.rematch:
                return await self.m.get(play.rematch)
            specs = [{"kind": s.kind, "name": s.name, **({"bot": s.bot} if s.kind == "bot" else {})}
                     for s in table.seats]

            def setup(fresh: LiveTable) -> None:  # the same players, host and privacy (lobby fields)
                for old, twin in zip(table.seats, fresh.seats):
                    if getattr(old, "player", None) is not None:
                        twin.player = old.player
                for name in ("host_seat", "host_player", "private"):
                    if hasattr(table, name):
                        setattr(fresh, name, getattr(table, name))

            new = await self.m.create(table.game.id, table.num_players, dict(table.options), specs, None,
                                      lobby=setup, clock=play.config())
            async with table.lock:
                play = self.play(table)
                after = play.copy()
                after.rematch = new.id
                try:
                    lines = await self._write(table, after, [(seat, chatmod.rematch_offered(table.seats[seat].name))])
                except Conflict:  # another worker stored its rematch first: this one is not needed
                    self.m.tables.pop(new.id, None)
                    await self.m.run_db(self.m._delete, new.id)
                    raise
                after.gone_since = play.gone_since
                table.play = after
        self._send_rematch(table, new)
        self._push_lines(table, lines)
        self.m.broadcast_presence(table)
        return new
