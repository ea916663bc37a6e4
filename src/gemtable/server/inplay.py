"""In-table play: clocks and away seats, chat, undo and rematch.

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
- The result says which seats a stand-in bot played and for how many of their moves
  (``stand_ins``); ratings.py decides, seat by seat, what that costs (README "Ratings").
  A seat a bot was still playing when the game ended was abandoned (``abandoned``): it
  takes the last place.
- Resigning (``resign``): the seat takes the last place.  When one seat is left that has
  not resigned the game ends at once (``LiveTable.final``: the table is finished although
  the rules did not end it); else a bot plays the resigned seat to the end and the others
  play on.  The resigned seat cannot be taken back.
- A rematch is a proposal (``rematch``): it waits ``rematch_wait`` seconds for every other
  player to accept; one decline ends it.  No table, and so no clock, exists before everyone
  accepted.  The new table moves the seats round one place (``rotation``), so another seat
  starts.
- Undo removes the seat's last action if it drew and revealed nothing and the
  seat is still to move (its turn is not over); at tables where only one
  person plays (one human seat, or every human seat held by the same player)
  it removes the seat's whole last turn, through bots' moves.  Time spent is
  not given back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import weakref
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select, update

from gemtable.core import Match

from . import chat as chatmod
from .clocks import ClockError, PlayState, parse_clock
from .clockwork import (  # noqa: F401  (PlaySettings and rec are part of this module's interface)
    AWAY_BOT,
    SYSTEM_NAME,
    Clockwork,
    InPlayRecord,
    PlaySettings,
    active,
    clocked,
    rec,
    rejected,
    retrying,
    save_play,
)
from .db import ActionRow, ChatRow, Conflict, PlayRow, TableRow, bump, utcnow
from .hooks import CommitPart, TableHooks
from .hub import push_all
from .limits import RateLimiter
from .lobby import is_host
from .ratings import unrated_seats
from .table import LiveTable, Rejected, is_checkpoint
from .takeback import undo_check

if TYPE_CHECKING:  # pragma: no cover
    from .hub import Subscriber
    from .tables import TableManager

log = logging.getLogger("gemtable.server")

MESSAGES = ("chat", "undo", "take_seat", "mute_spectators")


class InPlay(Clockwork, TableHooks):
    """Clocks and stand-in bots, chat, undo and rematch at every table of one table manager."""

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
        if rec(table).play is None:  # a table made without a time control: none
            rec(table).play = PlayState.new({"mode": "none"}, table.num_players)
        if rec(table).chat is None:
            rec(table).chat = chatmod.recent()
        return rec(table).play

    # -- the table core's hooks (hooks.py) --------------------------------------------------
    def created(self, table: LiveTable) -> None:
        if rec(table).play is None:  # no time control was set up: none
            self.init_table(table, {"mode": "none"})

    async def loaded(self, table: LiveTable) -> None:
        await self.load_extras(table)

    def summary(self, table: LiveTable, out: dict[str, Any]) -> None:
        play = rec(table).play
        if play is None:
            return
        for s in out.get("seats", ()):
            s["away"] = s.get("seat") in play.away
            s["resigned"] = s.get("seat") in play.resigned
        out["clock"] = play.public(self.now())
        out["mute_spectators"] = play.mute
        out["rematch"] = play.rematch
        out["rematch_proposal"] = self.proposal_view(table, play)

    def payload(self, table: LiveTable, msg: dict[str, Any], viewer: int | None, reset: bool) -> None:
        play = rec(table).play
        if play is not None:
            msg["clock"] = msg["table"].get("clock") or play.public(self.now())
        msg["can_undo"] = viewer is not None and undo_check(table, viewer)[1] is None
        if reset:
            lines = rec(table).chat or ()
            msg["chat"] = [line for line in lines if viewer is None
                           or viewer not in self.m.hooks.hidden_from(table, line.get("seat"))]

    def result(self, table: LiveTable, result: dict[str, Any]) -> None:
        self.result_extras(table, result)

    def before_commit(self, table: LiveTable, seat: int, after: Any) -> CommitPart | None:
        clocks = self.clocks_after(table, seat, after)
        rec(table).pending, rec(table).pending_actor = clocks, seat  # for the result hook
        if clocks is None:
            return None
        return CommitPart(record=clocks.to_json(), tag=clocks.rematch, done=lambda: self.after_commit(table, clocks))

    def bot_plays(self, table: LiveTable, seat: int) -> bool:
        return seat in self.play(table).away

    def bot_epoch(self, table: LiveTable) -> int:
        return self.play(table).epoch

    def stand_in(self, table: LiveTable, seat: int) -> str | None:
        return AWAY_BOT

    def presence_lost(self, table: LiveTable, seats: set[int]) -> None:
        play, now = self.play(table), self.now()
        for p in seats:
            play.gone_since[p] = now  # since when the seat is away (clocks)

    def wants_read(self, kinds: set[str]) -> bool:
        return bool(kinds & {"chat", "play"})

    def read_changes(self, table: LiveTable, kinds: set[str], full: bool) -> Any:
        """The clocks and flags as stored, and (for chat, clocks or a full reload) the chat lines
        this copy may lack: lines may be committed out of id order by different workers, so a
        window of the last ones is read again."""
        table_id = table.id
        with_chat = full or bool(kinds & {"chat", "play"})
        recent = list(rec(table).chat or ())[-20:]
        after = min(line["id"] for line in recent) - 1 if recent else 0

        def read(session: Any) -> dict[str, Any]:
            row = session.get(PlayRow, table_id)
            out: dict[str, Any] = {"play": row.data if row is not None else None,
                                   "rematch": row.rematch if row is not None else None, "chat": [],
                                   "kinds": kinds}
            if with_chat:
                rows = session.scalars(select(ChatRow).where(ChatRow.table_id == table_id, ChatRow.id > after)
                                       .order_by(ChatRow.id.desc()).limit(chatmod.KEEP)).all()
                out["chat"] = [chatmod.line_json(r) for r in reversed(rows)]
            return out

        return read

    def caught_up(self, table: LiveTable, data: Any, full: bool, changed: bool) -> list[Any]:
        if data is None:
            return []
        later = []
        if changed:
            rematch = self.install_play(table, data["play"], data["rematch"], bump=full)
            if rematch is not None:
                later.append(self.announce_rematch(table, rematch))
        known = {line["id"] for line in rec(table).chat or ()}
        lines = [line for line in data["chat"] if line["id"] not in known]
        if lines:
            later.append(self._push_later(table, lines))
        if changed and "play" in data["kinds"]:
            later.append(self._presence_later(table))
        return later

    async def _push_later(self, table: LiveTable, lines: list[dict[str, Any]]) -> None:
        self._push_lines(table, lines)

    async def _presence_later(self, table: LiveTable) -> None:
        self.m.broadcast_presence(table)

    def note_applied(self, table: LiveTable, note: dict[str, Any]) -> None:
        if note.get("p") is not None:  # the clocks stored with the action
            self.install_play(table, note["p"], self.play(table).rematch)

    async def took_over(self, table: LiveTable) -> None:
        await self.take_over(table)

    def seats_changed(self, table: LiveTable, event: str | None, name: str | None, started: bool) -> None:
        if event is not None:
            self.lobby_event(table, event, name)
        if started:
            self.table_started(table)

    # -- creating and loading -----------------------------------------------------------
    def clock_setup(self, raw: Any) -> Callable[[LiveTable], None]:
        """The setup step of a new table with the time control ``raw`` (checked now: 422)."""
        config = self.parse_clock(raw)
        return lambda table: self.init_table(table, config)

    @staticmethod
    def parse_clock(raw: Any) -> dict[str, Any]:
        try:
            return parse_clock(raw)
        except ClockError as exc:
            raise rejected("bad_clock", str(exc), 422) from None

    def init_table(self, table: LiveTable, config: dict[str, Any]) -> None:
        """A new table: its time control (clocks start when the game does)."""
        play = PlayState.new(config, table.num_players)
        now = self.now()
        play.gone_since = {p: now for p in range(table.num_players)}
        rec(table).play = play
        self.play(table)
        play.sync(clocked(table, table.state), active(table), now)

    def store_new(self, session, table: LiveTable) -> None:
        """In the creating transaction: the table's time control."""
        save_play(session, table.id, self.play(table))

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
        rec(table).play = play
        rec(table).chat = chatmod.recent()
        rec(table).chat.extend(lines)
        self.play(table)
        if changed:
            await self._write(table, play, [])

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
        rec(table).play = new
        rec(table).pending = rec(table).pending_actor = None
        return rematch if rematch and rematch != old.rematch else None

    async def announce_rematch(self, table: LiveTable, new_id: str) -> None:
        """Tell this worker's subscribers of a rematch started at another worker (with their tokens)."""
        try:
            new = await self.m.get(new_id)
        except Exception:
            return
        self._send_rematch(table, new)

    def _send_rematch(self, table: LiveTable, new: LiveTable) -> None:
        """Every connection hears of the rematch; a seat's, with its seat and token there."""
        order = rotation(table.num_players)
        for sub in list(table.subscribers):
            msg: dict[str, Any] = {"type": "rematch", "table": new.id}
            if sub.seat is not None and new.seats[order.index(sub.seat)].kind == "human":
                msg["seat"] = order.index(sub.seat)
                msg["token"] = new.seats[msg["seat"]].token
            if not sub.push(msg):
                table.subscribers.discard(sub)

    # -- actions ----------------------------------------------------------------------------
    def clocks_after(self, table: LiveTable, actor: int, after: Any) -> PlayState | None:
        """The clocks after an action by ``actor`` (``after``: the state it leads to), not installed;
        a move made by a stand-in bot is counted for its seat."""
        play = self.play(table)
        stand_in = actor in play.away and actor not in play.resigned
        if not play.timed and not stand_in:
            return None
        new = play.copy()
        if stand_in:
            new.stand_in_moves[actor] = new.stand_in_moves.get(actor, 0) + 1
        active = not after.is_over() and not table.waiting
        new.after_action(actor, clocked(table, after), active, self.now(), before=clocked(table, table.state))
        return new

    @staticmethod
    def after_commit(table: LiveTable, new: PlayState | None) -> None:
        rec(table).pending = rec(table).pending_actor = None
        if new is not None:
            new.gone_since = rec(table).play.gone_since
            rec(table).play = new

    @staticmethod
    def result_extras(table: LiveTable, result: dict[str, Any] | None, concluded: bool = False) -> dict[str, Any] | None:
        """What in-table play adds to a result: who a stand-in played for and how much, who
        resigned or abandoned (they take the last places), and the seats not rated for it.
        ``concluded``: the game ends by a resignation (nobody abandoned it)."""
        record = rec(table)
        play = record.pending if record.pending is not None else record.play
        if result is None or play is None:
            return result
        if play.replaced:
            result["replaced"] = sorted(play.replaced)
        if play.took_back:
            result["took_back"] = sorted(play.took_back)
        moves = Counter(p for p, _ in table.match.actions)
        if record.pending is not None and record.pending_actor is not None:
            moves[record.pending_actor] += 1  # the action being committed (not yet in the match)
        if play.stand_in_moves:
            result["stand_ins"] = [{"seat": p, "moves": n, "of": max(n, moves[p])}
                                   for p, n in sorted(play.stand_in_moves.items())]
        resigned = list(play.resigned)
        abandoned = [] if concluded else sorted(p for p in play.away if p not in play.resigned)
        if resigned:
            result["resigned"] = resigned
        if abandoned:
            result["abandoned"] = abandoned
        if (resigned or abandoned) and isinstance(result.get("ranking"), list) \
                and len(result["ranking"]) == table.num_players:
            result["ranking"] = forfeit_ranking(result["ranking"], resigned, abandoned)
            result["winners"] = [p for p, place in enumerate(result["ranking"]) if place == 1]
        unrated = unrated_seats(result)
        if unrated:
            result["unrated"] = unrated
        return result

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
        self.play(table)
        for line in lines:
            rec(table).chat.append(line)
            # (a seat whose player was blocked by the line's author does not get it)
            push_all(table, {"type": "chat", "line": line}, self.m.hooks.hidden_from(table, line.get("seat")))

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
        if rec(table).play is not None and rec(table).play.timed and self.m.bus.owns(table.id):
            self._background(table, self.check(table), "starting the clocks")
        self.m.bus.wake()  # several workers: the table's lease is taken at once, not at the next sweep

    # -- WebSocket messages -------------------------------------------------------------
    async def handle(self, table: LiveTable, sub: Subscriber, data: dict[str, Any]) -> None:
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
            if exc.code == "seat_lost":  # the seat changed hands at another worker a moment ago
                self.m.revoke(table, sub)
                return
            sub.push({"type": "error", "code": exc.code, "message": exc.message, "version": table.version})

    async def chat(self, table: LiveTable, sub: Subscriber, text: Any) -> dict[str, Any]:
        play = self.play(table)
        try:
            text = chatmod.clean_text(text)
        except chatmod.ChatError as exc:
            raise rejected("bad_chat", str(exc), 422) from None
        if sub.seat is None and play.mute:
            raise rejected("muted", "The host has muted spectators' chat at this table.", 403)
        refused = await self.m.hooks.chat_refused(table, sub.seat)  # a muted or banned player
        if refused is not None:
            raise refused
        key = f"{table.id}:{sub.seat}" if sub.seat is not None else f"{table.id}:a:{sub.address}"
        bucket = self.chat_limiter.bucket(key)
        if not bucket.take():
            wait = bucket.retry_after()
            raise rejected("rate_limited", f"Too many chat messages: wait {wait} s before the next one.", 429)
        if sub.seat is not None:
            name = table.seats[sub.seat].name
        else:
            name = "Spectator"
        async with self._lock(table):
            line = await self.m.run_db(chatmod.store_line, self.m.db, table.id, sub.seat, name, text, False, utcnow(),
                                    self.m.bus.publish, sub.token if sub.seat is not None else None)
            self._push_lines(table, [line])
        return line

    @retrying
    async def mute(self, table: LiveTable, sub: Subscriber, on: Any) -> None:
        if not isinstance(on, bool):
            raise rejected("malformed", "'on' must be true or false.", 422)
        if not is_host(table, sub.seat):
            raise rejected("not_host", "Only the table's host can mute spectators.", 403)
        async with table.lock:
            play = self.play(table)
            if play.mute == on:
                return
            new = play.copy()
            new.mute = on
            lines = await self._write(table, new, [(None, chatmod.spectators_muted(on))])
            rec(table).play = new
        self._push_lines(table, lines)
        self.m.broadcast_presence(table)

    @retrying
    async def take_seat(self, table: LiveTable, seat: int | None) -> None:
        if seat is None:
            raise rejected("spectator", "Spectators hold no seat to take.", 403)
        async with table.lock:
            play = self.play(table)
            if seat in play.resigned:
                raise rejected("resigned", "You resigned: a bot plays your seat to the end.", 409)
            if seat not in play.away:
                raise rejected("not_away", "Nobody else plays your seat: there is nothing to take back.", 409)
            if table.over:
                raise rejected("over", "The game is over.", 409)
            new = play.copy()
            if not new.take_back(seat, int(self.settings.grace * 1000)):
                raise rejected("out_of_time", "Your clock has run out again: the bot finishes the game for "
                                               "your seat.", 409)
            new.sync(clocked(table, table.state), active(table), self.now())
            lines = await self._write(table, new, [(seat, chatmod.returned(table.seats[seat].name))])
            new.gone_since = play.gone_since
            rec(table).play = new
        self._push_lines(table, lines)
        self.m.broadcast(table)
        self.m.hooks.turns_changed(table)  # the seat waits for its player again, no longer for a bot

    @retrying
    async def undo(self, table: LiveTable, seat: int | None) -> int:
        """Take back ``seat``'s last action (or whole turn); returns how many actions were removed."""
        async with table.lock:
            n, refusal = undo_check(table, seat)
            if refusal is not None:
                raise rejected(*refusal)
            keep = table.version - n
            rebuilt = self._replayed(table, table.match.actions[:keep])
            play = self.play(table)
            new = play.copy()
            now = self.now()
            new.settle(now)
            new.sync(clocked(table, rebuilt.state), active(rebuilt), now)
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
            rec(table).play = new
            self.m.forget_replay(table.id)
            for sub in table.subscribers:
                sub.sent_version = -1  # the log shrank: everyone starts again from their own view
        self.m.broadcast(table)
        self._push_lines(table, lines)
        self.m.hooks.turns_changed(table)  # the table may wait for someone else now (turn alerts)
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

    # -- resigning ---------------------------------------------------------------------------
    @retrying
    async def resign(self, table: LiveTable, seat: int | None) -> bool:
        """``seat`` resigns: the last place.  True when that ended the game (one seat was left
        that has not resigned); else a bot plays the seat to the end."""
        if seat is None:
            raise rejected("no_seat", "Only a player at this table can resign.", 403)
        async with table.lock:
            if table.waiting:
                raise rejected("waiting", "The game has not started: leave the table instead.", 409)
            if table.over:
                raise rejected("over", "The game is over.", 409)
            play = self.play(table)
            if seat in play.resigned:
                raise rejected("resigned", "You have already resigned this game.", 409)
            now = self.now()
            new = play.copy()
            new.settle(now)
            new.running.pop(seat, None)
            new.turn_since.pop(seat, None)
            new.resigned.append(seat)
            new.away.add(seat)  # a bot plays it (when the game goes on); never taken back
            new.epoch += 1
            name = table.seats[seat].name
            ends = sum(1 for p in range(table.num_players) if p not in new.resigned) <= 1
            if ends:
                new.sync(set(), False, now)
                result = self.concluded_result(table, new)
                table_id, stamp = table.id, utcnow()

                def finish(session) -> None:
                    session.execute(update(TableRow).where(TableRow.id == table_id)
                                    .values(status="finished", result=result, updated_at=stamp))

                # other workers read the table again whole ("reload"): it is finished
                lines = await self._write(table, new, [(seat, chatmod.resigned_end(name))], finish, kind="reload")
                table.final = result
                table.updated_at = stamp
            else:
                new.sync(clocked(table, table.state), active(table), now)
                lines = await self._write(table, new, [(seat, chatmod.resigned(name, AWAY_BOT))])
            new.gone_since = play.gone_since
            rec(table).play = new
            self.m.forget_replay(table.id)
        self._push_lines(table, lines)
        self.m.broadcast(table)
        if ends:
            self.m.hooks.finished(table)  # ratings
        else:
            self.m.wake_bots(table)
        return ends

    def concluded_result(self, table: LiveTable, play: PlayState) -> dict[str, Any]:
        """The result of a game ended by resignations: the seat left first, the resigned after it
        (the last to resign best); the scores as they stood."""
        n = table.num_players
        try:
            scores = [s if isinstance(s, (int, float)) else 0 for s in table.state.scores()]
        except Exception:  # a game that cannot score an unfinished position
            scores = [0] * n
        ranking = forfeit_ranking([1] * n, play.resigned, [])
        result = {"scores": scores, "ranking": ranking, "winners": [p for p in range(n) if ranking[p] == 1],
                  "tiebreak": "", "ended_by": "resignation"}
        record = rec(table)
        saved, record.play, record.pending = record.play, play, None
        try:
            self.result_extras(table, result, concluded=True)
        finally:
            record.play = saved
        return result

    # -- rematch ----------------------------------------------------------------------------
    def proposal_view(self, table: LiveTable, play: PlayState) -> dict[str, Any] | None:
        """The rematch proposal as every seat sees it: who proposed, who accepted, who is
        awaited, its state (open, accepted, declined, expired) and the milliseconds left."""
        p = play.proposal
        if p is None or not table.over:
            return None
        now = self.now()
        state = ("accepted" if play.rematch else "declined" if p.get("no") is not None
                 else "expired" if now >= p["until"] else "open")
        return {"by": p["by"], "yes": sorted(p["yes"]), "waiting": self.awaited(table, p["yes"]),
                "no": p.get("no"), "state": state, "left": max(0, p["until"] - now) if state == "open" else 0}

    @staticmethod
    def awaited(table: LiveTable, yes: list[int]) -> list[int]:
        """The people's seats still to accept (a seat held by a player who accepted at another
        seat of the table has accepted)."""
        players = {table.seats[p].player for p in yes if table.seats[p].player is not None}
        return [s.seat for s in table.seats if s.kind == "human" and s.seat not in yes
                and (s.player is None or s.player not in players)]

    @retrying
    async def rematch(self, table: LiveTable, seat: int | None, answer: str | None = None) -> LiveTable | None:
        """A seat's answer about the finished table's rematch: propose it (``None`` also
        accepts an open proposal), accept or decline.  The new table (once every other player
        accepted; at once when nobody else is to ask) or None while answers are awaited."""
        if seat is None:
            raise rejected("no_seat", "Only a seat of this table can answer about its rematch.", 403)
        if not table.over:
            raise rejected("running", "A rematch can start when the game is over.", 409)
        async with self._lock(table):
            play = self.play(table)
            if play.rematch:
                if answer == "decline":
                    raise rejected("started", "The rematch has already started.", 409)
                return await self.m.get(play.rematch)
            view = self.proposal_view(table, play)
            is_open = view is not None and view["state"] == "open"
            name = table.seats[seat].name
            if answer == "decline":
                if not is_open:
                    raise rejected("no_proposal", "There is no open rematch proposal to decline.", 409)
                proposal = dict(play.proposal, no=seat)
                text = chatmod.rematch_withdrawn(name) if seat == proposal["by"] else chatmod.rematch_declined(name)
                await self._store_proposal(table, proposal, text, seat)
                return None
            if answer == "accept" and not is_open:
                raise rejected("no_proposal", "There is no open rematch proposal to accept: propose one.", 409)
            if is_open:
                proposal = dict(play.proposal, yes=sorted(set(play.proposal["yes"]) | {seat}))
                text = chatmod.rematch_accepted(name)
            else:
                proposal = {"by": seat, "yes": [seat], "no": None,
                            "until": self.now() + int(self.settings.rematch_wait * 1000)}
                text = chatmod.rematch_proposed(name)
            if self.awaited(table, proposal["yes"]):
                if proposal != play.proposal:
                    await self._store_proposal(table, proposal, text, seat)
                return None
            return await self._start_rematch(table, seat, proposal)

    async def _store_proposal(self, table: LiveTable, proposal: dict[str, Any], text: str, seat: int) -> None:
        async with table.lock:
            play = self.play(table)
            after = play.copy()
            after.proposal = proposal
            lines = await self._write(table, after, [(seat, text)])
            after.gone_since = play.gone_since
            rec(table).play = after
        self._push_lines(table, lines)
        self.m.broadcast_presence(table)

    async def _start_rematch(self, table: LiveTable, seat: int, proposal: dict[str, Any]) -> LiveTable:
        """Everyone accepted: the new table, its seats moved round one place (``rotation``)."""
        play = self.play(table)
        order = rotation(table.num_players)
        specs = [{"kind": s.kind, "name": s.name, **({"bot": s.bot} if s.kind == "bot" else {})}
                 for s in (table.seats[i] for i in order)]

        def setup(fresh: LiveTable) -> None:  # what other features carry over (the lobby: players, host)
            self.m.hooks.carry_over(table, fresh, order)

        new = await self.m.create(table.game.id, table.num_players, dict(table.options), specs, None,
                                  setup=[setup, self.clock_setup(play.config())])
        async with table.lock:
            play = self.play(table)
            after = play.copy()
            after.rematch = new.id
            after.proposal = proposal
            try:
                lines = await self._write(table, after, [(seat, chatmod.rematch_offered(table.seats[seat].name))])
            except Conflict:  # another worker stored its rematch first: this one is not needed
                self.m.tables.pop(new.id, None)
                await self.m.run_db(self.m.delete, new.id)
                raise
            after.gone_since = play.gone_since
            rec(table).play = after
        self._send_rematch(table, new)
        self._push_lines(table, lines)
        self.m.broadcast_presence(table)
        return new


def rotation(n: int) -> list[int]:
    """A rematch's seats: ``rotation(n)[j]`` is the old seat whose player sits at seat ``j``
    (everyone moves round one place, so the old second seat starts)."""
    return [(j + 1) % n for j in range(n)]


def forfeit_ranking(ranking: list[int], resigned: list[int], abandoned: list[int]) -> list[int]:
    """Places (1 = first) with the seats that resigned or abandoned after everyone else: the
    others keep their order; then the resigned, the last to resign best; the abandoned seats
    share the last place."""
    n = len(ranking)
    out = set(resigned) | set(abandoned)
    stay = [p for p in range(n) if p not in out]
    places = [0] * n
    for p in stay:
        places[p] = 1 + sum(1 for q in stay if ranking[q] < ranking[p])
    k = len(stay)
    quitters = [p for p in resigned if p not in abandoned]
    for i, p in enumerate(reversed(quitters)):
        places[p] = k + 1 + i
    for p in abandoned:
        places[p] = k + len(quitters) + 1
    return places
