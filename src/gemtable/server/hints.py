"""Short analyses on demand: hints at practice tables and the analysis board of finished games.

Hints: the bot's three best moves for the seat asking, with reasons.  Nothing is at stake
for a seat when every other seat is a bot, or when the table's creator marked it as
practice (``gt_practice``: a practice table is never rated).

The hint is computed in a worker process at a lower CPU priority from a
determinization drawn from the asking seat's view (``State.determinize``), so the
process never receives another seat's secrets; ``analysis.review.hints`` depends on that
view alone.  One hint at a time per table.  A table where a seat was shown hints is
marked in ``gt_hints`` (stored before the hint is sent): its result says ``hinted`` and
it is not rated.

The analysis board: from any position of a finished game, a line of other moves is
played and the position judged (each seat's chance from its own view, the bot's three
best moves).  Only finished games; at most ``BOARDS`` at once per worker (429 beyond).
Both run in one low-priority process of their own, apart from the reviews' queue.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from gemtable.core import Rng, i18n

from .db import HintRow, PracticeRow
from .hooks import TableHooks
from .table import LiveTable, Rejected
from .tables import TableManager

BOARDS = 4  # analysis-board positions worked out at once at one worker
LINE = 200  # moves a line may try


class HintRecord:
    """The seats of a table that were shown hints; whether it was marked as practice."""

    def __init__(self) -> None:
        self.seats: set[int] = set()
        self.practice = False


def practice(table: LiveTable, seat: int | None) -> bool:
    """Nothing at stake for ``seat``: the table is marked as practice, or every other seat is a bot."""
    if seat is None:
        return False
    return table.record(HintRecord).practice or all(s.kind == "bot" for s in table.seats if s.seat != seat)


def practice_setup(marked: bool):
    """The setup step of a new table marked (or not) as practice."""
    def step(table: LiveTable) -> None:
        table.record(HintRecord).practice = bool(marked)
    return step


def mark(db, table_id: str, seat: int) -> None:
    with db.session() as s:
        if s.get(HintRow, (table_id, seat)) is None:
            s.add(HintRow(table_id=table_id, seat=seat))
            try:
                s.commit()
            except IntegrityError:  # marked meanwhile (another worker)
                s.rollback()


def hinted(session, table_id: str) -> bool:
    """Whether some seat of the table was shown hints (a database session)."""
    return session.scalar(select(HintRow.seat).where(HintRow.table_id == table_id).limit(1)) is not None


class Hints(TableHooks):
    """Hints at practice tables (a feature: payload, result and the table's rows)."""

    def __init__(self, manager: TableManager) -> None:
        self.m = manager
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.busy: set[str] = set()
        self.boards = 0

    # -- the table's record --------------------------------------------------------------
    def store_new(self, session: Any, table: LiveTable) -> None:
        if table.record(HintRecord).practice:
            session.add(PracticeRow(table_id=table.id))

    def read_rows(self, session: Any, table_id: str) -> dict[str, Any]:
        return {"seats": list(session.scalars(select(HintRow.seat).where(HintRow.table_id == table_id))),
                "practice": session.get(PracticeRow, table_id) is not None}

    def restored(self, table: LiveTable, row: Any, seat_rows: list[Any], extra: dict[str, Any]) -> None:
        rec = table.record(HintRecord)
        rec.seats = set(extra.get("seats", ()))
        rec.practice = bool(extra.get("practice"))

    def carry_over(self, old: LiveTable, new: LiveTable, order: list[int]) -> None:
        new.record(HintRecord).practice = old.record(HintRecord).practice

    def summary(self, table: LiveTable, out: dict[str, Any]) -> None:
        if table.record(HintRecord).practice:
            out["practice"] = True

    def payload(self, table: LiveTable, msg: dict[str, Any], viewer: int | None, reset: bool) -> None:
        if viewer is not None and not table.over and not table.waiting and practice(table, viewer):
            msg["hints"] = True

    def result(self, table: LiveTable, result: dict[str, Any]) -> None:
        seats = table.record(HintRecord).seats
        if seats:
            result["hinted"] = sorted(seats)

    async def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self.pool is None:
            from gemtable.analysis.review import quiet_worker

            # a lower priority, not the idle class: a player waits for the answer
            self.pool = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=quiet_worker, initargs=(10, False))
        return self.pool

    # -- asking ----------------------------------------------------------------------------
    async def hint(self, table: LiveTable, seat: int | None, version: int,
                   lang: str = i18n.SOURCE) -> dict[str, Any]:
        if seat is None:
            raise Rejected("no_token", i18n.msg("Only a seat (with its token) can ask for a hint."), 403)
        if table.over or table.waiting:
            raise Rejected("not_running", i18n.msg("Hints are given while the game runs."), 409)
        if not practice(table, seat):
            raise Rejected("not_practice", i18n.msg("Hints are only given at practice tables (marked as practice, or "
                                               "every other seat a bot)."), 403)
        if version != table.version:
            raise Rejected("stale", i18n.msg("The table moved on: ask again for this position."), 409)
        if seat not in table.state.to_move():
            raise Rejected("not_your_turn", i18n.msg("A hint is given when it is your turn."), 409)
        if table.id in self.busy:
            raise Rejected("busy", i18n.msg("A hint is being worked out for this table."), 429, retry_after=1)
        self.busy.add(table.id)
        try:
            # a determinization from the seat's view: the worker process sees nothing else
            view_state = table.state.determinize(seat, Rng(version)).to_json()
            await self.m.run_db(mark, self.m.db, table.id, seat)
            table.record(HintRecord).seats.add(seat)
            from gemtable.analysis.review import hints_json

            loop = asyncio.get_running_loop()
            try:
                moves = await loop.run_in_executor(self._pool(), hints_json, table.game.id, view_state, seat, 3,
                                                   lang)
            except concurrent.futures.process.BrokenProcessPool:
                self.pool = None
                raise Rejected("hint_failed", i18n.msg("The hint could not be worked out: ask again."), 409) from None
        finally:
            self.busy.discard(table.id)
        return {"version": version, "seat": seat, "hints": moves}

    async def board(self, table: LiveTable, move: int, line: list[tuple[int, dict[str, Any]]],
                    lang: str = i18n.SOURCE) -> dict[str, Any]:
        """The analysis board of a finished table (``analysis.review.board_json``)."""
        if not table.over:
            raise Rejected("running", i18n.msg("The analysis board opens when the game is over."), 409)
        if len(line) > LINE:
            raise Rejected("too_long", i18n.msg("A line may try at most {n} moves.", n=LINE), 422)
        if self.boards >= BOARDS:
            raise Rejected("busy", i18n.msg("Many positions are being analysed: try again in a moment."), 429, retry_after=1)
        from gemtable.analysis.review import HINT_SAMPLES, board_json

        self.boards += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool(), board_json, table.match.to_json(), move, line,
                                                    HINT_SAMPLES, lang)
        except ValueError as exc:
            raise Rejected("bad_line", str(exc), 422) from None
        except concurrent.futures.process.BrokenProcessPool:
            self.pool = None
            raise Rejected("analysis_failed", i18n.msg("The position could not be analysed: try again."), 409) from None
        finally:
            self.boards -= 1
