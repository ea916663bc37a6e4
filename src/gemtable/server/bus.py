"""Several workers on one database: change notices, table leases and seat presence.

One interface, two implementations:

- ``LocalBus`` (SQLite, one process): nothing to tell anyone.  The process
  owns every table (bots, clocks) and knows every connection.  Behaviour is
  exactly that of the one-process server.
- ``PgBus`` (PostgreSQL, any number of workers, on one machine or several):

  * **Notices.**  Every change of a table is announced with ``pg_notify`` inside
    the transaction that stores it (``publish``), so a notice is delivered only
    when the change is committed, in commit order.  The payload is small JSON
    (table id, kind, the sender); receivers read the rows.  An action's notice
    (``action_notice``, sent by the commit's ``UPDATE … RETURNING pg_notify``)
    also carries the action, its revision and the clocks: a worker whose copy
    is exactly one revision behind applies it without reading (on any gap, or
    when the payload was too big to carry it, the rows are read).  Each worker holds
    one dedicated ``LISTEN`` connection (psycopg 3, async) and hands notices to
    ``TableManager.on_notify``, which catches its cached copy up and tells its
    own subscribers.  If the LISTEN connection is lost, every cached table is
    caught up from the database after reconnecting (notices may have been
    missed meanwhile).
  * **Leases.**  A table's bots and clocks are driven by exactly one worker: the
    one holding the table's session-level advisory lock on its lease
    connection.  Every ``sweep`` seconds a worker tries to lock the running
    tables nobody holds (one statement), and unlocks tables that finished.  A
    worker that dies (even SIGKILL) closes its connections, PostgreSQL releases
    its locks, and the next sweep of another worker takes its tables over.
    Correctness never depends on the lease alone: every write checks the
    table's revision (``db.bump``), so a second driver's move is refused.
  * **Presence.**  Which seats have an open connection: one row per (worker,
    table, seat) in ``gt_presence``; each worker writes ``gt_workers.alive_ms``
    every ``alive_every`` seconds.  Rows of workers silent for ``dead_after``
    seconds are ignored, then swept (with a presence notice) by any live worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from .limits import parse_message

if TYPE_CHECKING:  # pragma: no cover
    from .db import Database
    from .table import LiveTable
    from .tables import TableManager

log = logging.getLogger("gemtable.server")

CHANNEL = "gemtable"
SITE = ""  # the table id of a notice about no one table: it goes to ``TableHooks.site_notice``
NOTICE_MAX = 7900  # bytes of a notice's payload (PostgreSQL refuses 8000 and more)
LOCK_SPACE = 7469767361  # seed of hashtextextended(): the lock keys of table leases


def now_ms() -> int:
    return int(time.time() * 1000)


class LocalBus:
    """One process (SQLite): it owns every table and knows every connection."""

    shared = False

    def __init__(self) -> None:
        self.worker = "local"

    def publish(self, session: Any, table_id: str, kind: str, **extra: Any) -> None:
        pass

    def action_notice(self, table_id: str, **fields: Any) -> tuple[str, str] | None:
        return None  # nobody to tell

    def owns(self, table_id: str) -> bool:
        return True

    def arriving(self, table_id: str) -> bool:
        return False

    async def start(self, manager: TableManager) -> None:
        pass

    async def close(self) -> None:
        pass

    async def claim(self, table_id: str) -> bool:
        return True

    def presence_changed(self, table: LiveTable) -> None:
        pass

    def read_presence(self, table_id: str) -> set[int]:
        return set()

    def wake(self) -> None:
        pass


class PgBus:
    """PostgreSQL: LISTEN/NOTIFY, advisory-lock leases and presence rows (see the module text)."""

    shared = True

    def __init__(self, db: Database, sweep: float = 0.5, alive_every: float = 1.0, dead_after: float = 5.0) -> None:
        self.db = db
        self.worker = secrets.token_hex(8)
        from .db import libpq_url

        self.conninfo = libpq_url(db.url)
        self.sweep_every = sweep
        self.alive_every = alive_every
        self.dead_after = dead_after
        self.owned: set[str] = set()
        self._arriving: set[str] = set()  # leases just taken, whose takeover is under way
        self.m: TableManager | None = None
        self._listen_conn: Any = None
        self._lock_conn: Any = None
        self._tasks: list[asyncio.Task] = []
        self._closing = False
        self._wake: asyncio.Event | None = None
        self._presence_lock: asyncio.Lock | None = None
        self._written: dict[str, set[int]] = {}  # table -> seats whose presence rows this worker wrote
        self._presence_tasks: set[asyncio.Task] = set()
        self._last_alive = 0.0

    # -- notices ---------------------------------------------------------------------------
    def publish(self, session: Any, table_id: str, kind: str, **extra: Any) -> None:
        """In a writing transaction: announce ``kind`` of change at ``table_id`` when it commits."""
        from sqlalchemy import text

        payload = json.dumps({"w": self.worker, "t": table_id, "k": kind, **extra}, separators=(",", ":"))
        session.execute(text("SELECT pg_notify(:c, :p)"), {"c": CHANNEL, "p": payload})

    def action_notice(self, table_id: str, **fields: Any) -> tuple[str, str] | None:
        """(channel, payload) of an action's notice, sent by the commit's ``db.bump`` statement.

        ``fields``: the new version ``v`` and revision ``r``, and what a worker holding the
        copy one revision behind needs to apply the action without reading the database:
        seat ``s``, action ``a``, ``updated_at`` ``u`` and the clocks ``p`` (timed tables).
        A payload over PostgreSQL's limit (8000 bytes) goes without them: receivers read.
        """
        payload = json.dumps({"w": self.worker, "t": table_id, "k": "action", **fields}, separators=(",", ":"))
        if len(payload.encode("utf-8")) > NOTICE_MAX:
            slim = {k: fields[k] for k in ("v", "r") if k in fields}
            payload = json.dumps({"w": self.worker, "t": table_id, "k": "action", **slim}, separators=(",", ":"))
        return CHANNEL, payload

    async def _connect(self) -> Any:
        import os

        import psycopg

        # the process id in pg_stat_activity: which worker holds which lease (operators, tests)
        return await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True,
                                                     application_name=f"gemtable worker {os.getpid()}")

    async def _listen(self) -> None:
        delay = 0.2
        while not self._closing:
            try:
                if self._listen_conn is None:  # (``start`` opened the first one)
                    self._listen_conn = await self._connect()
                    await self._listen_conn.execute(f"LISTEN {CHANNEL}")
                    self.m.catch_up_all()  # notices may have been missed while the connection was away
                    delay = 0.2
                await self._read_notices(self._listen_conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._closing:
                    return
                log.warning("notice connection lost (%s); reconnecting in %.1fs", type(exc).__name__, delay)
                conn, self._listen_conn = self._listen_conn, None
                if conn is not None:
                    try:
                        await conn.close()
                    except Exception:
                        pass
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _read_notices(self, conn: Any) -> None:
        """Hand the notices arriving on the LISTEN connection ``conn`` to the manager; returns only
        by raising (the connection failed, or handling a notice did).

        The connection's socket is watched by the event loop itself and each wake-up reads every
        notice that came (libpq's ``consume_input``/``notifies`` on the idle connection): less CPU
        per notice than psycopg's ``notifies()`` generator, which sets a reader up and takes it
        down again for every wait (README, "Load").  Every worker hears every notice, its own
        too: those are skipped unread.
        """
        pg = conn.pgconn
        loop = asyncio.get_running_loop()
        failed: asyncio.Future = loop.create_future()
        own = f'{{"w":"{self.worker}",'.encode()  # this worker's notices start so

        def readable() -> None:
            try:
                pg.consume_input()
                while (note := pg.notifies()) is not None:
                    payload = note.extra
                    if payload.startswith(own):
                        continue
                    try:
                        msg = parse_message(payload)
                    except (ValueError, RecursionError):  # not a notice of ours: skipped
                        continue
                    if isinstance(msg, dict) and msg.get("w") != self.worker:
                        self.m.on_notify(msg)
            except Exception as exc:  # a lost connection (or a failing handler): reconnect
                if not failed.done():
                    failed.set_exception(exc)

        fd = pg.socket
        loop.add_reader(fd, readable)
        try:
            readable()  # what arrived with the LISTEN's answer
            await failed
        finally:
            loop.remove_reader(fd)

    # -- leases ----------------------------------------------------------------------------
    def owns(self, table_id: str) -> bool:
        return table_id in self.owned

    def arriving(self, table_id: str) -> bool:
        """This worker took the table's lease and is still taking it over (its clocks are not
        yet charged up to the old driver's heartbeat): nothing here checks or beats its clocks."""
        return table_id in self._arriving

    async def _locks(self) -> Any:
        if self._lock_conn is None or self._lock_conn.closed:
            if self.owned:  # the old connection took its locks with it
                lost, self.owned = set(self.owned), set()
                for table_id in lost:
                    self.m.lost(table_id)
            self._lock_conn = await self._connect()
        return self._lock_conn

    async def claim(self, table_id: str) -> bool:
        """Try to drive ``table_id`` now (a table just created or started here)."""
        if table_id in self.owned:
            return True
        try:
            conn = await self._locks()
            cur = await conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, %s))", (table_id, LOCK_SPACE))
            got = bool((await cur.fetchone())[0])
        except Exception as exc:
            log.warning("lease of table %s not taken (%s)", table_id, type(exc).__name__)
            await self._drop_lock_conn()
            return False
        if got:
            self.owned.add(table_id)
        return got

    async def _drop_lock_conn(self) -> None:
        conn, self._lock_conn = self._lock_conn, None
        if conn is not None:
            try:
                await conn.close()
            except Exception:
                pass
        lost, self.owned = set(self.owned), set()
        for table_id in lost:
            self.m.lost(table_id)

    async def _sweep_once(self) -> None:
        conn = await self._locks()
        cur = await conn.execute("SELECT id FROM gt_tables WHERE status = 'running'")
        running = {r[0] for r in await cur.fetchall()}
        for table_id in sorted(self.owned - running):  # finished or removed: let go
            await conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, %s))", (table_id, LOCK_SPACE))
            self.owned.discard(table_id)
        free = sorted(running - self.owned)
        if free:
            cur = await conn.execute(
                "SELECT t FROM unnest(%s::text[]) AS t WHERE pg_try_advisory_lock(hashtextextended(t, %s))",
                (free, LOCK_SPACE))
            got = [r[0] for r in await cur.fetchall()]
            for table_id in got:
                self.owned.add(table_id)
            self._arriving.update(got)
            try:
                for table_id in got:
                    try:
                        await self.m.took_over(table_id)
                    finally:
                        self._arriving.discard(table_id)
            finally:
                self._arriving.difference_update(got)

    async def _sweep(self) -> None:
        while not self._closing:
            try:
                if time.monotonic() - self._last_alive >= self.alive_every:
                    self._last_alive = time.monotonic()
                    gone = await self.m.run_db(self._alive)
                    for table_id in gone:
                        self.m.on_notify({"t": table_id, "k": "presence"})
                await self._sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._closing:
                    return
                log.warning("lease sweep failed (%s: %s)", type(exc).__name__, exc)
                await self._drop_lock_conn()
            try:
                await asyncio.wait_for(self._wake.wait(), self.sweep_every)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()

    def wake(self) -> None:
        """Sweep now (a table just started: its bots and clocks should not wait)."""
        if self._wake is not None:
            self._wake.set()

    # -- presence ----------------------------------------------------------------------------
    def _alive(self) -> list[str]:
        """Say this worker is alive; sweep the presence rows of dead workers (tables to re-read)."""
        from sqlalchemy import delete, select, update

        from .db import PresenceRow, WorkerRow

        now = now_ms()
        cutoff = now - int(self.dead_after * 1000)
        with self.db.session() as s:
            if s.execute(update(WorkerRow).where(WorkerRow.id == self.worker).values(alive_ms=now)).rowcount != 1:
                s.add(WorkerRow(id=self.worker, alive_ms=now))
            dead = list(s.scalars(select(WorkerRow.id).where(WorkerRow.alive_ms < cutoff)))
            tables: list[str] = []
            if dead:
                tables = sorted(set(s.scalars(select(PresenceRow.table_id).where(PresenceRow.worker.in_(dead)))))
                s.execute(delete(PresenceRow).where(PresenceRow.worker.in_(dead)))
                s.execute(delete(WorkerRow).where(WorkerRow.id.in_(dead)))
                for table_id in tables:
                    self.publish(s, table_id, "presence")
            s.commit()
            return tables

    def read_presence(self, table_id: str) -> set[int]:
        """Seats connected at other live workers (a database thread)."""
        from sqlalchemy import select

        from .db import PresenceRow, WorkerRow

        cutoff = now_ms() - int(self.dead_after * 1000)
        with self.db.session() as s:
            return set(s.scalars(
                select(PresenceRow.seat).join(WorkerRow, WorkerRow.id == PresenceRow.worker)
                .where(PresenceRow.table_id == table_id, PresenceRow.worker != self.worker,
                       WorkerRow.alive_ms >= cutoff)))

    def presence_changed(self, table: LiveTable) -> None:
        """This worker's connected seats of ``table`` changed: write them (in order, in the background)."""
        if self._closing or self.m is None:
            return
        task = asyncio.ensure_future(self._write_presence(table))
        self._presence_tasks.add(task)
        task.add_done_callback(self._presence_tasks.discard)

    async def _write_presence(self, table: LiveTable) -> None:
        async with self._presence_lock:
            want = table.local_seats()
            have = self._written.get(table.id, set())
            if want == have:
                return
            try:
                await self.m.run_db(self._store_presence, table.id, want - have, have - want)
            except Exception as exc:
                log.warning("presence at table %s not stored (%s)", table.id, exc)
                return
            if want:
                self._written[table.id] = set(want)
            else:
                self._written.pop(table.id, None)

    def _store_presence(self, table_id: str, add: set[int], remove: set[int]) -> None:
        from sqlalchemy import delete

        from .db import PresenceRow

        with self.db.session() as s:
            if remove:
                s.execute(delete(PresenceRow).where(PresenceRow.worker == self.worker,
                                                    PresenceRow.table_id == table_id,
                                                    PresenceRow.seat.in_(sorted(remove))))
            for seat in sorted(add):
                s.merge(PresenceRow(worker=self.worker, table_id=table_id, seat=seat))
            self.publish(s, table_id, "presence")
            s.commit()

    def _forget_worker(self) -> list[str]:
        from sqlalchemy import delete, select

        from .db import PresenceRow, WorkerRow

        with self.db.session() as s:
            tables = sorted(set(s.scalars(select(PresenceRow.table_id).where(PresenceRow.worker == self.worker))))
            s.execute(delete(PresenceRow).where(PresenceRow.worker == self.worker))
            s.execute(delete(WorkerRow).where(WorkerRow.id == self.worker))
            for table_id in tables:
                self.publish(s, table_id, "presence")
            s.commit()
            return tables

    # -- life ----------------------------------------------------------------------------------
    async def start(self, manager: TableManager) -> None:
        self.m = manager
        self._wake = asyncio.Event()
        self._presence_lock = asyncio.Lock()
        await manager.run_db(self._alive)
        self._last_alive = time.monotonic()
        self._listen_conn = await self._connect()
        await self._listen_conn.execute(f"LISTEN {CHANNEL}")
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._sweep())]

    async def close(self) -> None:
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for task in [*self._tasks, *self._presence_tasks]:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            await self.m.run_db(self._forget_worker)
        except Exception:
            log.warning("presence rows of this worker not removed (they expire)")
        for conn in (self._listen_conn, self._lock_conn):
            if conn is not None:
                try:
                    await conn.close()  # the leases go with the connection
                except Exception:
                    pass
        self.owned = set()


def make_bus(db: Database) -> LocalBus | PgBus:
    return PgBus(db) if db.shared else LocalBus()
