"""Live tables: the match, its state, its seats, its subscribers and its bots.

Everything here talks to games through the kernel API only (registry, Game,
State, Action, Match, event_for, format_text), so a new game needs no change.

Flow of an action: validate (seat token, version, legality) under the table's
lock → apply to the state → commit the action row → broadcast to every
subscriber its own view → wake the bots.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import update

from gemtable.core import Game, IllegalAction, Match, Rng, State, event_for, format_text
from gemtable.core.errors import GemtableError
from gemtable.games.registry import all_games, get_game

from .db import ActionRow, Database, SeatRow, TableRow, utcnow

log = logging.getLogger("gemtable.server")

MAX_PLAYERS_NAME = 24


class Rejected(Exception):
    """A request the server refuses; ``code`` is machine-readable, message for people."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass
class Seat:
    seat: int
    kind: str  # "human" | "bot"
    bot: str | None
    name: str
    token: str
    joined: bool = False

    def public(self, connected: bool) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "connected": connected or self.kind == "bot",
            "joined": self.joined or self.kind == "bot",
        }


@dataclass(eq=False)
class Subscriber:
    """One open WebSocket: the seat it plays (None: spectator) and what it was sent."""

    seat: int | None
    send: Callable[[dict[str, Any]], Any]  # async callable
    sent_version: int = -1


@dataclass(eq=False)
class LiveTable:
    id: str
    game: Game
    num_players: int
    options: dict[str, Any]
    seed: int
    seats: list[Seat]
    match: Match
    state: State
    created_at: Any = None
    updated_at: Any = None
    # events of action i (unredacted, server side only)
    events: list[list[dict[str, Any]]] = field(default_factory=list)
    decision_since: list[int] = field(default_factory=list)
    legal_ids: list[tuple[int, ...]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    bot_task: asyncio.Task | None = None
    bots: dict[int, Any] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return len(self.match.actions)

    @property
    def over(self) -> bool:
        return self.state.is_over()

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat_for_token(self, token: str | None) -> Seat | None:
        if not token:
            return None
        given = token.encode("utf-8", "surrogatepass")  # compare_digest refuses non-ASCII str
        for s in self.seats:
            if secrets.compare_digest(s.token.encode("utf-8"), given):
                return s
        return None

    def connected_seats(self) -> set[int]:
        return {sub.seat for sub in self.subscribers if sub.seat is not None}

    # -- decisions -------------------------------------------------------------
    def refresh_decisions(self, actor: int | None) -> None:
        """Track since which version each seat's current decision stands.

        An action message carries the version the client saw.  It is accepted
        when the seat's decision has not changed since then (so a simultaneous
        pick by another seat does not make it stale), else rejected as stale.
        """
        movers = set(self.state.to_move())
        for p in range(self.num_players):
            ids = tuple(a.id for a in self.state.legal_actions(p)) if p in movers else ()
            if p == actor or ids != self.legal_ids[p]:
                self.decision_since[p] = self.version
            self.legal_ids[p] = ids

    # -- payloads ----------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Public description (lobby, spectators): never the seed or tokens."""
        connected = self.connected_seats()
        over = self.over
        out: dict[str, Any] = {
            "id": self.id,
            "game": self.game.id,
            "title": self.game.title,
            "players": self.num_players,
            "options": self.options,
            "seats": [s.public(s.seat in connected) for s in self.seats],
            "status": "finished" if over else "running",
            "open": any(s.kind == "human" and not s.joined for s in self.seats) and not over,
            "version": self.version,
            "to_move": list(self.state.to_move()),
            "created_at": self.created_at.isoformat() + "Z" if self.created_at else None,
            "updated_at": self.updated_at.isoformat() + "Z" if self.updated_at else None,
        }
        if over:
            out["winners"] = self.state.winners()
        return out

    def log_entries(self, viewer: int | None, start: int, stop: int | None = None) -> list[dict[str, Any]]:
        names = self.names
        out: list[dict[str, Any]] = []
        stop = len(self.events) if stop is None else stop
        for move in range(max(0, start), stop):
            seat = self.match.actions[move][0]
            for ev in self.events[move]:
                seen = event_for(ev, viewer)
                if seen is None:
                    continue
                entry = {k: v for k, v in seen.items() if k not in ("only", "public")}
                entry["text"] = format_text(str(seen.get("text", "")), names)
                entry["move"] = move
                entry.setdefault("seat", seat)
                out.append(entry)
        return out

    def payload(self, viewer: int | None, since: int = -1) -> dict[str, Any]:
        """The message a seat (or a spectator) receives: its own view and legal actions."""
        state = self.state
        movers = list(state.to_move())
        legal: list[dict[str, Any]] = []
        prompt = None
        if viewer is not None and viewer in movers:
            describe = getattr(state, "action_text", None)
            legal = [
                {"id": a.id, "type": a.type, "json": a.to_json(),
                 "text": describe(viewer, a) if describe else a.text}
                for a in state.legal_actions(viewer)
            ]
            prompt = state.prompt(viewer)
        reset = since < 0
        msg: dict[str, Any] = {
            "type": "state",
            "table": self.summary(),
            "seat": viewer,
            "version": self.version,
            "decision_version": self.decision_since[viewer] if viewer is not None else None,
            "view": state.view(viewer),
            "to_move": movers,
            "prompt": prompt,
            "waiting_prompt": None if prompt or not movers else _waiting(self, movers),
            "legal": legal,
            "log_reset": reset,
            "log": self.log_entries(viewer, 0 if reset else since),
            "over": state.is_over(),
            "result": _result(state) if state.is_over() else None,
        }
        return msg


def _waiting(table: LiveTable, movers: list[int]) -> str:
    names = [table.seats[p].name for p in movers]
    return "Waiting for " + " and ".join(names) + "."


def _result(state: State) -> dict[str, Any]:
    res = state.result()
    return {
        "scores": list(res.get("scores", [])),
        "ranking": list(res.get("ranking", [])),
        "winners": list(res.get("winners", [])),
        "tiebreak": res.get("tiebreak") or "",
        **{k: v for k, v in res.items() if k not in ("scores", "ranking", "winners", "tiebreak")},
    }


def _clean_name(name: Any, default: str) -> str:
    if not isinstance(name, str):
        return default
    name = " ".join(name.split())[:MAX_PLAYERS_NAME]
    return name or default


class TableManager:
    """All live tables of one server process."""

    def __init__(self, db: Database, bot_delay: float = 0.8) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.tables: dict[str, LiveTable] = {}
        self._replays: dict[str, dict[str, Any]] = {}
        self._load_lock = asyncio.Lock()
        self._closing = False

    # -- creation ------------------------------------------------------------
    def create(self, game_id: Any, players: Any, options: Any, seats: Any, seed: Any = None) -> LiveTable:
        from gemtable.bots import make_bot

        if not isinstance(game_id, str) or game_id not in all_games():
            known = ", ".join(sorted(all_games()))
            raise Rejected("unknown_game", f"There is no game {game_id!r} (games: {known}).", 404)
        game = get_game(game_id)
        if isinstance(players, bool) or not isinstance(players, int):
            raise Rejected("bad_players", "'players' must be a whole number.", 422)
        try:
            game.check_players(players)
            opts = game.resolve_options(options if isinstance(options, dict) else {})
        except GemtableError as exc:
            raise Rejected("bad_options", str(exc), 422) from None
        if options is not None and not isinstance(options, dict):
            raise Rejected("bad_options", "'options' must be an object of option names to values.", 422)
        if seats is None:
            seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "easy"}] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise Rejected("bad_seats", f"'seats' must list exactly {players} seats.", 422)
        built: list[Seat] = []
        humans = 0
        for i, spec in enumerate(seats):
            if not isinstance(spec, dict):
                raise Rejected("bad_seats", f"Seat {i + 1} must be an object with a 'kind'.", 422)
            kind = spec.get("kind", "human")
            if kind == "human":
                humans += 1
                name = _clean_name(spec.get("name"), f"Player {i + 1}")
                built.append(Seat(i, "human", None, name, secrets.token_urlsafe(18)))
            elif kind == "bot":
                bot = spec.get("bot", "easy")
                if not isinstance(bot, str) or not bot.strip():
                    raise Rejected("bad_seats", f"Seat {i + 1}: 'bot' must be a bot level or spec.", 422)
                try:
                    make_bot(bot, 0)
                except Exception as exc:  # unknown bot, bad parameters
                    raise Rejected("bad_bot", f"Seat {i + 1}: {exc}", 422) from None
                name = _clean_name(spec.get("name"), f"Bot {i + 1} ({bot})")
                built.append(Seat(i, "bot", bot, name, secrets.token_urlsafe(18)))
            else:
                raise Rejected("bad_seats", f"Seat {i + 1}: kind must be 'human' or 'bot', not {kind!r}.", 422)
        if seed is None:
            seed = secrets.randbits(62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Rejected("bad_seed", "'seed' must be a whole number in [0, 2**62).", 422)
        table_id = secrets.token_hex(5)
        now = utcnow()
        with self.db.session() as s:
            row = TableRow(
                id=table_id, game_id=game.id, num_players=players, options=opts, seed=seed,
                status="running", created_at=now, updated_at=now,
            )
            s.add(row)
            for seat in built:
                s.add(SeatRow(table_id=table_id, seat=seat.seat, kind=seat.kind, bot=seat.bot,
                              name=seat.name, token=seat.token))
            s.commit()
        table = self._build(table_id, game, players, opts, seed, built, [], now, now)
        self.tables[table_id] = table
        self.wake_bots(table)
        return table

    def _build(self, table_id, game, players, opts, seed, seats, actions, created, updated) -> LiveTable:
        match = Match(game.id, players, seed, dict(opts), meta={"names": [s.name for s in seats]})
        state = match.start(game)
        table = LiveTable(
            id=table_id, game=game, num_players=players, options=dict(opts), seed=seed,
            seats=seats, match=match, state=state, created_at=created, updated_at=updated,
            decision_since=[0] * players, legal_ids=[()] * players,
        )
        table.refresh_decisions(None)
        for player, data in actions:
            action = game.action_from_json(data)
            events = state.apply(player, action)
            match.record(player, action)
            table.events.append(events)
            table.refresh_decisions(player)
        return table

    # -- loading -------------------------------------------------------------
    async def get(self, table_id: str) -> LiveTable:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        async with self._load_lock:
            table = self.tables.get(table_id)
            if table is None:
                table = self._load(table_id)
                self.tables[table_id] = table
                self.wake_bots(table)
        return table

    def _load(self, table_id: str) -> LiveTable:
        if not isinstance(table_id, str) or len(table_id) > 32:
            raise Rejected("no_table", "There is no such table.", 404)
        loaded = self.db.load(table_id)
        if loaded is None:
            raise Rejected("no_table", f"There is no table {table_id!r}.", 404)
        row, seat_rows, action_rows = loaded
        try:
            game = get_game(row.game_id)
        except KeyError:
            raise Rejected("no_game", f"Table {table_id} is a game of {row.game_id!r}, which is not installed.", 410) from None
        seats = [Seat(r.seat, r.kind, r.bot, r.name, r.token, bool(getattr(r, "joined", False))) for r in seat_rows]
        actions = [(a.seat, a.action) for a in action_rows]
        try:
            return self._build(table_id, game, row.num_players, row.options or {}, row.seed, seats, actions,
                               row.created_at, row.updated_at)
        except (GemtableError, KeyError, ValueError) as exc:
            raise Rejected("broken_table", f"Table {table_id} cannot be replayed: {exc}", 410) from None

    async def resume_all(self) -> int:
        """Start-up: rebuild every unfinished table from its log and restart its bots."""
        count = 0
        for table_id in self.db.unfinished_ids():
            try:
                await self.get(table_id)
                count += 1
            except Rejected as exc:
                log.warning("cannot resume table %s: %s", table_id, exc.message)
        return count

    def list_tables(self) -> list[dict[str, Any]]:
        out = []
        for row in self.db.list_tables():
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
                "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot,
                           "connected": s.kind == "bot", "joined": True} for s in row.seats],
                "updated_at": row.updated_at.isoformat() + "Z" if row.updated_at else None,
                "winners": (row.result or {}).get("winners"),
            })
        return out

    # -- actions -------------------------------------------------------------
    async def submit(self, table: LiveTable, seat: int, data: Any, version: Any) -> list[dict[str, Any]]:
        """Validate, apply, commit, broadcast.  Raises Rejected (nothing changes)."""
        if isinstance(version, bool) or not isinstance(version, int):
            raise Rejected("malformed", "An action message must carry the integer 'version' it was chosen at.", 422)
        async with table.lock:
            if table.over:
                raise Rejected("over", "The game is over: no more actions can be taken.", 409)
            if version > table.version or version < table.decision_since[seat]:
                raise Rejected(
                    "stale",
                    f"That action was chosen at move {version}, but the table is at move {table.version} "
                    "and your choices have changed since: look again and choose anew.",
                    409,
                )
            try:
                action = table.game.action_from_json(data)
            except IllegalAction as exc:
                raise Rejected("illegal", exc.reason, 422) from None
            except Exception:
                raise Rejected("malformed", "The action is not a valid JSON action object.", 422) from None
            reason = table.state.check(seat, action)
            if reason is not None:
                raise Rejected("illegal", reason, 409)
            before = table.state.clone()
            try:
                events = table.state.apply(seat, action)
            except IllegalAction as exc:
                table.state = before
                raise Rejected("illegal", exc.reason, 409) from None
            except Exception:
                table.state = before
                log.exception("engine error on %s at table %s", action, table.id)
                raise Rejected("engine_error", "The game engine failed on that action; nothing changed.", 500) from None
            index = table.version
            try:
                self._commit(table, index, seat, action.to_json())
            except Exception:
                table.state = before  # the action did not happen
                log.exception("could not store action %s of table %s", index, table.id)
                raise Rejected("storage", "The action could not be saved; nothing changed. Try again.", 503) from None
            table.match.record(seat, action)
            table.events.append(events)
            table.refresh_decisions(seat)
            self._replays.pop(table.id, None)
        await self.broadcast(table)
        self.wake_bots(table)
        return events

    def _commit(self, table: LiveTable, index: int, seat: int, action: dict[str, Any]) -> None:
        now = utcnow()
        with self.db.session() as s:
            s.add(ActionRow(table_id=table.id, index=index, seat=seat, action=action, created_at=now))
            values: dict[str, Any] = {"updated_at": now}
            if table.state.is_over():
                values["status"] = "finished"
                values["result"] = _result(table.state)
            s.execute(update(TableRow).where(TableRow.id == table.id).values(**values))
            s.commit()
        table.updated_at = now

    def mark_joined(self, table: LiveTable, seat: Seat) -> None:
        if seat.joined:
            return
        seat.joined = True
        with self.db.session() as s:
            s.execute(update(SeatRow).where(SeatRow.table_id == table.id, SeatRow.seat == seat.seat)
                      .values(joined=True))
            s.commit()

    # -- subscribers ---------------------------------------------------------
    async def broadcast(self, table: LiveTable) -> None:
        for sub in list(table.subscribers):
            await self.send_state(table, sub)

    async def send_state(self, table: LiveTable, sub: Subscriber) -> None:
        msg = table.payload(sub.seat, sub.sent_version)
        sub.sent_version = table.version
        try:
            await sub.send(msg)
        except Exception:  # the socket went away: forget it
            table.subscribers.discard(sub)

    async def subscribe(self, table: LiveTable, sub: Subscriber) -> None:
        table.subscribers.add(sub)
        await self.send_state(table, sub)
        await self.broadcast_presence(table, exclude=sub)

    async def unsubscribe(self, table: LiveTable, sub: Subscriber) -> None:
        table.subscribers.discard(sub)
        await self.broadcast_presence(table)
        if table.over and not table.subscribers and self.tables.get(table.id) is table:
            del self.tables[table.id]  # finished and unwatched: reloaded from the database on demand

    async def broadcast_presence(self, table: LiveTable, exclude: Subscriber | None = None) -> None:
        msg = {"type": "presence", "table": table.summary()}
        for other in list(table.subscribers):
            if other is exclude:
                continue
            try:
                await other.send(msg)
            except Exception:
                table.subscribers.discard(other)

    # -- bots ------------------------------------------------------------------
    def bots_to_move(self, table: LiveTable) -> list[int]:
        return [p for p in table.state.to_move() if table.seats[p].kind == "bot"]

    def wake_bots(self, table: LiveTable) -> None:
        if self._closing or not self.bots_to_move(table):
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: resume_all wakes them at start-up
        table.bot_task = loop.create_task(self._run_bots(table))

    async def _run_bots(self, table: LiveTable) -> None:
        while not self._closing:
            movers = self.bots_to_move(table)
            if not movers:
                return
            await asyncio.sleep(self.bot_delay)
            async with table.lock:
                movers = self.bots_to_move(table)
                if not movers:
                    return
                p = movers[0]
                version = table.version
                seed = (table.seed * 1_000_003 + version * 101 + p) & ((1 << 62) - 1)
                try:
                    snapshot = table.state.determinize(p, Rng(seed))
                except Exception:  # a game without a working determinize: give a clone
                    snapshot = table.state.clone()
                bot = self._bot(table, p, seed)
            try:
                action = await asyncio.to_thread(bot.choose, snapshot, p)
                data = action.to_json()
            except Exception:
                log.exception("bot of seat %s at table %s failed; playing a random move", p, table.id)
                acts = table.state.legal_actions(p)
                if not acts:
                    return
                data = acts[Rng(seed).below(len(acts))].to_json()
            try:
                await self.submit(table, p, data, version)
            except Rejected as exc:
                if exc.code == "illegal":  # the bot chose something illegal: play a random legal move
                    log.warning("bot at table %s seat %s chose an illegal move: %s", table.id, p, exc.message)
                    acts = table.state.legal_actions(p)
                    if acts:
                        try:
                            await self.submit(table, p, acts[Rng(seed).below(len(acts))].to_json(), table.version)
                        except Rejected:
                            pass
                elif exc.code not in ("stale",):
                    return

    def _bot(self, table: LiveTable, p: int, seed: int):
        from gemtable.bots import make_bot

        bot = table.bots.get(p)
        if bot is None:
            try:
                bot = make_bot(table.seats[p].bot or "easy", seed)
            except Exception:
                log.warning("unknown bot %r at table %s; using random", table.seats[p].bot, table.id)
                bot = make_bot("random", seed)
            table.bots[p] = bot
        return bot

    async def close(self) -> None:
        self._closing = True
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task and not t.bot_task.done()]
        for t in tasks:
            t.cancel()
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass

    # -- replays -------------------------------------------------------------
    async def replay(self, table: LiveTable) -> dict[str, Any]:
        """Every position of a finished game as the public sees it."""
        if not table.over:
            raise Rejected("running", "The replay opens when the game is over.", 409)
        cached = self._replays.get(table.id)
        if cached is not None:
            return cached
        frames = []
        game = table.game
        for i, (state, _events) in enumerate(table.match.states(game)):
            frames.append({
                "move": i,
                "view": state.view(None),
                "to_move": list(state.to_move()),
                "log": table.log_entries(None, i - 1, i) if i else [],
                "actor": table.match.actions[i - 1][0] if i else None,
            })
        data = {
            "table": table.summary(),
            "match": table.match.to_json(),
            "frames": frames,
            "result": _result(table.state),
        }
        if len(self._replays) > 32:
            self._replays.pop(next(iter(self._replays)))
        self._replays[table.id] = data
        return data
