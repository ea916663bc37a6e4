"""Game reviews: each seat's chance of winning move by move and its biggest drops
(``gemtable.analysis.review``), computed in the background for finished tables only.

A review is asked for (``request``), stored in ``gt_reviews`` as queued, computed by a
small pool of worker processes in Linux's idle scheduling class (the lowest priority
elsewhere: ``analysis.review.quiet_worker``) and stored as done, so it
survives a restart and is computed once.  The work never runs on the event loop nor in
the bots' thread pool, and the queue is bounded: when it is full a request is answered
429 with Retry-After instead of piling up.  With several workers on PostgreSQL, the
worker that claims the row (``queued`` → ``working``, one UPDATE) computes it; the
others read the stored result.  A claim older than ``stale_s`` (its worker died) may be
taken again.  A running table is never reviewed: its request is refused (409).  Asking
and computing read the table's rows in a database thread (its status; for the review
process, its match file): a finished table is never loaded and replayed on the event loop.

A review is stored language-neutral (its moves as action JSON, its reasons and the
judge's name as messages) and each reader gets it in their language when reading it
(``analysis.review.render_review``: a replay to the swings' positions in a thread, kept
per table and language in a small cache, since a done review never changes).  A review
stored with English texts by an older version is shown as it is.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import multiprocessing
import time
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from gemtable.core import Match

from gemtable.core import i18n
from .db import ActionRow, ReviewRow, SeatRow, TableRow
from .hooks import TableHooks
from .table import Rejected
from .tables import TableManager

log = logging.getLogger("gemtable.server")

QUEUE = 16  # reviews waiting at one worker; more are refused (429) until the queue drains
PROCESSES = 1  # review processes per worker: the server's CPU budget for reviews
RETRY_AFTER = 10  # seconds a refused request is told to wait
STALE_S = 600.0  # a claim this old belongs to a worker that died: it may be claimed again
RENDERED = 64  # reviews kept rendered, per (table, language)


def _now_ms() -> int:
    return int(time.time() * 1000)


# -- the database (database threads) -----------------------------------------------------------
def table_status(db, table_id: str) -> str | None:
    """A table's status (running, waiting, finished), None when there is no such table."""
    with db.session() as s:
        return s.scalar(select(TableRow.status).where(TableRow.id == table_id))


def finished_match(db, table_id: str) -> dict[str, Any] | None:
    """The match file of a finished table, from its rows (None unless it is finished)."""
    with db.session() as s:
        row = s.get(TableRow, table_id)
        if row is None or row.status != "finished":
            return None
        names = list(s.scalars(select(SeatRow.name).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)))
        actions = [(a.seat, a.action) for a in s.scalars(
            select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.index))]
        return Match(row.game_id, row.num_players, row.seed, dict(row.options or {}), actions,
                     meta={"names": names}).to_json()


def read(db, table_id: str) -> dict[str, Any] | None:
    with db.session() as s:
        row = s.get(ReviewRow, table_id)
        if row is None:
            return None
        return {"status": row.status, "review": row.data, "error": row.error}


def ask(db, table_id: str) -> str:
    """Store the request (once); the review's status."""
    with db.session() as s:
        row = s.get(ReviewRow, table_id)
        if row is not None:
            if row.status != "failed":
                return row.status
            row.status, row.error = "queued", None  # a failed review may be asked for again
            s.commit()
            return "queued"
        s.add(ReviewRow(table_id=table_id, status="queued"))
        try:
            s.commit()
        except IntegrityError:  # another worker stored it meanwhile
            s.rollback()
            return s.get(ReviewRow, table_id).status
        return "queued"


def claim(db, table_id: str, worker: str, stale_ms: int) -> bool:
    """Take the review to compute it; True for exactly one worker."""
    now = _now_ms()
    with db.session() as s:
        done = s.execute(update(ReviewRow).where(
            ReviewRow.table_id == table_id,
            or_(ReviewRow.status == "queued",
                (ReviewRow.status == "working") & (ReviewRow.claimed_ms < now - stale_ms)),
        ).values(status="working", worker=worker, claimed_ms=now))
        s.commit()
        return done.rowcount == 1


def finish(db, table_id: str, worker: str, data: dict[str, Any] | None, error: str | None) -> None:
    with db.session() as s:
        s.execute(update(ReviewRow).where(ReviewRow.table_id == table_id, ReviewRow.worker == worker)
                  .values(status="done" if data is not None else "failed", data=data, error=error))
        s.commit()


def waiting(db, stale_ms: int) -> list[str]:
    """Reviews asked for and not done (the server stopped in between), oldest first."""
    now = _now_ms()
    with db.session() as s:
        return list(s.scalars(select(ReviewRow.table_id).where(
            or_(ReviewRow.status == "queued",
                (ReviewRow.status == "working") & (ReviewRow.claimed_ms < now - stale_ms)),
        ).order_by(ReviewRow.asked_at)))


class Reviews(TableHooks):
    """The review queue of one worker (a feature: ``start`` and ``close`` are its hooks)."""

    def __init__(self, manager: TableManager, processes: int = PROCESSES, queue: int = QUEUE,
                 samples: int | None = None, stale_s: float = STALE_S) -> None:
        self.m = manager
        self.processes = max(1, int(processes))
        self.size = max(1, int(queue))
        self.samples = samples
        self.stale_ms = int(stale_s * 1000)
        self.pending: dict[str, None] = {}  # queued here, in order (at most ``size``)
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.tasks: list[asyncio.Task] = []
        self.rendered: collections.OrderedDict[tuple[str, str], dict[str, Any]] = collections.OrderedDict()

    # -- life ---------------------------------------------------------------------------
    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._work()) for _ in range(self.processes)]

    async def catch_up(self) -> int:
        """Start-up: queue the reviews asked for before a restart (as many as fit)."""
        count = 0
        for table_id in await self.m.run_db(waiting, self.m.db, self.stale_ms):
            count += self._enqueue(table_id)
        return count

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        """The review processes, started on first use (``spawn``: a server process has
        threads, which a forked child must not inherit)."""
        if self.pool is None:
            from gemtable.analysis.review import quiet_worker

            self.pool = concurrent.futures.ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("spawn"), initializer=quiet_worker)
        return self.pool

    # -- asking -------------------------------------------------------------------------
    def _enqueue(self, table_id: str) -> bool:
        if table_id in self.pending or len(self.pending) >= self.size:
            return False
        self.pending[table_id] = None
        self.queue.put_nowait(table_id)
        return True

    async def _finished(self, table_id: str) -> None:
        """404 for no such table, 409 for one that is not over."""
        status = None
        if isinstance(table_id, str) and 0 < len(table_id) <= 32:
            status = await self.m.run_db(table_status, self.m.db, table_id)
        if status is None:
            raise Rejected("no_table", i18n.msg("There is no such table."), 404)
        if status != "finished":
            raise Rejected("running", i18n.msg("A game is reviewed once it is over."), 409)

    async def status(self, table_id: str, checked: bool = False, lang: str = i18n.SOURCE) -> dict[str, Any]:
        """The review of a finished table (``status`` "none" if never asked for), its texts in
        ``lang``."""
        if not checked:
            await self._finished(table_id)
        got = await self.m.run_db(read, self.m.db, table_id)
        out = got or {"status": "none", "review": None, "error": None}
        if out["status"] == "done" and isinstance(out["review"], dict):
            out["review"] = await self._render(table_id, out["review"], lang)
        if out["status"] in ("queued", "working") and table_id in self.pending:
            out["position"] = list(self.pending).index(table_id) + 1
        return out

    async def _render(self, table_id: str, review: dict[str, Any], lang: str) -> dict[str, Any]:
        """A stored review in ``lang`` (cached: a done review never changes)."""
        key = (table_id, lang)
        got = self.rendered.get(key)
        if got is not None:
            self.rendered.move_to_end(key)
            return got
        match = await self.m.run_db(finished_match, self.m.db, table_id)
        if match is None:  # the table went away meanwhile
            return review
        from gemtable.analysis.review import render_review

        got = await asyncio.to_thread(render_review, review, match, lang)
        self.rendered[key] = got
        while len(self.rendered) > RENDERED:
            self.rendered.popitem(last=False)
        return got

    async def request(self, table_id: str, lang: str = i18n.SOURCE) -> dict[str, Any]:
        """Ask for the review of a finished table: queued here unless it is done, being
        computed, or the queue is full (429).  The answer's texts in ``lang``."""
        await self._finished(table_id)
        got = await self.m.run_db(read, self.m.db, table_id)
        if got is None or got["status"] == "failed":
            if len(self.pending) >= self.size and table_id not in self.pending:
                raise Rejected("busy", i18n.msg("Many reviews are waiting: ask again in a moment."), 429,
                               retry_after=RETRY_AFTER)
            await self.m.run_db(ask, self.m.db, table_id)
            self._enqueue(table_id)
        elif got["status"] == "queued" and table_id not in self.pending:
            self._enqueue(table_id)  # asked for before a restart, or at another worker that died
        return await self.status(table_id, checked=True, lang=lang)

    # -- computing ----------------------------------------------------------------------
    async def _work(self) -> None:
        while True:
            table_id = await self.queue.get()
            try:
                await self._review(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # stored as failed where possible; the queue goes on
                log.exception("review of table %s failed", table_id)
            finally:
                self.pending.pop(table_id, None)

    async def _review(self, table_id: str) -> None:
        from gemtable.analysis.review import SAMPLES, review_json

        worker = self.m.bus.worker
        if not await self.m.run_db(claim, self.m.db, table_id, worker, self.stale_ms):
            return  # done, or being computed by another worker
        try:
            match = await self.m.run_db(finished_match, self.m.db, table_id)
            if match is None:  # never: only finished tables are queued
                raise ValueError("the game is not over")
            loop = asyncio.get_running_loop()
            data = await loop.run_in_executor(self._pool(), review_json, match, self.samples or SAMPLES)
            error = None
        except asyncio.CancelledError:
            raise
        except concurrent.futures.process.BrokenProcessPool:  # a review process died: start anew
            self.pool = None
            data, error = None, "the review process stopped"
        except Exception as exc:  # a game that does not replay, a bug: stored as failed
            log.exception("review of table %s failed", table_id)
            data, error = None, str(exc)[:400]
        await self.m.run_db(finish, self.m.db, table_id, worker, data, error)
