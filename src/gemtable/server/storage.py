"""Storage: the database calls of the table core, off the event loop, with retries.

Database calls run in a small pool of threads (``run_db``); a locked SQLite file or a
PostgreSQL restart is retried with backoff for ``retry_for`` seconds before the caller gets
``Rejected("storage", 503)``.  An accepted action is stored by ``store_action`` (PostgreSQL
through psycopg 3: one statement awaited on the event loop) or ``commit`` (a database thread),
which move the table's revision, insert the action, write the table's live record with it
and send the notice other workers hear, all in one transaction.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import logging
import secrets
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
               play: dict[str, Any] | None = None, rematch: str | None = None) -> None:
        """Store action ``index`` (a database thread; SQLite, or PostgreSQL without psycopg 3's
        pool), one transaction.  Safe to run again after a failure.

        The table row moves from revision ``expected`` to the next (``db.bump``: a worker with a
        stale copy stores nothing and gets ``Conflict``); the table's live record ``play`` (with
        ``rematch``), when given, is written in the same transaction; the notice (``notice``,
        carrying ``play``), sent by the same statement, goes out on commit.
        """
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
        else:
            await self.run_db(functools.partial(self.commit, expected=expected, nonce=nonce, play=record,
                                                rematch=tag), table_id, index, seat, action, now, result)

    async def close(self) -> None:
        self.closing = True
        if self.action_store is not None:
            await self.action_store.close()
        self._db_pool.shutdown(wait=True)
