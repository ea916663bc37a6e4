"""The table master: a worker's live tables — creating, loading, listing, submitting,
expiring — built from its parts.

Parts: storage (storage.py: database calls and the action commit), the replica (replica.py:
changes made at other workers), the bot driver (botdriver.py) and the subscriber hub (hub.py).
Features (the lobby, clocks and chat, undo, rematch, ratings) plug in through hooks
(hooks.py); nothing here imports them.  Games are reached through the kernel API only
(registry, Game, State, Action, Match), so a new game needs no change.

Flow of an action: validate (seat token, version, legality) under the table's lock → apply
to a copy of the state → commit the action with what the features store with it (storage) →
the copy becomes the state → every connection its own view (hub) → wake the bots.  With
several workers the commit moves the table's revision and announces it; a stale copy gets
``Conflict``, is caught up (replica) and the action is judged again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import update

from gemtable.core import IllegalAction, Match, i18n
from gemtable.core.errors import GemtableError
from gemtable.core.registry import all_games, get_game

from . import hub
from .botdriver import BotDriver
from .bus import LocalBus, PgBus, make_bus
from .db import Conflict, Database, SeatRow, TableRow, utcnow
from .hooks import Hooks, TableHooks
from .hub import Subscriber
from .limits import MAX_NAME, BotLimitError, Limits, check_bot_spec, clean_name, shown
from .replica import Replica
from .storage import Storage
from .table import SEAT_LOST, SEAT_LOST_MSG, SEED_NOTE, LiveTable, Rejected, Seat, creator_key, is_checkpoint

log = logging.getLogger("gemtable.server")

# names that other modules import from here
__all__ = ["LiveTable", "Rejected", "Seat", "Subscriber", "TableManager"]


class TableManager:
    """The live tables cached by one server process (a worker; the database is the truth)."""

    def __init__(self, db: Database, bot_delay: float = 0.8, limits: Limits | None = None,
                 bot_workers: int = 1, db_retry_for: float = 8.0, bus: LocalBus | PgBus | None = None,
                 db_threads: int | None = None) -> None:
        self.db = db
        # several workers (PostgreSQL): notices, leases, presence; SQLite: one process owns all
        self.bus = bus if bus is not None else make_bus(db)
        self.bot_delay = bot_delay
        self.limits = limits or Limits()
        self.tables: dict[str, LiveTable] = {}
        self.loading: set[str] = set()  # tables being read in (notices heard meanwhile are kept)
        self._replays: dict[str, dict[str, dict[str, Any]]] = {}  # table id -> language -> replay
        self._load_lock = asyncio.Lock()
        self.closing = False
        self._maintenance: asyncio.Task | None = None
        self.hooks = Hooks()  # the features (hooks.py), added by whoever assembles the server
        self.storage = Storage(db, self.bus, db_retry_for, db_threads)
        self.replica = Replica(self)
        self.bots = BotDriver(self, bot_workers)

    def add_hooks(self, feature: TableHooks) -> None:
        """Plug a feature in (lobby, clocks and chat, ratings ...): see hooks.py."""
        self.hooks.add(feature)

    # -- the parts' entry points that features and routes use ----------------------------
    async def run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A database call in a database thread, retried while the database is away (storage.py)."""
        return await self.storage.run_db(fn, *args)

    async def healthy(self, timeout: float = 3.0) -> bool:
        return await self.storage.healthy(timeout)

    async def catch_up(self, table: LiveTable, kinds: set[str], notes: list[dict[str, Any]] | None = None) -> None:
        """Bring a cached table up to the database (replica.py)."""
        await self.replica.catch_up(table, kinds, notes)

    def on_notify(self, msg: dict[str, Any]) -> None:
        self.replica.on_notify(msg)

    def catch_up_all(self) -> None:
        self.replica.catch_up_all()

    async def took_over(self, table_id: str) -> None:
        await self.replica.took_over(table_id)

    def lost(self, table_id: str) -> None:
        self.replica.lost(table_id)

    def wake_bots(self, table: LiveTable) -> None:
        """Let the bots move if one is to move (botdriver.py)."""
        self.bots.wake(table)

    def forget_replay(self, table_id: str) -> None:
        self._replays.pop(table_id, None)

    # -- creation ------------------------------------------------------------
    async def create(self, game_id: Any, players: Any, options: Any, seats: Any, seed: Any = None,
                     creator: str | None = None,
                     setup: Sequence[Callable[[LiveTable], None]] = (), table_id: str | None = None) -> LiveTable:
        """A new table, stored; ``setup``: the features' steps for this table (the lobby's seat
        kinds and host, the time control), run in order before the ``created`` hooks.
        ``table_id``: the id chosen beforehand (a feature that names its tables before making
        them; a table of that id already stored: the store fails, nothing is cached)."""
        if not isinstance(game_id, str) or game_id not in all_games():
            known = ", ".join(sorted(all_games()))
            raise Rejected("unknown_game", i18n.msg("There is no game {game} (games: {known}).", game=shown(game_id),
                                                    known=known), 404)
        game = get_game(game_id)
        if isinstance(players, bool) or not isinstance(players, int):
            raise Rejected("bad_players", i18n.msg("'players' must be a whole number."), 422)
        try:
            game.check_players(players)
            opts = game.resolve_options(options if isinstance(options, dict) else {})
        except GemtableError as exc:
            raise Rejected("bad_options", str(exc), 422) from None
        if options is not None and not isinstance(options, dict):
            raise Rejected("bad_options", i18n.msg("'options' must be an object of option names to values."), 422)
        if seats is None:
            seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "easy"}] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise Rejected("bad_seats", i18n.msg("'seats' must list exactly {n} seats.", n=players), 422)
        built: list[Seat] = []
        humans = 0
        for i, spec in enumerate(seats):
            if not isinstance(spec, dict):
                raise Rejected("bad_seats", i18n.msg("Seat {seat} must be an object with a 'kind'.", seat=i + 1), 422)
            kind = spec.get("kind", "human")
            if kind == "human":
                humans += 1
                name = self._name(spec.get("name"), f"Player {i + 1}", i)
                built.append(Seat(i, "human", None, name, secrets.token_urlsafe(18)))
            elif kind == "bot":
                bot = spec.get("bot", "easy")
                if not isinstance(bot, str) or not bot.strip() or len(bot) > 200:
                    raise Rejected("bad_seats", i18n.msg("Seat {seat}: 'bot' must be a bot level or spec.", seat=i + 1), 422)
                try:
                    check_bot_spec(bot, self.limits, game)
                except BotLimitError as exc:
                    raise Rejected("bot_limit", i18n.msg("Seat {seat}: {why}.", seat=i + 1, why=str(exc)), 422) from None
                except Exception as exc:  # unknown bot, bad parameters
                    raise Rejected("bad_bot", i18n.msg("Seat {seat}: {why}", seat=i + 1, why=str(exc)), 422) from None
                label = f"Bot {i + 1} ({bot})"  # a long bot spec: the seat is just "Bot N"
                name = self._name(spec.get("name"), label if len(label) <= MAX_NAME else f"Bot {i + 1}", i)
                built.append(Seat(i, "bot", bot, name, secrets.token_urlsafe(18)))
            else:
                raise Rejected("bad_seats", i18n.msg("Seat {seat}: kind must be 'human' or 'bot', not {kind}.", seat=i + 1,
                                            kind=shown(kind)), 422)
        chosen = seed is not None
        if seed is None:
            seed = secrets.randbits(62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Rejected("bad_seed", i18n.msg("'seed' must be a whole number in [0, 2**62)."), 422)
        table_id = table_id or secrets.token_hex(5)
        now = utcnow()
        table = self._build(table_id, game, players, opts, seed, built, [], now, now)
        table.seed_chosen = chosen
        for step in setup:
            step(table)
        self.hooks.created(table)

        def store() -> None:
            with self.db.session() as s:
                s.add(TableRow(
                    id=table_id, game_id=game.id, num_players=players, options=opts, seed=seed,
                    status="waiting" if table.waiting else "running", created_at=now, updated_at=now,
                    seed_chosen=chosen, creator=creator_key(creator),
                ))
                s.flush()
                for seat in built:
                    s.add(SeatRow(table_id=table_id, seat=seat.seat, kind=seat.kind, bot=seat.bot,
                                  name=seat.name, token=seat.token, player_id=seat.player, open_seat=seat.open))
                self.hooks.store_new(s, table)
                s.commit()

        await self.run_db(store)
        self.tables[table_id] = table
        if not table.waiting:
            await self.bus.claim(table_id)  # this worker drives its bots and clocks (if nobody else does)
        self.wake_bots(table)
        return table

    @staticmethod
    def _name(name: Any, default: str, i: int) -> str:
        try:
            return clean_name(name, default)
        except ValueError as exc:
            raise Rejected("bad_name", i18n.msg("Seat {seat}: {why}.", seat=i + 1, why=str(exc)), 422) from None

    def _build(self, table_id, game, players, opts, seed, seats, actions, created, updated) -> LiveTable:
        match = Match(game.id, players, seed, dict(opts), meta={"names": [s.name for s in seats]})
        state = match.start(game)
        table = LiveTable(
            id=table_id, game=game, num_players=players, options=dict(opts), seed=seed,
            seats=seats, match=match, state=state, created_at=created, updated_at=updated,
            decision_since=[0] * players, legal_ids=[()] * players, hooks=self.hooks,
        )
        table.refresh_decisions(None)
        for player, data in actions:
            action = game.action_from_json(data)
            table.checkpoints.append(is_checkpoint(state, player, action))
            events = state.apply(player, action)
            match.record(player, action)
            table.events.append(events)
            table.refresh_decisions(player)
        return table

    # -- loading -------------------------------------------------------------
    async def get(self, table_id: str) -> LiveTable:
        table = self.tables.get(table_id)
        if table is not None:
            table.used = time.monotonic()
            return table
        async with self._load_lock:
            table = self.tables.get(table_id)
            if table is None:
                if not isinstance(table_id, str) or len(table_id) > 32:
                    raise Rejected("no_table", i18n.msg("There is no such table."), 404)
                self.loading.add(table_id)  # notices heard meanwhile are kept (caught up below)
                try:
                    loaded = await self.run_db(self._read_table, table_id)
                    table = self._load(table_id, loaded)
                    await self.hooks.loaded(table)
                    if self.bus.shared:
                        table.remote_seats = await self.run_db(self.bus.read_presence, table_id)
                finally:
                    self.loading.discard(table_id)
                self.tables[table_id] = table
                self.wake_bots(table)
                self.replica.heard(table_id)
        return table

    def _read_table(self, table_id: str) -> Any:
        """A table's rows (a database thread): table, seats, actions, and what the features read."""
        with self.db.session() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            return row, list(row.seats), list(row.actions), self.hooks.read_rows(s, table_id)

    def from_rows(self, table_id: str, row: Any, seat_rows: list[Any], action_rows: list[Any]) -> LiveTable:
        """The table its rows describe, rebuilt by replaying its actions (no feature records)."""
        try:
            game = get_game(row.game_id)
        except KeyError:
            raise Rejected("no_game", i18n.msg("Table {table} is a game of {game}, which is not installed.",
                                                  table=table_id, game=repr(row.game_id)), 410) from None
        seats = [Seat(r.seat, r.kind, r.bot, r.name, r.token, bool(r.joined), r.player_id, bool(r.open_seat))
                 for r in seat_rows]
        actions = [(a.seat, a.action) for a in action_rows]
        try:
            table = self._build(table_id, game, row.num_players, row.options or {}, row.seed, seats, actions,
                                row.created_at, row.updated_at)
        except (GemtableError, KeyError, ValueError) as exc:
            raise Rejected("broken_table", i18n.msg("Table {table} cannot be replayed: {why}", table=table_id, why=str(exc)), 410) from None
        table.seed_chosen = bool(row.seed_chosen)
        if row.status == "finished" and not table.state.is_over() and isinstance(row.result, dict):
            table.final = dict(row.result)  # ended by its players (a resignation)
        table.rev = int(row.rev or 0)
        table.waiting = row.status == "waiting"
        return table

    def _load(self, table_id: str, loaded: Any) -> LiveTable:
        if loaded is None:
            raise Rejected("no_table", i18n.msg("There is no table {table}.", table=shown(table_id)), 404)
        row, seat_rows, action_rows, extra = loaded
        table = self.from_rows(table_id, row, seat_rows, action_rows)
        self.hooks.restored(table, row, seat_rows, extra)
        return table

    async def resume_all(self) -> int:
        """Start-up: rebuild every unfinished table from its log and restart its bots."""
        count = 0
        for table_id in await self.run_db(self.db.unfinished_ids):
            try:
                await self.get(table_id)
                count += 1
            except Rejected as exc:
                log.warning("cannot resume table %s: %s", table_id, exc.message)
        return count

    async def list_tables(self) -> list[dict[str, Any]]:
        rows = await self.run_db(self.db.list_tables, self.limits.lobby_size, self.limits.lobby_per_creator)
        return self.summaries_of(rows)

    def summaries_of(self, rows: list[Any]) -> list[dict[str, Any]]:
        """Public summaries of table rows (seats loaded, ``moves`` set): a table in memory
        from its live copy, any other from its rows."""
        out = []
        for row in rows:
            live = self.tables.get(row.id)
            if live is not None:
                out.append(live.summary())
                continue
            try:
                title = get_game(row.game_id).title
            except KeyError:
                title = row.game_id
            out.append({
                "id": row.id, "game": row.game_id, "title": title, "players": row.num_players,
                "options": row.options, "status": row.status, "open": False, "version": getattr(row, "moves", None),
                "seed_fixed": bool(row.seed_chosen), "seed_note": SEED_NOTE if row.seed_chosen else None,
                "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot,
                           "connected": s.kind == "bot", "joined": True} for s in row.seats],
                "updated_at": row.updated_at.isoformat() + "Z" if row.updated_at else None,
                "winners": (row.result or {}).get("winners"),
            })
            self.hooks.row_summary(row, out[-1])
        return out

    # -- actions -------------------------------------------------------------
    async def submit(self, table: LiveTable, seat: int, data: Any, version: Any,
                     bot_epoch: int | None = None, token: str | None = None,
                     lang: str = i18n.SOURCE) -> list[dict[str, Any]]:
        """Validate, apply, commit, broadcast.  Raises Rejected (nothing changes).

        ``bot_epoch``: a bot's move, refused (stale) if the seat was taken back or a move
        undone since the bot started thinking.  ``token``: a person's move, refused
        (``seat_lost``) unless the seat still has that token when the move is judged, also
        after catching up with a change made at another worker.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise Rejected("malformed", i18n.msg("An action message must carry the integer 'version' it was chosen at."), 422)
        for _attempt in range(4):
            try:
                return await self._submit_once(table, seat, data, version, bot_epoch, token, lang)
            except Conflict:
                # another worker changed the table first: catch this copy up, then judge the
                # action again (still valid when only another seat's simultaneous pick came first)
                await self.catch_up(table, {"reload"} if table.waiting else {"action"})
                if bot_epoch is not None:
                    break  # a bot chose on an old position: it chooses again
        raise Rejected("stale", i18n.msg("The table changed while your action was stored: look again and choose anew."), 409)

    async def _submit_once(self, table: LiveTable, seat: int, data: Any, version: int,
                           bot_epoch: int | None, token: str | None = None,
                           lang: str = i18n.SOURCE) -> list[dict[str, Any]]:
        async with table.lock:
            if token is not None and not table.token_holds(seat, token):
                raise Rejected("seat_lost", SEAT_LOST_MSG, 403)
            if table.over:
                raise Rejected("over", i18n.msg("The game is over: no more actions can be taken."), 409)
            if table.waiting:
                raise Rejected("waiting", i18n.msg("The game has not started: it waits for players to join "
                                                   "or for the host to start it."), 409)
            if bot_epoch is not None and not self.bots.may_move(table, seat, bot_epoch):
                raise Rejected("stale", i18n.msg("The seat's player plays it again (or a move was taken back)."), 409)
            if version > table.version or version < table.decision_since[seat]:
                raise Rejected(
                    "stale",
                    i18n.msg("That action was chosen at move {chosen}, but the table is at move {now} "
                             "and your choices have changed since: look again and choose anew.",
                             chosen=version, now=table.version),
                    409,
                )
            domains = table.game.domains
            try:
                action = table.game.action_from_json(data)
            except IllegalAction as exc:
                raise Rejected("illegal", exc.message, 409, domains=domains) from None
            except Exception:
                raise Rejected("malformed", i18n.msg("The action is not a valid JSON action object."), 422) from None
            reason = table.state.check(seat, action)
            if reason is not None:  # English is the refusal's message; the seat reads it in its language
                raise Rejected("illegal", reason, 409, rendered={lang: table.state.check(seat, action, lang)}
                               if lang != i18n.SOURCE else None)
            checkpoint = is_checkpoint(table.state, seat, action)  # asked before applying
            movers = table.state.to_move()
            # apply to a copy: while the commit is under way, readers still see the last stored state
            after = table.state.clone()
            try:
                events = after.apply(seat, action)
            except IllegalAction as exc:
                raise Rejected("illegal", exc.message, 409, domains=domains) from None
            except Exception:
                log.exception("engine error on %s at table %s", action, table.id)
                raise Rejected("engine_error", i18n.msg("The game engine failed on that action; nothing changed."), 500) from None
            index = table.version
            now = utcnow()
            parts = self.hooks.before_commits(table, seat, after)  # stored in the same transaction
            result = table.result(after) if after.is_over() else None  # (after: it may read the parts)
            record = next((p.record for p in parts if p.record is not None), None)
            tag = next((p.tag for p in parts if p.record is not None), None)
            await self.storage.store(table.id, index, seat, action.to_json(), now, result, table.rev, record, tag)
            table.rev += 1
            table.state = after
            table.checkpoints.append(checkpoint)
            for part in parts:
                if part.done is not None:
                    part.done()
            table.updated_at = now
            table.match.record(seat, action)
            table.events.append(events)
            table.refresh_decisions(seat)
            self._replays.pop(table.id, None)
            self.bots.tell(table, index, seat, action, movers, events)
        self.broadcast(table)
        self.wake_bots(table)
        self.hooks.moved(table, index + 1)  # turn alerts
        if table.over:
            self.hooks.finished(table)  # ratings
        return events

    async def mark_joined(self, table: LiveTable, seat: Seat) -> None:
        if seat.joined:
            return
        index = seat.seat

        def store() -> None:
            with self.db.session() as s:
                s.execute(update(SeatRow).where(SeatRow.table_id == table.id, SeatRow.seat == index)
                          .values(joined=True))
                self.bus.publish(s, table.id, "seats")
                s.commit()

        async with table.lock:  # not while another worker's change is being read in (catch_up)
            seat = table.seats[index]
            if seat.joined:
                return
            seat.joined = True
            try:
                await self.run_db(store)
            except Rejected:  # the flag is shown from memory; it is stored again at the next join
                seat.joined = False

    # -- subscribers (hub.py) ---------------------------------------------------
    def broadcast(self, table: LiveTable) -> None:
        hub.broadcast(table)

    def send_state(self, table: LiveTable, sub: Subscriber) -> None:
        hub.send_state(table, sub)

    def revoke(self, table: LiveTable, sub: Subscriber) -> None:
        hub.revoke(table, sub)

    def subscribe(self, table: LiveTable, sub: Subscriber) -> LiveTable:
        """Send ``sub`` the table's changes from now on; returns the copy it follows.

        That is ``table`` unless this worker let it go meanwhile (``on_notify``): then the copy
        cached now (``table`` again if there is none), re-read from the database at once.
        """
        cached = self.tables.get(table.id)
        if cached is not table:
            if cached is None:
                self.tables[table.id] = cached = table
            self.replica.need(table.id, "reload")
            table = cached
        table.subscribers.add(sub)
        self.send_state(table, sub)
        self.broadcast_presence(table, exclude=sub)
        self.bus.presence_changed(table)  # other workers learn the seat is connected
        return table

    def unsubscribe(self, table: LiveTable, sub: Subscriber) -> None:
        table.subscribers.discard(sub)
        self.hooks.disconnected(table, sub)
        self.broadcast_presence(table)
        self.bus.presence_changed(table)
        if table.over and not table.subscribers and self.tables.get(table.id) is table:
            del self.tables[table.id]  # finished and unwatched: reloaded from the database on demand

    def broadcast_presence(self, table: LiveTable, exclude: Subscriber | None = None) -> None:
        hub.broadcast_presence(table, exclude)

    # -- upkeep ----------------------------------------------------------------
    def start_maintenance(self) -> None:
        self._maintenance = asyncio.get_running_loop().create_task(self._maintain())
        self.hooks.start()  # the features' own loops (clocks: timeouts and the heartbeat)

    async def _maintain(self) -> None:
        """Every few seconds: restart bots that stopped; now and then, remove expired tables."""
        last_sweep = 0.0
        loop = asyncio.get_running_loop()
        while not self.closing:
            await asyncio.sleep(min(5.0, self.limits.sweep_every))
            for table in list(self.tables.values()):
                self.wake_bots(table)
            if loop.time() - last_sweep >= self.limits.sweep_every:
                last_sweep = loop.time()
                try:
                    await self.expire()
                except Exception:
                    log.exception("table expiry failed")

    async def expire(self) -> list[str]:
        """Remove unfinished tables older than ``expire_after`` at which no person ever acted."""
        cutoff = utcnow() - dt.timedelta(seconds=self.limits.expire_after)
        waiting_cutoff = utcnow() - dt.timedelta(seconds=self.limits.waiting_expire_after)
        removed = []
        expired = await self.run_db(self.db.expired_ids, cutoff)
        expired += [t for t in await self.run_db(self.db.expired_waiting_ids, waiting_cutoff) if t not in expired]
        for table_id in expired:
            live = self.tables.get(table_id)
            if live is not None:
                if live.subscribers or live.remote_seats:
                    continue  # someone is watching it
                if live.bot_task is not None:
                    live.bot_task.cancel()
                del self.tables[table_id]
            await self.run_db(self.delete, table_id)
            removed.append(table_id)
        if removed:
            log.info("removed %d expired tables", len(removed))
        return removed

    def delete(self, table_id: str) -> None:
        """(A database thread) Remove a table's rows; other workers drop their copies."""
        self.db.delete_table(table_id)
        if self.bus.shared:
            with self.db.session() as s:
                self.bus.publish(s, table_id, "deleted")
                s.commit()

    async def close(self) -> None:
        self.closing = True
        await self.hooks.close()  # the features' loops stop (clocks: a last heartbeat)
        await self.bus.close()  # leases and presence rows go; notices stop
        self.replica.stop()
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task and not t.bot_task.done()]
        if self._maintenance is not None:
            tasks.append(self._maintenance)
        for t in tasks:
            t.cancel()
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass
        await self.bots.close()
        await self.storage.close()

    # -- replays -------------------------------------------------------------
    async def replay(self, table: LiveTable, lang: str = i18n.SOURCE) -> dict[str, Any]:
        """Every position of a finished game as the public sees it, its log in ``lang``."""
        if not table.over:
            raise Rejected("running", i18n.msg("The replay opens when the game is over."), 409)
        cached = self._replays.get(table.id, {}).get(lang)
        if cached is not None:
            return cached
        frames = []
        game = table.game
        for i, (state, _events) in enumerate(table.match.states(game)):
            frames.append({
                "move": i,
                "view": state.view(None),
                "to_move": list(state.to_move()),
                "log": table.log_entries(None, i - 1, i, lang) if i else [],
                "actor": table.match.actions[i - 1][0] if i else None,
            })
        data = {
            "table": table.summary(),
            "match": table.match.to_json(),
            "frames": frames,
            "result": table.result_in(lang),
        }
        if len(self._replays) > 32:
            self._replays.pop(next(iter(self._replays)))
        self._replays.setdefault(table.id, {})[lang] = data
        return data

