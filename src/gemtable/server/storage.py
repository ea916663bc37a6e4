"""Storage: the database calls of the table core, off the event loop, with retries.

Database calls run in a small pool of threads (``run_db``); a locked SQLite file or a
PostgreSQL restart is retried with backoff for ``retry_for`` seconds before the caller gets
``Rejected("storage", 503)``.  An accepted action is stored by ``store_action`` (PostgreSQL
through psycopg 3: one statement awaited on the event loop) or ``commit`` (a database thread),
which move the table's revision, insert the action, write the table's live record with it
and send the notice other workers hear, all in one transaction.

On a SQLite file the actions are group-committed (``GroupCommit``): the actions accepted
while one commit is on its way to the disk wait for the next and share it, each in its
own savepoint, written with the driver's own statements (no SQLAlchemy on this path).
An action is still acknowledged only once its commit is on disk.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import functools
import json
import logging
import secrets
import sqlite3
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from sqlalchemy import update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from .bus import LocalBus, PgBus
from .db import ActionRow, ActionStore, Conflict, Database, PlayRow, bump
from .table import Rejected

log = logging.getLogger("gemtable.server")

ACTIONS_INSERT = ActionRow.__table__.insert()
DB_THREADS_SHARED = 4  # database threads per worker on PostgreSQL (SQLite: 1)

# database errors worth trying again: locks, lost connections, a server restarting
RETRYABLE = (OperationalError,)


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, RETRYABLE) or (isinstance(exc, DBAPIError) and exc.connection_invalidated)


class Storage:
    """The database of one worker's table core (see the module text)."""

    def __init__(self, db: Database, bus: LocalBus | PgBus, retry_for: float = 8.0,
                 threads: int | None = None) -> None:
        self.db = db
        self.bus = bus
        self.db_retry_for = retry_for
        self.closing = False  # the server stops: no more retries
        # database threads: SQLite has one writer anyway (more threads only fight the event loop for
        # the GIL and wait on the file lock); PostgreSQL's round trips overlap in a few threads
        if threads is None:
            threads = DB_THREADS_SHARED if db.shared else 1
        self._db_pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="gemtable-db")
        # PostgreSQL with psycopg 3: actions are stored from the event loop (no thread per commit)
        self.action_store = ActionStore(db.url) if db.one_statement else None
        # a SQLite file: actions accepted together share one commit
        path = db.engine.url.database if db.engine.dialect.name == "sqlite" else None
        self.group = GroupCommit(self, path) if path and path != ":memory:" else None

    async def run_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a database call in a database thread; retry lock and connection errors with backoff.

        Raises Rejected("storage", 503) when the database stays unavailable for
        ``db_retry_for`` seconds.
        """
        loop = asyncio.get_running_loop()
        return await self.retrying(lambda: loop.run_in_executor(self._db_pool, fn, *args),
                                    getattr(fn, "__name__", str(fn)))

    async def retrying(self, attempt: Callable[[], Any], name: str, passing: tuple = ()) -> Any:
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
                if not _retryable(exc) or waited >= self.db_retry_for or self.closing:
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
    def notice(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
                expected: int, play: dict[str, Any] | None) -> tuple[str, str] | None:
        """The notice stored action ``index`` sends on commit: it carries the action (and ``play``,
        the clocks stored with it), so other workers one revision behind apply it without reading
        (``_apply_notes``)."""
        fields: dict[str, Any] = {"v": index + 1, "r": expected + 1, "s": seat, "a": action, "u": now.isoformat()}
        if play is not None:
            fields["p"] = play
        return self.bus.action_notice(table_id, **fields)

    def stored_by(self, table_id: str, index: int, nonce: str | None) -> bool:
        """(A database thread) Is action ``index`` stored, by the submission that carries ``nonce``?"""
        with self.db.session() as s:
            row = s.get(ActionRow, (table_id, index))
            return row is not None and nonce is not None and row.nonce == nonce

    async def store_action(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
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
        notice = self.notice(table_id, index, seat, action, now, expected, play)
        params = {"id": table_id, "expected": expected, "rev": expected + 1, "updated": now,
                  "index": index, "seat": seat, "action": json.dumps(action, separators=(",", ":")),
                  "nonce": nonce, "channel": notice[0], "payload": notice[1],
                  "result": json.dumps(result) if result is not None else None,
                  "play": json.dumps(play) if play is not None else None, "rematch": rematch}
        try:
            stored = await self.retrying(
                lambda: self.action_store.store(params, finished=result is not None, clocks=play is not None),
                "store_action", passing=(IntegrityError,))
        except IntegrityError:  # the index is taken
            stored = False
        if not stored and not await self.run_db(self.stored_by, table_id, index, nonce):
            raise Conflict(table_id)

    def commit(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
               result: dict[str, Any] | None, expected: int = 0, nonce: str | None = None,
               play: dict[str, Any] | None = None, rematch: str | None = None,
               into: sqlite3.Connection | None = None) -> None:
        """Store action ``index`` (a database thread; SQLite, or PostgreSQL without psycopg 3's
        pool), one transaction.  Safe to run again after a failure.

        ``into``: the group commit's SQLite connection, in its open transaction: the action
        is written there in a savepoint of its own (``GroupCommit.write``), committed with
        the others of its group.

        The table row moves from revision ``expected`` to the next (``db.bump``: a worker with a
        stale copy stores nothing and gets ``Conflict``); the table's live record ``play`` (with
        ``rematch``), when given, is written in the same transaction; the notice (``notice``,
        carrying ``play``), sent by the same statement, goes out on commit.
        """
        if into is not None:
            GroupCommit.write(into, table_id, index, seat, action, now, result, expected, nonce, play, rematch)
            return
        try:
            notice = self.notice(table_id, index, seat, action, now, expected, play)
            values: dict[str, Any] = {"updated_at": now}
            if result is not None:
                values["status"] = "finished"
                values["result"] = result
            # SQLAlchemy Core on one connection (no ORM session: this is the per-action hot path)
            with self.db.engine.begin() as conn:
                bump(conn, table_id, expected, notify=notice, **values)
                conn.execute(ACTIONS_INSERT, {"table_id": table_id, "index": index, "seat": seat,
                                              "action": action, "created_at": now, "nonce": nonce})
                if play is not None:
                    t = PlayRow.__table__
                    values = {"data": play, "rematch": rematch}
                    if conn.execute(update(t).where(t.c.table_id == table_id).values(**values)).rowcount != 1:
                        conn.execute(t.insert().values(table_id=table_id, **values))
        except (Conflict, IntegrityError):
            # an earlier attempt reached the database after all (the connection broke after the
            # commit): fine when the stored row is this very submission; else another writer won
            if self.stored_by(table_id, index, nonce):
                return
            raise Conflict(table_id) from None

    async def store(self, table_id: str, index: int, seat: int, action: dict[str, Any], now: dt.datetime,
                    result: dict[str, Any] | None, expected: int, record: dict[str, Any] | None,
                    tag: str | None) -> None:
        """Store an accepted action (with the table's live ``record`` and ``tag``, if any) from
        revision ``expected``: ``store_action`` on PostgreSQL through psycopg 3, else ``commit``
        in a database thread.  Raises ``Conflict`` or Rejected("storage")."""
        nonce = secrets.token_hex(8)
        if self.action_store is not None:  # PostgreSQL: one statement, awaited on the event loop
            await self.store_action(table_id, index, seat, action, now, result, expected=expected, nonce=nonce,
                                    play=record, rematch=tag)
        elif self.group is not None:  # a SQLite file: with the actions accepted meanwhile
            args = (table_id, index, seat, action, now, result)
            kwargs = {"expected": expected, "nonce": nonce, "play": record, "rematch": tag}
            await self.retrying(lambda: self.group.store(args, kwargs), "commit")
        else:
            await self.run_db(functools.partial(self.commit, expected=expected, nonce=nonce, play=record,
                                                rematch=tag), table_id, index, seat, action, now, result)

    async def close(self) -> None:
        self.closing = True
        if self.action_store is not None:
            await self.action_store.close()
        if self.group is not None:
            await self.group.close()
        self._db_pool.shutdown(wait=True)


def _as_sqlalchemy(exc: Exception) -> Exception:
    """The driver's errors as SQLAlchemy's (what callers handle on every other path)."""
    if isinstance(exc, sqlite3.OperationalError):
        return OperationalError("group commit", None, exc)
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError("group commit", None, exc)
    return exc


@dataclasses.dataclass
class _Line:
    """One event loop's actions waiting for the next group, and the group under way."""

    waiting: list[tuple[tuple, dict[str, Any], asyncio.Future]] = dataclasses.field(default_factory=list)
    flushing: asyncio.Future | None = None


class GroupCommit:
    """SQLite's action commits, grouped: one transaction (one write to disk) for the actions
    accepted while the previous one was under way.

    ``store`` (event loop) queues an action and waits for its group's commit.  A group goes to
    the database thread when none is under way there; meanwhile the next group gathers.  In
    the thread (``flush``) the group is one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``, the
    file's ``synchronous=FULL``: on disk when it returns), each action in a savepoint of its
    own written by ``Storage.commit(…, into=connection)``: an action that fails (a stale
    revision: ``Conflict``) is rolled back alone and the others are stored.  When the
    transaction itself fails (the file locked by another program) every action of the group
    gets that error, and ``Storage.retrying`` tries each again.

    The connection is the driver's (``sqlite3``), opened in the database thread at the first
    group with the pragmas ``Database`` gives its own, in autocommit mode so that the
    transaction is the one begun here.
    """

    UPDATE = "UPDATE gt_tables SET rev = ?, updated_at = ? WHERE id = ? AND rev = ?"
    FINISH = "UPDATE gt_tables SET rev = ?, updated_at = ?, status = 'finished', result = ? WHERE id = ? AND rev = ?"
    INSERT = ('INSERT INTO gt_actions (table_id, "index", seat, action, created_at, nonce) '
              "VALUES (?, ?, ?, ?, ?, ?)")
    PLAY = ("INSERT INTO gt_table_play (table_id, data, rematch) VALUES (?, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET data = excluded.data, rematch = excluded.rematch")
    NONCE = 'SELECT nonce FROM gt_actions WHERE table_id = ? AND "index" = ?'

    def __init__(self, storage: Storage, path: str) -> None:
        self.storage = storage
        self.path = path
        self.conn: sqlite3.Connection | None = None  # (the database thread's)
        self.using = threading.Lock()  # one group at a time on the connection (were there several threads)
        self.timeout = 5.0  # seconds a commit waits for another program's write lock (then it fails)
        # what waits and what is under way, per event loop (one in a server; a test may drive the
        # same app from several): a group's futures belong to the loop that made them
        self.lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Line] = weakref.WeakKeyDictionary()

    async def store(self, args: tuple, kwargs: dict[str, Any]) -> None:
        """Store one action (``Storage.commit``'s arguments) with its group; raises its error."""
        loop = asyncio.get_running_loop()
        line = self.lines.get(loop)
        if line is None:
            line = self.lines[loop] = _Line()
        done = loop.create_future()
        line.waiting.append((args, kwargs, done))
        if line.flushing is None:
            self._next(loop, line)
        await done

    def _next(self, loop: asyncio.AbstractEventLoop, line: _Line) -> None:
        group, line.waiting = line.waiting, []
        line.flushing = loop.run_in_executor(self.storage._db_pool, self.flush, [(a, k) for a, k, _ in group])
        line.flushing.add_done_callback(lambda f: self._flushed(loop, line, group, f))

    def _flushed(self, loop: asyncio.AbstractEventLoop, line: _Line, group: list, flushed: asyncio.Future) -> None:
        line.flushing = None
        exc = flushed.exception() if not flushed.cancelled() else asyncio.CancelledError()
        errors = [exc] * len(group) if exc is not None else flushed.result()
        for (_args, _kwargs, done), error in zip(group, errors):
            if done.done():  # its caller was cancelled
                continue
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)
        if line.waiting:
            self._next(loop, line)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    def flush(self, group: list[tuple[tuple, dict[str, Any]]]) -> list[BaseException | None]:
        """(The database thread) One transaction for ``group``; each action's error or None."""
        with self.using:
            return self._flush(group)

    def _flush(self, group: list[tuple[tuple, dict[str, Any]]]) -> list[BaseException | None]:
        if self.conn is None:
            self.conn = self._connect()
        conn = self.conn
        errors: list[BaseException | None] = [None] * len(group)
        try:
            conn.execute("BEGIN IMMEDIATE")
            for i, (args, kwargs) in enumerate(group):
                try:
                    self.storage.commit(*args, **kwargs, into=conn)
                except Exception as exc:
                    errors[i] = _as_sqlalchemy(exc)
            conn.execute("COMMIT")
        except Exception as exc:  # nothing of the group is stored
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return [_as_sqlalchemy(exc)] * len(group)
        return errors

    @classmethod
    def write(cls, conn: sqlite3.Connection, table_id: str, index: int, seat: int, action: dict[str, Any],
              now: dt.datetime, result: dict[str, Any] | None, expected: int, nonce: str | None,
              play: dict[str, Any] | None, rematch: str | None) -> None:
        """One action in the open transaction, in its own savepoint (see ``Storage.commit``).

        Values are stored as SQLAlchemy stores them (its SQLite date format, JSON text), so the
        ORM reads the rows back as if it had written them."""
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")
        conn.execute("SAVEPOINT act")
        try:
            if result is None:
                cur = conn.execute(cls.UPDATE, (expected + 1, stamp, table_id, expected))
            else:
                cur = conn.execute(cls.FINISH, (expected + 1, stamp, json.dumps(result), table_id, expected))
            if cur.rowcount != 1:
                raise Conflict(table_id)
            conn.execute(cls.INSERT, (table_id, index, seat, json.dumps(action, separators=(",", ":")), stamp, nonce))
            if play is not None:
                conn.execute(cls.PLAY, (table_id, json.dumps(play, separators=(",", ":")), rematch))
        except BaseException as exc:
            conn.execute("ROLLBACK TO act")
            conn.execute("RELEASE act")
            if isinstance(exc, (Conflict, sqlite3.IntegrityError)):
                # an earlier attempt stored it after all (fine when the stored row is this very
                # submission); else another writer won
                row = conn.execute(cls.NONCE, (table_id, index)).fetchone()
                if row is not None and nonce is not None and row[0] == nonce:
                    return
                raise Conflict(table_id) from None
            raise
        conn.execute("RELEASE act")

    async def close(self) -> None:
        """Wait for this loop's group under way; close the connection (in the database thread)."""
        line = self.lines.get(asyncio.get_running_loop())
        while line is not None and line.flushing is not None:
            await asyncio.wait([line.flushing])
        if self.conn is not None:
            conn, self.conn = self.conn, None
            await asyncio.get_running_loop().run_in_executor(self.storage._db_pool, conn.close)
