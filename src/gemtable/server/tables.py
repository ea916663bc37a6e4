"""Live tables: the match, its state, its seats, its subscribers and its bots.

Everything here talks to games through the kernel API only (registry, Game,
State, Action, Match, event_for, format_text), so a new game needs no change.

Flow of an action: validate (seat token, version, legality) under the table's
lock → apply to a copy of the state → commit the action row (in a database
thread, retried with backoff) → the copy becomes the state → queue every
subscriber its own view → wake the bots.

Several workers (PostgreSQL, bus.py): the commit moves the table's revision
(``gt_tables.rev``) from the one this copy was built from to the next and
sends a notice; a copy that is stale gets ``Conflict``, is caught up from the
database, and the action is judged again.  Other workers catch their copies
up when they hear the notice (``catch_up``); only the worker holding a
table's lease moves its bots and checks its clocks.

Nothing here awaits a client: each connection has a bounded send queue
drained by its own writer task, and a connection that falls behind is
dropped (see ``Subscriber``).  Database calls and bot thinking run in
threads, so the event loop keeps answering while either is slow.
"""

from __future__ import annotations

import asyncio
import collections
import datetime as dt
import functools
import hashlib
import json
import logging
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson
from sqlalchemy import update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from gemtable.core import Game, IllegalAction, Match, Rng, State, event_for, format_text
from gemtable.core.errors import GemtableError
from gemtable.core.registry import all_games, get_game

from . import inplay
from .bus import LocalBus, PgBus, make_bus
from .closes import CLOSE_SEAT_LOST, CLOSE_SLOW
from .db import (
    ActionRow,
    ActionStore,
    Conflict,
    Database,
    KickedRow,
    SeatRow,
    TableRow,
    bump,
    utcnow,
)
from .limits import (
    MAX_NAME,
    BotLimitError,
    Limits,
    check_bot_spec,
    clamp_bot,
    clamped_spec,
    clean_name,
    shown,
)

log = logging.getLogger("gemtable.server")

MAX_MESSAGE_TEXT = 300  # characters of an error message (never echo unbounded input)
SEAT_LOST = ("This seat is no longer yours: you left it, the host removed you, or it was given to "
             "another player. You can still watch the table.")


class Rejected(Exception):
    """A request the server refuses; ``code`` is machine-readable, message for people."""

    def __init__(self, code: str, message: str, status: int = 400, retry_after: int | None = None) -> None:
        if len(message) > MAX_MESSAGE_TEXT:
            message = message[: MAX_MESSAGE_TEXT - 1] + "…"
        super().__init__(message)
        self.retry_after = retry_after
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
    player: str | None = None  # the player id holding the seat (never sent to clients)
    open: bool = False  # joinable from the lobby while the table waits (lobby.py)

    def public(self, connected: bool) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "connected": connected or self.kind == "bot",
            "joined": self.joined or self.kind == "bot",
        }


def encode_message(msg: dict[str, Any]) -> str:
    """A WebSocket message as compact JSON text (orjson: a few times faster than the standard
    library on the per-move hot path; keys that are not strings become strings, as ``json`` does).

    What orjson refuses and the standard library writes (a lone surrogate, an integer beyond 64
    bits) goes through the standard library, so no message a table could send before is lost.
    """
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(msg, separators=(",", ":"))


_END = "\x00end"  # queued by ``Subscriber.end``: the writer closes the connection when it gets there


class Subscriber:
    """One open WebSocket: the seat it plays (None: spectator) and what it was sent.

    Messages go into a bounded queue, already encoded as JSON text, that the
    connection's writer task sends out; ``push`` never waits.  (Queued as text,
    a message waiting for its socket is one string, not hundreds of dicts and
    lists for the garbage collector to scan again and again under load.)  A
    connection whose queue is full, or whose
    socket takes longer than ``send_timeout`` to accept a frame, is a slow
    reader: it is dropped (``on_drop`` closes it with CLOSE_SLOW) so that it
    can never hold up the table or anyone else's messages.
    """

    def __init__(self, seat: int | None, send: Callable[[str], Any], queue_size: int = 32,
                 send_timeout: float = 10.0, on_drop: Callable[[int, str], Any] | None = None,
                 token: str | None = None) -> None:
        self.seat = seat
        # the seat token this connection was granted its seat with: it plays the seat only while
        # the seat still has that token (``LiveTable.holds``)
        self.token = token
        self.ending: tuple[int, str] | None = None  # closing once what is queued went out (``end``)
        self.send = send  # async callable writing one message (JSON text) to the socket
        self.sent_version = -1
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=queue_size)
        self.send_timeout = send_timeout
        self.on_drop = on_drop
        self.dropped: tuple[int, str] | None = None
        self.writer: asyncio.Task | None = None

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def push(self, msg: dict[str, Any] | str) -> bool:
        """Queue ``msg`` (a message, or one already encoded by ``encode_message`` when several
        subscribers get the same one).  False when this subscriber is (now) dropped."""
        if self.dropped is not None or self.ending is not None:
            return False
        try:
            self.queue.put_nowait(msg if isinstance(msg, str) else encode_message(msg))
            return True
        except asyncio.QueueFull:
            self.drop(CLOSE_SLOW, "too slow reading: messages piled up")
            return False

    async def _write(self) -> None:
        try:
            while self.dropped is None:
                msg = await self.queue.get()
                if msg is _END:
                    self.drop(*self.ending)
                    return
                try:
                    async with asyncio.timeout(self.send_timeout):  # no task per message (wait_for makes one)
                        await self.send(msg)
                except TimeoutError:
                    self.drop(CLOSE_SLOW, "too slow reading: a message could not be delivered")
                    return
                except Exception:  # the socket went away
                    self.drop(1001, "connection lost")
                    return
        except asyncio.CancelledError:
            pass

    def end(self, code: int, reason: str, last: dict[str, Any] | None = None) -> None:
        """Close with ``code`` once the messages already queued (and ``last``) went out; nothing
        pushed from now on is sent.  Dropped at once when the queue has no room left."""
        if self.dropped is not None or self.ending is not None:
            return
        if last is not None:
            self.push(last)
        self.ending = (code, reason)
        try:
            self.queue.put_nowait(_END)
        except asyncio.QueueFull:
            self.drop(code, reason)
            return
        if self.writer is None:  # never started: nothing will write the queue out
            self.drop(code, reason)

    def drop(self, code: int, reason: str) -> None:
        if self.dropped is not None:
            return
        self.dropped = (code, reason)
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()
        if self.on_drop is not None:
            self.on_drop(code, reason)

    async def stop(self) -> None:
        """Let the queued messages go out, a little while at most, then stop the writer."""
        if self.writer is None:
            return
        if self.dropped is None and not self.queue.empty():
            try:
                await asyncio.wait_for(self._drain(), 1.0)
            except asyncio.TimeoutError:
                pass
        self.writer.cancel()
        try:
            await self.writer
        except (asyncio.CancelledError, Exception):
            pass

    async def _drain(self) -> None:
        while not self.queue.empty() and self.dropped is None:
            await asyncio.sleep(0.01)


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
    bots_told: int = 0  # actions told to the bots (Bot.observe); less than version after an undo
    seed_chosen: bool = False
    # lobby (lobby.py): waiting for players to join; listed or not; who hosts it
    waiting: bool = False
    private: bool = False
    host_seat: int | None = None
    host_player: str | None = None
    kicked: set[str] = field(default_factory=set)
    # in-table play (inplay.py): each accepted action's checkpoint flag, clocks/away seats, recent chat
    checkpoints: list[bool] = field(default_factory=list)
    play: Any = None
    chat: Any = None
    # several workers (bus.py): the database revision this copy was built from; seats
    # connected at other workers
    rev: int = 0
    remote_seats: set[int] = field(default_factory=set)
    used: float = field(default_factory=time.monotonic)  # last asked for at this worker (``get``)
    # the legal actions of each seat in ``state`` at ``version`` (asked when the decision is
    # tracked, again for the seat's message): computed once per position
    _legal_of: tuple[Any, int] | None = None
    _legal: dict[int, list[Any]] = field(default_factory=dict)

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

    def holds(self, sub: Subscriber) -> bool:
        """Whether ``sub`` may still play its seat: a spectator always may watch; a seat's
        connection only while the seat keeps the token it was opened with.  Leaving, being
        removed by the host, or the seat passing to another player gives the seat a new token."""
        return sub.seat is None or self.token_holds(sub.seat, sub.token)

    def token_holds(self, seat: int, token: str | None) -> bool:
        if token is None or not 0 <= seat < len(self.seats):
            return False
        return secrets.compare_digest(self.seats[seat].token.encode("utf-8"),
                                      token.encode("utf-8", "surrogatepass"))

    def local_seats(self) -> set[int]:
        """Seats with a connection at this worker."""
        return {sub.seat for sub in self.subscribers if sub.seat is not None}

    def connected_seats(self) -> set[int]:
        return self.local_seats() | self.remote_seats

    # -- decisions -------------------------------------------------------------
    def legal(self, player: int) -> list[Any]:
        """``state.legal_actions(player)``, computed once per position (the state object and the
        version: a copy caught up from notices applies actions to its state in place)."""
        key = self._legal_of
        if key is None or key[0] is not self.state or key[1] != self.version:
            self._legal_of, self._legal = (self.state, self.version), {}
        acts = self._legal.get(player)
        if acts is None:
            acts = self._legal[player] = self.state.legal_actions(player)
        return acts

    def refresh_decisions(self, actor: int | None) -> None:
        """Track since which version each seat's current decision stands.

        An action message carries the version the client saw.  It is accepted
        when the seat's decision has not changed since then (so a simultaneous
        pick by another seat does not make it stale), else rejected as stale.
        """
        movers = set(self.state.to_move())
        for p in range(self.num_players):
            ids = tuple(a.id for a in self.legal(p)) if p in movers else ()
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
            "status": "finished" if over else ("waiting" if self.waiting else "running"),
            "open": any(s.kind == "human" and not s.joined for s in self.seats) and not over,
            "seed_fixed": self.seed_chosen,
            "seed_note": SEED_NOTE if self.seed_chosen else None,
            "version": self.version,
            "to_move": list(self.state.to_move()),
            "created_at": self.created_at.isoformat() + "Z" if self.created_at else None,
            "updated_at": self.updated_at.isoformat() + "Z" if self.updated_at else None,
        }
        if over:
            out["winners"] = self.state.winners()
        lobby.summary_fields(self, out)
        inplay.decorate_summary(self, out)  # clock, away seats
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

    def payload(self, viewer: int | None, since: int = -1, summary: dict[str, Any] | None = None) -> dict[str, Any]:
        """The message a seat (or a spectator) receives: its own view and legal actions.

        ``summary``: this table's ``summary()`` when the caller already built it (a broadcast
        builds it once for every subscriber; the dict is shared, never modified).
        """
        state = self.state
        movers = list(state.to_move())
        legal: list[dict[str, Any]] = []
        prompt = None
        if viewer is not None and viewer in movers and not self.waiting:
            describe = getattr(state, "action_text", None)
            legal = [
                {"id": a.id, "type": a.type, "json": a.to_json(),
                 "text": describe(viewer, a) if describe else a.text}
                for a in self.legal(viewer)
            ]
            prompt = state.prompt(viewer)
        reset = since < 0
        msg: dict[str, Any] = {
            "type": "state",
            "table": self.summary() if summary is None else summary,
            "seat": viewer,
            "version": self.version,
            "decision_version": self.decision_since[viewer] if viewer is not None else None,
            "view": state.view(viewer),
            "to_move": movers,
            "prompt": prompt,
            "waiting_prompt": (WAITING_NOTE if self.waiting else
                               None if prompt or not movers else _waiting(self, movers)),
            "legal": legal,
            "log_reset": reset,
            "log": self.log_entries(viewer, 0 if reset else since),
            "over": state.is_over(),
            "result": _result(state) if state.is_over() else None,
        }
        inplay.decorate_payload(self, msg, viewer, reset)  # clock, can_undo, chat
        msg["is_host"] = viewer is not None and (viewer == self.host_seat or (
            self.host_player is not None and self.seats[viewer].player == self.host_player))  # lobby.py
        return msg


WAITING_NOTE = "The game starts when every seat is taken or when the host starts it."
SEED_NOTE = ("The deal was fixed by the table's creator, who chose its seed: "
             "they can know every hidden card and the order of what is drawn.")


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


def creator_key(address: str | None) -> str | None:
    """What is stored of a creator's address: a short hash (lobby fairness), never the address."""
    if not address:
        return None
    return hashlib.sha256(("gemtable:" + address).encode("utf-8", "surrogatepass")).hexdigest()[:16]


class FairPool:
    """Runs bot thinking in worker threads, sharing them fairly between tables.

    Start-time fair queueing: each table (key) is charged the thread time its
    jobs used; a free worker takes the waiting table that has used the least
    (a table returning after a pause starts from the current virtual time,
    not from zero).  A table whose bot thinks for its full budget every move
    therefore waits behind the cheap moves of other tables, never the other
    way round: a cheap move waits at most for the one job already running.
    One job per table runs at a time, in the order the table submitted them.

    Threads, not processes: states and bots stay in this process (no pickling,
    bots keep their state between moves), and per-move budgets are capped
    (``Limits.bot_seconds``), so a job holds a worker for a bounded time.
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self.executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gemtable-bot")
        self.jobs: dict[str, collections.deque] = {}
        self.waiting: list[str] = []  # keys with a job ready to run, in arrival order
        self.running: set[str] = set()
        self.used: dict[str, float] = {}  # thread seconds charged to each key
        self.vtime = 0.0  # the charge of the last job started
        self.wakeup: asyncio.Event | None = None
        self.runners: list[asyncio.Task] = []

    def _start(self) -> None:
        if self.runners:
            return
        self.wakeup = asyncio.Event()
        loop = asyncio.get_running_loop()
        self.runners = [loop.create_task(self._run()) for _ in range(self.workers)]

    async def run(self, key: str, fn: Callable[[], Any]) -> Any:
        self._start()
        future = asyncio.get_running_loop().create_future()
        queue = self.jobs.setdefault(key, collections.deque())
        queue.append((fn, future))
        if key not in self.running and key not in self.waiting:
            self.used[key] = max(self.used.get(key, 0.0), self.vtime)
            self.waiting.append(key)
        self.wakeup.set()
        return await future

    def _next_key(self) -> str:
        best = min(range(len(self.waiting)), key=lambda i: (self.used[self.waiting[i]], i))
        return self.waiting.pop(best)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not self.waiting:
                self.wakeup.clear()
                await self.wakeup.wait()
            key = self._next_key()
            fn, future = self.jobs[key].popleft()
            self.running.add(key)  # one job of a table at a time
            self.vtime = max(self.vtime, self.used[key])
            started = time.perf_counter()
            try:
                if not future.cancelled():
                    try:
                        result = await loop.run_in_executor(self.executor, fn)
                    except Exception as exc:
                        if not future.done():
                            future.set_exception(exc)
                    else:
                        if not future.done():
                            future.set_result(result)
            finally:
                self.used[key] += time.perf_counter() - started
                self.running.discard(key)
                if self.jobs.get(key):
                    self.waiting.append(key)
                else:
                    self.jobs.pop(key, None)
                    if len(self.used) > 10_000:  # forget idle tables' charges
                        for k in [k for k in self.used if k not in self.jobs and k not in self.running]:
                            del self.used[k]

    async def close(self) -> None:
        for task in self.runners:
            task.cancel()
        for task in self.runners:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        self.executor.shutdown(wait=False, cancel_futures=True)


ACTIONS_INSERT = ActionRow.__table__.insert()
DB_THREADS_SHARED = 4  # database threads per worker on PostgreSQL (SQLite: 1)

# database errors worth trying again: locks, lost connections, a server restarting
RETRYABLE = (OperationalError,)


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RETRYABLE) or (isinstance(exc, DBAPIError) and exc.connection_invalidated)


class TableManager:
    """The live tables cached by one server process (a worker; the database is the truth)."""

    def __init__(self, db: Database, bot_delay: float = 0.8, limits: Limits | None = None,
                 bot_workers: int = 1, db_retry_for: float = 8.0, bus: LocalBus | PgBus | None = None,
                 db_threads: int | None = None) -> None:
        self.db = db
        # several workers (PostgreSQL): notices, leases, presence; SQLite: one process owns all
        self.bus = bus if bus is not None else make_bus(db)
        self._notices: dict[str, set[str]] = {}  # table -> kinds of change heard, not yet caught up
        self._notes: dict[str, list[dict[str, Any]]] = {}  # table -> action notices heard (in order)
        self._catching: dict[str, asyncio.Task] = {}
        self._loading: set[str] = set()
        self.bot_delay = bot_delay
        self.limits = limits or Limits()
        self.tables: dict[str, LiveTable] = {}
        self._replays: dict[str, dict[str, Any]] = {}
        self._load_lock = asyncio.Lock()
        self._closing = False
        self.db_retry_for = db_retry_for
        # database threads: SQLite has one writer anyway (more threads only fight the event loop for
        # the GIL and wait on the file lock); PostgreSQL's round trips overlap in a few threads
        if db_threads is None:
            db_threads = DB_THREADS_SHARED if db.shared else 1
        self._db_pool = ThreadPoolExecutor(max_workers=max(1, db_threads), thread_name_prefix="gemtable-db")
        # PostgreSQL with psycopg 3: actions are stored from the event loop (no thread per commit)
        self._actions = ActionStore(db.url) if db.one_statement else None
        self.bot_pool = FairPool(bot_workers)
        self._maintenance: asyncio.Task | None = None
        self.finish_hooks: list[Callable[[LiveTable], None]] = []  # called once a table's game is over
        self.inplay = inplay.InPlay(self)  # clocks, away seats, chat, undo, rematch

    # -- the database, off the event loop ----------------------------------------
    async def run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a database call in a database thread; retry lock and connection errors with backoff.

        Raises Rejected("storage", 503) when the database stays unavailable for
        ``db_retry_for`` seconds.
        """
        loop = asyncio.get_running_loop()
        return await self._retrying(lambda: loop.run_in_executor(self._db_pool, fn, *args),
                                    getattr(fn, "__name__", str(fn)))

    async def _retrying(self, attempt: Callable[[], Any], name: str, passing: tuple = ()) -> Any:
        """Await ``attempt()``, again with backoff while it fails with a lock or connection error.

        Rejected, Conflict and ``passing`` errors go to the caller; after ``db_retry_for`` seconds
        (or any other error) Rejected("storage", 503).
        """
        delay, waited = 0.05, 0.0
        while True:
            try:
                return await attempt()
            except (Rejected, Conflict, *passing):
                raise
            except Exception as exc:
                if not _retryable(exc) or waited >= self.db_retry_for or self._closing:
                    log.error("database call %s failed: %s", name, exc)
                    raise Rejected("storage", "The database is not available right now; nothing changed. "
                                   "Try again in a moment.", 503, retry_after=2) from None
                log.warning("database busy (%s); trying again in %.2fs", type(exc).__name__, delay)
                await asyncio.sleep(delay)
                waited += delay
                delay = min(delay * 2, 1.0)

    async def healthy(self, timeout: float = 3.0) -> bool:
        """The database answers a trivial query within ``timeout`` seconds (no retries)."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(self._db_pool, self.db.ping), timeout)
            return True
        except Exception as exc:
            log.warning("health check: the database did not answer (%s)", type(exc).__name__)
            return False

    # -- creation ------------------------------------------------------------
    async def create(self, game_id: Any, players: Any, options: Any, seats: Any, seed: Any = None,
                     creator: str | None = None, lobby: Callable[[LiveTable], None] | None = None,
                     clock: Any = None) -> LiveTable:
        if not isinstance(game_id, str) or game_id not in all_games():
            known = ", ".join(sorted(all_games()))
            raise Rejected("unknown_game", f"There is no game {shown(game_id)} (games: {known}).", 404)
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
                name = self._name(spec.get("name"), f"Player {i + 1}", i)
                built.append(Seat(i, "human", None, name, secrets.token_urlsafe(18)))
            elif kind == "bot":
                bot = spec.get("bot", "easy")
                if not isinstance(bot, str) or not bot.strip() or len(bot) > 200:
                    raise Rejected("bad_seats", f"Seat {i + 1}: 'bot' must be a bot level or spec.", 422)
                try:
                    check_bot_spec(bot, self.limits)
                except BotLimitError as exc:
                    raise Rejected("bot_limit", f"Seat {i + 1}: {exc}.", 422) from None
                except Exception as exc:  # unknown bot, bad parameters
                    raise Rejected("bad_bot", f"Seat {i + 1}: {exc}", 422) from None
                label = f"Bot {i + 1} ({bot})"  # a long bot spec: the seat is just "Bot N"
                name = self._name(spec.get("name"), label if len(label) <= MAX_NAME else f"Bot {i + 1}", i)
                built.append(Seat(i, "bot", bot, name, secrets.token_urlsafe(18)))
            else:
                raise Rejected("bad_seats", f"Seat {i + 1}: kind must be 'human' or 'bot', not {shown(kind)}.", 422)
        chosen = seed is not None
        if seed is None:
            seed = secrets.randbits(62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Rejected("bad_seed", "'seed' must be a whole number in [0, 2**62).", 422)
        table_id = secrets.token_hex(5)
        now = utcnow()
        table = self._build(table_id, game, players, opts, seed, built, [], now, now)
        table.seed_chosen = chosen
        if lobby is not None:
            lobby(table)  # open/me seats, private, host (lobby.py)
        self.inplay.init_table(table, self.inplay.parse_clock(clock))  # time control (inplay.py)

        def store() -> None:
            with self.db.session() as s:
                s.add(TableRow(
                    id=table_id, game_id=game.id, num_players=players, options=opts, seed=seed,
                    status="waiting" if table.waiting else "running", created_at=now, updated_at=now,
                    seed_chosen=chosen, creator=creator_key(creator), private=table.private,
                    host_seat=table.host_seat, host_player=table.host_player,
                ))
                s.flush()
                for seat in built:
                    s.add(SeatRow(table_id=table_id, seat=seat.seat, kind=seat.kind, bot=seat.bot,
                                  name=seat.name, token=seat.token, player_id=seat.player, open_seat=seat.open))
                self.inplay.store_new(s, table)
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
            raise Rejected("bad_name", f"Seat {i + 1}: {exc}.", 422) from None

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
            table.checkpoints.append(inplay.is_checkpoint(state, player, action))
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
                    raise Rejected("no_table", "There is no such table.", 404)
                self._loading.add(table_id)  # notices heard meanwhile are kept (caught up below)
                try:
                    loaded = await self.run_db(self._read_table, table_id)
                    table = self._load(table_id, loaded)
                    await self.inplay.load_extras(table)
                    if self.bus.shared:
                        table.remote_seats = await self.run_db(self.bus.read_presence, table_id)
                finally:
                    self._loading.discard(table_id)
                self.tables[table_id] = table
                self.wake_bots(table)
                if self._notices.get(table_id):
                    self._schedule_catch_up(table_id)
        return table

    def _read_table(self, table_id: str) -> Any:
        """A table's rows (a database thread): table, seats, actions, removed players."""
        from sqlalchemy import select

        with self.db.session() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            kicked = set(s.scalars(select(KickedRow.player_id).where(KickedRow.table_id == table_id)))
            return row, list(row.seats), list(row.actions), kicked

    def _load(self, table_id: str, loaded: Any) -> LiveTable:
        if loaded is None:
            raise Rejected("no_table", f"There is no table {shown(table_id)}.", 404)
        row, seat_rows, action_rows, kicked = loaded
        try:
            game = get_game(row.game_id)
        except KeyError:
            raise Rejected("no_game", f"Table {table_id} is a game of {row.game_id!r}, which is not installed.", 410) from None
        seats = [Seat(r.seat, r.kind, r.bot, r.name, r.token, bool(getattr(r, "joined", False))) for r in seat_rows]
        actions = [(a.seat, a.action) for a in action_rows]
        try:
            table = self._build(table_id, game, row.num_players, row.options or {}, row.seed, seats, actions,
                                row.created_at, row.updated_at)
            table.seed_chosen = bool(getattr(row, "seed_chosen", False))
            table.rev = int(getattr(row, "rev", 0) or 0)
            table.kicked = set(kicked)
            from .lobby import restore

            restore(table, row, seat_rows)
            return table
        except (GemtableError, KeyError, ValueError) as exc:
            raise Rejected("broken_table", f"Table {table_id} cannot be replayed: {exc}", 410) from None

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
        out = []
        rows = await self.run_db(self.db.list_tables, self.limits.lobby_size, self.limits.lobby_per_creator)
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
            from .lobby import row_fields

            row_fields(row, out[-1])  # private, host, per seat open/player/away
        return out

    # -- actions -------------------------------------------------------------
    async def submit(self, table: LiveTable, seat: int, data: Any, version: Any,
                     bot_epoch: int | None = None, token: str | None = None) -> list[dict[str, Any]]:
        """Validate, apply, commit, broadcast.  Raises Rejected (nothing changes).

        ``bot_epoch``: a bot's move, refused (stale) if the seat was taken back or a move
        undone since the bot started thinking.  ``token``: a person's move, refused
        (``seat_lost``) unless the seat still has that token when the move is judged, also
        after catching up with a change made at another worker.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise Rejected("malformed", "An action message must carry the integer 'version' it was chosen at.", 422)
        for _attempt in range(4):
            try:
                return await self._submit_once(table, seat, data, version, bot_epoch, token)
            except Conflict:
                # another worker changed the table first: catch this copy up, then judge the
                # action again (still valid when only another seat's simultaneous pick came first)
                await self.catch_up(table, {"reload"} if table.waiting else {"action"})
                if bot_epoch is not None:
                    break  # a bot chose on an old position: it chooses again
        raise Rejected("stale", "The table changed while your action was stored: look again and choose anew.", 409)

    async def _submit_once(self, table: LiveTable, seat: int, data: Any, version: int,
                           bot_epoch: int | None, token: str | None = None) -> list[dict[str, Any]]:
        async with table.lock:
            if token is not None and not table.token_holds(seat, token):
                raise Rejected("seat_lost", SEAT_LOST, 403)
            if table.over:
                raise Rejected("over", "The game is over: no more actions can be taken.", 409)
            if table.waiting:
                raise Rejected("waiting", "The game has not started: it waits for players to join "
                               "or for the host to start it.", 409)
            if bot_epoch is not None and not self.inplay.bot_may_move(table, seat, bot_epoch):
                raise Rejected("stale", "The seat's player plays it again (or a move was taken back).", 409)
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
                raise Rejected("illegal", exc.reason, 409) from None
            except Exception:
                raise Rejected("malformed", "The action is not a valid JSON action object.", 422) from None
            reason = table.state.check(seat, action)
            if reason is not None:
                raise Rejected("illegal", reason, 409)
            checkpoint = inplay.is_checkpoint(table.state, seat, action)  # asked before applying
            movers = table.state.to_move()
            # apply to a copy: while the commit is under way, readers still see the last stored state
            after = table.state.clone()
            try:
                events = after.apply(seat, action)
            except IllegalAction as exc:
                raise Rejected("illegal", exc.reason, 409) from None
            except Exception:
                log.exception("engine error on %s at table %s", action, table.id)
                raise Rejected("engine_error", "The game engine failed on that action; nothing changed.", 500) from None
            index = table.version
            now = utcnow()
            result = self.inplay.result_extras(table, _result(after) if after.is_over() else None)
            clocks, store_clocks = self.inplay.before_commit(table, seat, after)  # same transaction
            play = clocks.to_json() if clocks is not None else None
            rematch = clocks.rematch if clocks is not None else None
            if self._actions is not None:  # PostgreSQL: one statement, awaited on the event loop
                await self._store_action(table.id, index, seat, action.to_json(), now, result,
                                         expected=table.rev, nonce=secrets.token_hex(8), play=play, rematch=rematch)
            else:
                await self.run_db(functools.partial(self._commit, expected=table.rev, nonce=secrets.token_hex(8),
                                                 play=play),
                               table.id, index, seat, action.to_json(), now, result, store_clocks)
            table.rev += 1
            table.state = after
            table.checkpoints.append(checkpoint)
            self.inplay.after_commit(table, clocks)
            table.updated_at = now
            table.match.record(seat, action)
            table.events.append(events)
            table.refresh_decisions(seat)
            self._replays.pop(table.id, None)
            self._tell_bots(table, index, seat, action, movers, events)
        self.broadcast(table)
        self.wake_bots(table)
        if table.over:
            for hook in self.finish_hooks:  # ratings (ratings.py)
                hook(table)
        return events

    def _notice(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
                expected: int, play: dict[str, Any] | None) -> tuple[str, str] | None:
        """The notice stored action ``index`` sends on commit: it carries the action (and ``play``,
        the clocks stored with it), so other workers one revision behind apply it without reading
        (``_apply_notes``)."""
        fields: dict[str, Any] = {"v": index + 1, "r": expected + 1, "s": seat, "a": action, "u": now.isoformat()}
        if play is not None:
            fields["p"] = play
        return self.bus.action_notice(table_id, **fields)

    def _stored_by(self, table_id: str, index: int, nonce: str | None) -> bool:
        """(A database thread) Is action ``index`` stored, by the submission that carries ``nonce``?"""
        with self.db.session() as s:
            row = s.get(ActionRow, (table_id, index))
            return row is not None and nonce is not None and row.nonce == nonce

    async def _store_action(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
                            result: dict[str, Any] | None, expected: int, nonce: str,
                            play: dict[str, Any] | None = None, rematch: str | None = None) -> None:
        """Store action ``index`` on PostgreSQL: one statement (``db.ActionStore``) moves the table
        row from revision ``expected`` to the next, inserts the action, upserts the clocks
        (``play``, ``rematch``) and sends the notice on commit — one round trip, awaited here.

        A stale revision or a taken index stores nothing: ``Conflict``, unless the stored row is
        this very submission (an earlier attempt committed but its acknowledgement was lost).
        A lost connection is tried again with backoff for ``db_retry_for`` seconds, then
        Rejected("storage", 503) like every other database call.
        """
        notice = self._notice(table_id, index, seat, action, now, expected, play)
        params = {"id": table_id, "expected": expected, "rev": expected + 1, "updated": now,
                  "index": index, "seat": seat, "action": json.dumps(action, separators=(",", ":")),
                  "nonce": nonce, "channel": notice[0], "payload": notice[1],
                  "result": json.dumps(result) if result is not None else None,
                  "play": json.dumps(play) if play is not None else None, "rematch": rematch}
        try:
            stored = await self._retrying(
                lambda: self._actions.store(params, finished=result is not None, clocks=play is not None),
                "store_action", passing=(IntegrityError,))
        except IntegrityError:  # the index is taken
            stored = False
        if not stored and not await self.run_db(self._stored_by, table_id, index, nonce):
            raise Conflict(table_id)

    def _commit(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
                result: dict[str, Any] | None, extra: Callable[[Any], None] | None = None,
                expected: int = 0, nonce: str | None = None, play: dict[str, Any] | None = None) -> None:
        """Store action ``index`` (a database thread; SQLite, or PostgreSQL without psycopg 3's
        pool), one transaction.  Safe to run again after a failure.

        The table row moves from revision ``expected`` to the next (``db.bump``: a worker with a
        stale copy stores nothing and gets ``Conflict``); the notice (``_notice``, carrying ``play``,
        the clocks), sent by the same statement, goes out on commit; ``extra`` writes the clocks in
        the same transaction.
        """
        try:
            notice = self._notice(table_id, index, seat, action, now, expected, play)
            values: dict[str, Any] = {"updated_at": now}
            if result is not None:
                values["status"] = "finished"
                values["result"] = result
            # SQLAlchemy Core on one connection (no ORM session: this is the per-action hot path)
            with self.db.engine.begin() as conn:
                bump(conn, table_id, expected, notify=notice, **values)
                conn.execute(ACTIONS_INSERT, {"table_id": table_id, "index": index, "seat": seat,
                                              "action": action, "created_at": now, "nonce": nonce})
                if extra is not None:
                    extra(conn)  # the clocks (inplay.py), stored with the action
        except (Conflict, IntegrityError):
            # an earlier attempt reached the database after all (the connection broke after the
            # commit): fine when the stored row is this very submission; else another writer won
            if self._stored_by(table_id, index, nonce):
                return
            raise Conflict(table_id) from None

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

    # -- subscribers ---------------------------------------------------------
    # Nothing here awaits a socket: messages are queued (Subscriber.push).
    def broadcast(self, table: LiveTable) -> None:
        """Every subscriber its own view: the public summary is built once, and spectators who
        saw the same version share one message (what they are sent is the same)."""
        if not table.subscribers:
            return
        summary = table.summary()
        shared: dict[int, str] = {}  # spectators' messages (encoded once) by the version they saw
        for sub in list(table.subscribers):
            if not table.holds(sub):
                self.revoke(table, sub)
            elif sub.seat is None:
                msg = shared.get(sub.sent_version)
                if msg is None:
                    msg = shared[sub.sent_version] = encode_message(table.payload(None, sub.sent_version, summary))
                self._push_state(table, sub, msg)
            else:
                self._push_state(table, sub, table.payload(sub.seat, sub.sent_version, summary))

    def send_state(self, table: LiveTable, sub: Subscriber) -> None:
        if not table.holds(sub):
            self.revoke(table, sub)
            return
        self._push_state(table, sub, table.payload(sub.seat, sub.sent_version))

    def revoke(self, table: LiveTable, sub: Subscriber) -> None:
        """End a connection whose seat is no longer its holder's: it gets an ``error``
        (``seat_lost``) and is closed with CLOSE_SEAT_LOST; from now on it is sent nothing.

        Called wherever a seat connection is about to be sent something or to act, so a seat
        change made here or at another worker (caught up from its notice) ends the old
        holder's connections before anything of the seat reaches them."""
        table.subscribers.discard(sub)
        sub.end(CLOSE_SEAT_LOST, "this seat is no longer yours",
                {"type": "error", "code": "seat_lost", "message": SEAT_LOST, "version": table.version})

    def revoke_lost(self, table: LiveTable) -> int:
        """End every connection at ``table`` whose seat is no longer its holder's (``revoke``)."""
        lost = [sub for sub in table.subscribers if not table.holds(sub)]
        for sub in lost:
            self.revoke(table, sub)
        return len(lost)

    def _push_state(self, table: LiveTable, sub: Subscriber, msg: dict[str, Any] | str) -> None:
        sub.sent_version = table.version
        if not sub.push(msg):
            table.subscribers.discard(sub)

    def subscribe(self, table: LiveTable, sub: Subscriber) -> LiveTable:
        """Send ``sub`` the table's changes from now on; returns the copy it follows.

        That is ``table`` unless this worker let it go meanwhile (``on_notify``): then the copy
        cached now (``table`` again if there is none), re-read from the database at once.
        """
        cached = self.tables.get(table.id)
        if cached is not table:
            if cached is None:
                self.tables[table.id] = cached = table
            self._notices.setdefault(table.id, set()).add("reload")
            self._schedule_catch_up(table.id)
            table = cached
        table.subscribers.add(sub)
        self.send_state(table, sub)
        self.broadcast_presence(table, exclude=sub)
        self.bus.presence_changed(table)  # other workers learn the seat is connected
        return table

    def unsubscribe(self, table: LiveTable, sub: Subscriber) -> None:
        table.subscribers.discard(sub)
        self.inplay.disconnected(table, sub)  # since when the seat is away (clocks)
        self.broadcast_presence(table)
        self.bus.presence_changed(table)
        if table.over and not table.subscribers and self.tables.get(table.id) is table:
            del self.tables[table.id]  # finished and unwatched: reloaded from the database on demand

    def broadcast_presence(self, table: LiveTable, exclude: Subscriber | None = None) -> None:
        if not any(other is not exclude for other in table.subscribers):
            return
        msg = encode_message({"type": "presence", "table": table.summary()})
        for other in list(table.subscribers):
            if other is exclude:
                continue
            if not table.holds(other):
                self.revoke(table, other)
            elif not other.push(msg):
                table.subscribers.discard(other)

    # -- several workers: changes made at other workers (bus.py) -------------------------
    # A notice names a table and a kind of change; the rows are read here.  Notices of one
    # table are handled one batch at a time (``_drain``), so a burst costs one catch-up.
    FULL_KINDS = frozenset({"undo", "seats", "reload"})

    def on_notify(self, msg: dict[str, Any]) -> None:
        table_id, kind = msg.get("t"), msg.get("k")
        if not isinstance(table_id, str) or not isinstance(kind, str):
            return
        if kind == "deleted":
            live = self.tables.pop(table_id, None)
            if live is not None and live.bot_task is not None:
                live.bot_task.cancel()
            return
        if table_id not in self.tables and table_id not in self._loading:
            return  # not cached here: read from the database when someone asks for it
        if self._idle_here(table_id):  # nobody here needs it: no catching up, read again if asked
            del self.tables[table_id]
            self._notices.pop(table_id, None)
            self._notes.pop(table_id, None)
            return
        self._notices.setdefault(table_id, set()).add(kind)
        if kind == "action":
            self._notes.setdefault(table_id, []).append(msg)
        if table_id in self.tables:
            self._schedule_catch_up(table_id)

    # a copy not asked for here for this long, with nobody at it here, is let go (``_idle_here``)
    IDLE_AFTER = 15.0

    def _idle_here(self, table_id: str) -> bool:
        """Whether this worker may stop following ``table_id``: it is cached, nobody is connected
        to it here, this worker does not drive its bots and clocks (the lease, bus.py), nothing
        here is loading, changing or playing it, and it was not asked for in ``IDLE_AFTER``
        seconds.  A worker that created a table its players then play at another worker (a
        balancer routing by table, docs/deploy.md) would otherwise apply every move of it."""
        table = self.tables.get(table_id)
        return (table is not None and self.bus.shared and not table.subscribers
                and not self.bus.owns(table_id) and table_id not in self._loading
                and not table.lock.locked() and (table.bot_task is None or table.bot_task.done())
                and time.monotonic() - table.used > self.IDLE_AFTER)

    def catch_up_all(self) -> None:
        """Notices may have been missed (the LISTEN connection was lost): re-read every cached table."""
        for table_id in list(self.tables):
            self._notices.setdefault(table_id, set()).update({"reload", "presence", "chat"})
            self._schedule_catch_up(table_id)

    def _schedule_catch_up(self, table_id: str) -> None:
        task = self._catching.get(table_id)
        if task is None or task.done():
            self._catching[table_id] = asyncio.get_running_loop().create_task(self._drain(table_id))

    async def _drain(self, table_id: str) -> None:
        try:
            while not self._closing:
                kinds = self._notices.pop(table_id, None)
                notes = self._notes.pop(table_id, None)
                table = self.tables.get(table_id)
                if not kinds or table is None:
                    return
                try:
                    await self.catch_up(table, kinds, notes)
                except Rejected as exc:  # the database is away: try again in a moment
                    log.warning("table %s not caught up (%s); retrying", table_id, exc.code)
                    self._notices.setdefault(table_id, set()).update(kinds)
                    await asyncio.sleep(1.0)
                except Exception:
                    log.exception("catching up table %s failed; reloading it", table_id)
                    self._notices.setdefault(table_id, set()).add("reload")
                    await asyncio.sleep(1.0)
        finally:
            if self._catching.get(table_id) is asyncio.current_task():
                del self._catching[table_id]

    async def catch_up(self, table: LiveTable, kinds: set[str], notes: list[dict[str, Any]] | None = None) -> None:
        """Bring the cached ``table`` up to the database and tell this worker's subscribers.

        ``action``: append the actions stored since (and the clocks); ``play``/``chat``: the
        clocks and flags, the new chat lines; ``undo``/``seats``/``reload``: rebuild the table
        from its rows; ``presence``: the seats connected at other workers.

        ``notes``: the action notices heard.  When actions are all that changed and the notices
        carry them, one after the other from this copy's revision, they are applied without
        reading the database (``_apply_notes``); anything else (a gap, a notice without its
        action, another kind of change) reads the rows.
        """
        kinds = set(kinds)
        was_over = table.over
        presence = False
        if "presence" in kinds:
            presence = self._set_remote(table, await self.run_db(self.bus.read_presence, table.id))
        changed = reset = False
        rematch, lines = None, []
        if kinds - {"presence"}:
            async with table.lock:
                full = bool(kinds & self.FULL_KINDS)
                with_chat = full or bool(kinds & {"chat", "play"})
                # lines may be committed out of id order by different workers: re-read a window
                recent = list(table.chat or ())[-20:]
                known = {line["id"] for line in table.chat or ()}
                after = min(line["id"] for line in recent) - 1 if recent else 0
                fast = None  # True/False: applied from the notices (changed or not); None: read
                if not full and not with_chat and notes and kinds - {"presence"} == {"action"}:
                    fast = self._apply_notes(table, notes)
                if fast is not None:
                    changed = fast
                    if changed:
                        self._replays.pop(table.id, None)
                else:
                    data = await self.run_db(self._read_changes, table.id, table.version, full,
                                          after if with_chat else None)
                    if data is None:  # removed meanwhile
                        self.on_notify({"t": table.id, "k": "deleted"})
                        return
                    if not full and not self._appendable(table, data):
                        data = await self.run_db(self._read_changes, table.id, table.version, True,
                                              after if with_chat else None)
                        full = True
                    if data["rev"] != table.rev or data["actions"] or full:
                        changed = True
                        if full:
                            reset = self._rebuild(table, data)
                        else:
                            self._append(table, data)
                        table.rev = data["rev"]
                        rematch = self.inplay.install_play(table, data["play"], data["rematch"], bump=full)
                        self._replays.pop(table.id, None)
                    lines = [line for line in data["chat"] if line["id"] not in known]
        if reset:
            for sub in table.subscribers:
                sub.sent_version = -1  # the log shrank: everyone starts again from their own view
        if changed:
            self.broadcast(table)
        if rematch is not None:
            await self.inplay.announce_rematch(table, rematch)
        if lines:
            self.inplay._push_lines(table, lines)
        if presence or (changed and kinds & {"play", "seats"}):
            self.broadcast_presence(table)
        if changed:
            self.wake_bots(table)
            if table.over and not was_over:
                for hook in self.finish_hooks:  # ratings: claimed in the database, so rated once
                    hook(table)

    def _apply_notes(self, table: LiveTable, notes: list[dict[str, Any]]) -> bool | None:
        """Apply the actions carried by ``notes`` (under the table's lock) without reading.

        Notices this copy already has (an earlier read covered them) are skipped; the rest must
        each carry its action and follow one another from this copy's revision and version.
        None (nothing changed) when they do not: the caller reads the rows instead.  True when
        actions were applied, False when there was nothing new.
        """
        rev, version = table.rev, table.version
        todo = []
        for note in notes:
            r, v = note.get("r"), note.get("v")
            if not isinstance(r, int) or not isinstance(v, int):
                return None
            if r <= rev and not todo:
                if v > version:
                    return None  # the revision is known but not the action: read
                continue  # already here
            if r != rev + 1 or v != version + 1 or not isinstance(note.get("s"), int) \
                    or not 0 <= note["s"] < table.num_players or "a" not in note or "u" not in note:
                return None  # a gap, or a notice too big to carry its action
            todo.append(note)
            rev, version = r, v
        if not todo:
            return False
        for note in todo:  # a failure part-way raises: the caller's caller rebuilds the table
            seat = note["s"]
            action = table.game.action_from_json(note["a"])
            table.checkpoints.append(inplay.is_checkpoint(table.state, seat, action))
            index, movers = table.version, table.state.to_move()
            table.events.append(table.state.apply(seat, action))
            table.match.record(seat, action)
            self._tell_bots(table, index, seat, action, movers, table.events[-1])
            table.refresh_decisions(seat)
            table.rev = note["r"]
            table.updated_at = dt.datetime.fromisoformat(note["u"])
            if note.get("p") is not None:  # the clocks stored with the action
                self.inplay.install_play(table, note["p"], self.inplay.play(table).rematch)
        return True

    def _set_remote(self, table: LiveTable, seats: set[int]) -> bool:
        before = table.connected_seats()
        table.remote_seats = set(seats)
        after = table.connected_seats()
        if after != before:
            play = self.inplay.play(table)
            now = self.inplay.now()
            for p in before - after:
                play.gone_since[p] = now  # since when the seat is away (clocks)
        return after != before

    def _read_changes(self, table_id: str, version: int, full: bool, chat_after: int | None) -> dict[str, Any] | None:
        """What changed (a database thread, one consistent snapshot on PostgreSQL)."""
        from sqlalchemy import select

        from . import chat as chatmod
        from .db import ChatRow, PlayRow

        with self.db.session() as s:
            if self.db.shared:
                s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            out: dict[str, Any] = {"rev": int(row.rev or 0), "row": row}
            if full:
                out["seats"] = list(row.seats)
                out["all_actions"] = list(row.actions)
                out["kicked"] = set(s.scalars(select(KickedRow.player_id).where(KickedRow.table_id == table_id)))
                out["actions"] = []
            else:
                out["actions"] = list(s.scalars(select(ActionRow).where(
                    ActionRow.table_id == table_id, ActionRow.index >= max(0, version - 1)).order_by(ActionRow.index)))
            play = s.get(PlayRow, table_id)
            out["play"], out["rematch"] = (play.data, play.rematch) if play is not None else (None, None)
            out["chat"] = []
            if chat_after is not None:
                rows = s.scalars(select(ChatRow).where(ChatRow.table_id == table_id, ChatRow.id > chat_after)
                                 .order_by(ChatRow.id.desc()).limit(chatmod.KEEP)).all()
                out["chat"] = [chatmod.line_json(r) for r in reversed(rows)]
            return out

    @staticmethod
    def _same(a: Any, b: Any) -> bool:
        import json

        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)

    def _appendable(self, table: LiveTable, data: dict[str, Any]) -> bool:
        """The stored history is this copy's history plus new actions (nothing rewritten)."""
        rows = data["actions"]
        v = table.version
        if v > 0:
            if not rows or rows[0].index != v - 1:
                return False
            seat, action = table.match.actions[-1]
            if rows[0].seat != seat or not self._same(rows[0].action, action):
                return False
            rows = rows[1:]
        if any(r.index != v + i for i, r in enumerate(rows)):
            return False
        data["actions"] = rows
        return True

    def _append(self, table: LiveTable, data: dict[str, Any]) -> None:
        for r in data["actions"]:
            action = table.game.action_from_json(r.action)
            table.checkpoints.append(inplay.is_checkpoint(table.state, r.seat, action))
            index, movers = table.version, table.state.to_move()
            table.events.append(table.state.apply(r.seat, action))
            table.match.record(r.seat, action)
            self._tell_bots(table, index, r.seat, action, movers, table.events[-1])
            table.refresh_decisions(r.seat)
        table.updated_at = data["row"].updated_at

    def _rebuild(self, table: LiveTable, data: dict[str, Any]) -> bool:
        """Replace the copy's contents by the stored table; True when its history was rewritten."""
        fresh = self._load(table.id, (data["row"], data["seats"], data["all_actions"], data["kicked"]))
        old = table.match.actions
        rewritten = len(fresh.match.actions) < len(old) or not self._same(fresh.match.actions[:len(old)], old)
        for name in ("seats", "match", "state", "events", "checkpoints", "decision_since", "legal_ids", "waiting",
                     "private", "host_seat", "host_player", "kicked", "updated_at", "seed_chosen"):
            setattr(table, name, getattr(fresh, name))
        table.bots = {}
        return rewritten

    async def took_over(self, table_id: str) -> None:
        """This worker now holds the table's lease (bus.py): it drives its bots and clocks."""
        try:
            known = table_id in self.tables
            table = await self.get(table_id)
            if known:
                await self.catch_up(table, {"action"})
            await self.inplay.take_over(table)
            log.info("worker %s drives table %s", self.bus.worker, table_id)
        except Rejected as exc:
            log.warning("table %s taken over but not loaded: %s", table_id, exc.message)
            return
        self.wake_bots(table)

    def lost(self, table_id: str) -> None:
        """The lease went (its connection broke): stop driving the table's bots."""
        table = self.tables.get(table_id)
        if table is not None and table.bot_task is not None and not table.bot_task.done():
            table.bot_task.cancel()

    # -- bots ------------------------------------------------------------------
    def bots_to_move(self, table: LiveTable) -> list[int]:
        if table.waiting:
            return []
        return [p for p in table.state.to_move() if self.inplay.bot_plays(table, p)]  # bots and away seats

    def wake_bots(self, table: LiveTable) -> None:
        # only the worker holding the table's lease moves its bots (bus.py)
        if self._closing or not self.bus.owns(table.id) or not self.bots_to_move(table):
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: resume_all wakes them at start-up
        table.bot_task = loop.create_task(self._run_bots(table))

    async def _run_bots(self, table: LiveTable) -> None:
        """Play the bots' moves until a person is to move; never give up on a database error."""
        failures = 0
        while not self._closing:
            if not self.bots_to_move(table) or self.tables.get(table.id) is not table \
                    or not self.bus.owns(table.id):
                return
            await asyncio.sleep(self.bot_delay if not failures else min(30.0, 0.5 * 2 ** (failures - 1)))
            try:
                done = await self._bot_move(table)
            except Rejected as exc:  # the database is away: wait and try again
                failures += 1
                log.warning("bot move at table %s not stored (%s); retry %d", table.id, exc.code, failures)
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                log.exception("bot at table %s failed; retry %d", table.id, failures)
                continue
            failures = 0
            if done:
                return

    async def _bot_move(self, table: LiveTable) -> bool:
        """One bot move.  True when there is nothing more to do; raises Rejected("storage")."""
        async with table.lock:
            movers = self.bots_to_move(table)
            if not movers:
                return True
            p = movers[0]
            version = table.version
            seed = (table.seed * 1_000_003 + version * 101 + p) & ((1 << 62) - 1)
            try:
                snapshot = table.state.determinize(p, Rng(seed))
            except Exception:  # a game without a working determinize: give a clone
                snapshot = table.state.clone()
            bot = self._bot(table, p, seed)
            epoch = self.inplay.bot_epoch(table)
        try:
            action = await self.bot_pool.run(table.id, lambda: bot.choose(snapshot, p))
            data = action.to_json()
        except Exception:
            log.exception("bot of seat %s at table %s failed; playing a random move", p, table.id)
            acts = table.state.legal_actions(p)
            if not acts:
                return True
            data = acts[Rng(seed).below(len(acts))].to_json()
        try:
            await self.submit(table, p, data, version, bot_epoch=epoch)
        except Rejected as exc:
            if exc.code == "illegal":  # the bot chose something illegal: play a random legal move
                log.warning("bot at table %s seat %s chose an illegal move: %s", table.id, p, exc.message)
                acts = table.state.legal_actions(p)
                if acts:
                    await self.submit(table, p, acts[Rng(seed).below(len(acts))].to_json(), table.version,
                                      bot_epoch=epoch)
            elif exc.code == "storage":
                raise
            elif exc.code != "stale":
                return True
        return False

    @staticmethod
    def _tell_bots(table: LiveTable, index: int, seat: int, action: Any, movers: tuple[int, ...],
                   events: list[dict[str, Any]]) -> None:
        """Tell the table's bots (``Bot.observe``) about the ``index``-th action, just applied.

        Bots live across moves here, so a bot that keeps a search tree (``mcts:reuse=1``)
        follows the game.  Actions not told (an undo, a rebuilt copy) are first told as an
        unknown action, so such a bot drops its tree instead of following a stale one.
        """
        if table.bots:  # (imported here, and only for tables with bots: a server without bots never loads them)
            from gemtable.bots.base import tell_bots, wants_observations

            if wants_observations(table.bots):
                try:
                    if table.bots_told != index:
                        for bot in table.bots.values():
                            if bot.observes:
                                bot.observe(table.state, seat, None)
                    tell_bots(table.bots, table.state, seat, action, movers, events)
                except Exception:  # a bot's bookkeeping must never lose an accepted action
                    log.exception("bot observe failed at table %s", table.id)
        table.bots_told = index + 1

    def _bot(self, table: LiveTable, p: int, seed: int):
        from gemtable.bots import make_bot

        bot = table.bots.get(p)
        if bot is None:
            spec = table.seats[p].bot or (inplay.AWAY_BOT if table.seats[p].kind != "bot" else "easy")
            try:
                # a spec stored before the server's limits (or by hand) is brought within them
                bot = make_bot(clamped_spec(spec, self.limits), seed)
            except Exception:
                log.warning("unknown bot %r at table %s; using random", spec, table.id)
                bot = make_bot("random", seed)
            table.bots[p] = clamp_bot(bot, self.limits)
        return table.bots[p]

    # -- upkeep ----------------------------------------------------------------
    def start_maintenance(self) -> None:
        self._maintenance = asyncio.get_running_loop().create_task(self._maintain())
        self.inplay.start()  # clocks: timeouts and the heartbeat

    async def _maintain(self) -> None:
        """Every few seconds: restart bots that stopped; now and then, remove expired tables."""
        last_sweep = 0.0
        loop = asyncio.get_running_loop()
        while not self._closing:
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
            await self.run_db(self._delete, table_id)
            removed.append(table_id)
        if removed:
            log.info("removed %d expired tables", len(removed))
        return removed

    def _delete(self, table_id: str) -> None:
        self.db.delete_table(table_id)
        if self.bus.shared:
            with self.db.session() as s:
                self.bus.publish(s, table_id, "deleted")
                s.commit()

    async def close(self) -> None:
        self._closing = True
        await self.inplay.close()  # stop the clocks' loop, last heartbeat
        await self.bus.close()  # leases and presence rows go; notices stop
        for task in list(self._catching.values()):
            task.cancel()
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
        await self.bot_pool.close()
        if self._actions is not None:
            await self._actions.close()
        self._db_pool.shutdown(wait=True)

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
            "result": self.inplay.result_extras(table, _result(table.state)),  # replaced, took_back
        }
        if len(self._replays) > 32:
            self._replays.pop(next(iter(self._replays)))
        self._replays[table.id] = data
        return data


from . import lobby  # noqa: E402  (lobby.py imports this module: imported once both exist)
