"""The replica: a worker's cached tables follow the changes other workers store.

Several workers share one PostgreSQL database (bus.py): every change of a table is announced
by a notice when it commits.  A notice names a table and a kind of change; the copy cached
here is caught up from the notice itself (an action carried by it, one revision after the
copy's) or from the rows, then this worker's connections are told.  Notices of one table are
handled one batch at a time (``_drain``), so a burst costs one catch-up.  A copy nobody here
needs is let go rather than followed (``_idle_here``).  The lease of a table (which worker
drives its bots and clocks) moves with ``took_over`` and ``lost``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from sqlalchemy import select

from .bus import SITE
from .db import ActionRow, TableRow
from .table import LiveTable, Rejected, is_checkpoint

if TYPE_CHECKING:  # pragma: no cover
    from .tables import TableManager

log = logging.getLogger("gemtable.server")


class Replica:
    """Catches one worker's cached tables up with the changes made at other workers."""

    FULL_KINDS = frozenset({"undo", "seats", "reload"})  # changes that rebuild the copy from its rows

    def __init__(self, manager: TableManager) -> None:
        self.m = manager
        self._notices: dict[str, set[str]] = {}  # table -> kinds of change heard, not yet caught up
        self._notes: dict[str, list[dict[str, Any]]] = {}  # table -> action notices heard (in order)
        self._catching: dict[str, asyncio.Task] = {}

    def stop(self) -> None:
        for task in list(self._catching.values()):
            task.cancel()

    def on_notify(self, msg: dict[str, Any]) -> None:
        table_id, kind = msg.get("t"), msg.get("k")
        if not isinstance(table_id, str) or not isinstance(kind, str):
            return
        if table_id == SITE:  # about no one table: for the features
            self.m.hooks.site_notice(kind, msg)
            return
        if kind == "deleted":
            live = self.m.tables.pop(table_id, None)
            if live is not None and live.bot_task is not None:
                live.bot_task.cancel()
            return
        if table_id not in self.m.tables and table_id not in self.m.loading:
            return  # not cached here: read from the database when someone asks for it
        if self._idle_here(table_id):  # nobody here needs it: no catching up, read again if asked
            del self.m.tables[table_id]
            self._notices.pop(table_id, None)
            self._notes.pop(table_id, None)
            return
        self._notices.setdefault(table_id, set()).add(kind)
        if kind == "action":
            self._notes.setdefault(table_id, []).append(msg)
        if table_id in self.m.tables:
            self._schedule_catch_up(table_id)

    # a copy not asked for here for this long, with nobody at it here, is let go (``_idle_here``)
    IDLE_AFTER = 15.0

    def _idle_here(self, table_id: str) -> bool:
        """Whether this worker may stop following ``table_id``: it is cached, nobody is connected
        to it here, this worker does not drive its bots and clocks (the lease, bus.py), nothing
        here is loading, changing or playing it, and it was not asked for in ``IDLE_AFTER``
        seconds.  A worker that created a table its players then play at another worker (a
        balancer routing by table, docs/deploy.md) would otherwise apply every move of it."""
        table = self.m.tables.get(table_id)
        return (table is not None and self.m.bus.shared and not table.subscribers
                and not self.m.bus.owns(table_id) and table_id not in self.m.loading
                and not table.lock.locked() and (table.bot_task is None or table.bot_task.done())
                and time.monotonic() - table.used > self.IDLE_AFTER)

    def catch_up_all(self) -> None:
        """Notices may have been missed (the LISTEN connection was lost): re-read every cached table."""
        for table_id in list(self.m.tables):
            self._notices.setdefault(table_id, set()).update({"reload", "presence"})
            self._schedule_catch_up(table_id)

    def need(self, table_id: str, kind: str) -> None:
        """Catch ``table_id`` up soon for a change of ``kind`` (as if a notice came)."""
        self._notices.setdefault(table_id, set()).add(kind)
        self._schedule_catch_up(table_id)

    def heard(self, table_id: str) -> None:
        """A table just loaded here: catch it up with the notices heard while it was loading."""
        if self._notices.get(table_id):
            self._schedule_catch_up(table_id)

    def _schedule_catch_up(self, table_id: str) -> None:
        task = self._catching.get(table_id)
        if task is None or task.done():
            self._catching[table_id] = asyncio.get_running_loop().create_task(self._drain(table_id))

    async def _drain(self, table_id: str) -> None:
        try:
            while not self.m.closing:
                kinds = self._notices.pop(table_id, None)
                notes = self._notes.pop(table_id, None)
                table = self.m.tables.get(table_id)
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

        ``action``: append the actions stored since; ``undo``/``seats``/``reload``: rebuild the
        table from its rows; ``presence``: the seats connected at other workers; other kinds are
        the features' (``TableHooks.read_changes``: a feature reads what it stored).

        ``notes``: the action notices heard.  When actions are all that changed and the notices
        carry them, one after the other from this copy's revision, they are applied without
        reading the database (``apply_notes``); anything else (a gap, a notice without its
        action, another kind of change) reads the rows.
        """
        kinds = set(kinds)
        was_over = table.over
        presence = False
        if "presence" in kinds:
            presence = self._set_remote(table, await self.m.run_db(self.m.bus.read_presence, table.id))
        changed = reset = False
        later: list[Any] = []
        if kinds - {"presence"}:
            async with table.lock:
                full = bool(kinds & self.FULL_KINDS)
                fast = None  # True/False: applied from the notices (changed or not); None: read
                if not full and notes and kinds - {"presence"} == {"action"} and not self.m.hooks.wants_read(kinds):
                    fast = self.apply_notes(table, notes)
                if fast is not None:
                    changed = fast
                else:
                    features = self.m.hooks.read_changes(table, kinds, full)
                    data = await self.m.run_db(self.read_changes, table.id, table.version, full, features)
                    if data is None:  # removed meanwhile
                        self.on_notify({"t": table.id, "k": "deleted"})
                        return
                    if not full and not self._appendable(table, data):
                        full = True
                        features = self.m.hooks.read_changes(table, kinds, full)
                        data = await self.m.run_db(self.read_changes, table.id, table.version, full, features)
                        if data is None:
                            self.on_notify({"t": table.id, "k": "deleted"})
                            return
                    if data["rev"] != table.rev or data["actions"] or full:
                        changed = True
                        if full:
                            reset = self._rebuild(table, data)
                        else:
                            self._append(table, data)
                        table.rev = data["rev"]
                    later = self.m.hooks.caught_up(table, data["features"], full, changed)
                if changed:
                    self.m.forget_replay(table.id)
        if reset:
            for sub in table.subscribers:
                sub.sent_version = -1  # the log shrank: everyone starts again from their own view
        if changed:
            self.m.broadcast(table)
        for step in later:
            await step
        if presence or (changed and "seats" in kinds):
            self.m.broadcast_presence(table)
        if changed:
            self.m.wake_bots(table)
            if table.over and not was_over:
                self.m.hooks.finished(table)  # ratings: claimed in the database, so rated once

    def apply_notes(self, table: LiveTable, notes: list[dict[str, Any]]) -> bool | None:
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
            table.checkpoints.append(is_checkpoint(table.state, seat, action))
            index, movers = table.version, table.state.to_move()
            table.events.append(table.state.apply(seat, action))
            table.match.record(seat, action)
            self.m.bots.tell(table, index, seat, action, movers, table.events[-1])
            table.refresh_decisions(seat)
            table.rev = note["r"]
            table.updated_at = dt.datetime.fromisoformat(note["u"])
            self.m.hooks.note_applied(table, note)  # the live record stored with the action
        return True

    def _set_remote(self, table: LiveTable, seats: set[int]) -> bool:
        before = table.connected_seats()
        table.remote_seats = set(seats)
        after = table.connected_seats()
        if before - after:
            self.m.hooks.presence_lost(table, before - after)
        return after != before

    def read_changes(self, table_id: str, version: int, full: bool,
                     features: Callable[[Any], Any] | None) -> dict[str, Any] | None:
        """What changed (a database thread, one consistent snapshot on PostgreSQL): the table's
        revision; the actions since ``version`` (``full``: every row of the table); and what the
        features read (``features``, from ``TableHooks.read_changes``)."""
        with self.m.db.session() as s:
            if self.m.db.shared:
                s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            out: dict[str, Any] = {"rev": int(row.rev or 0), "row": row}
            if full:
                out["seats"] = list(row.seats)
                out["all_actions"] = list(row.actions)
                out["extra"] = self.m.hooks.read_rows(s, table_id)
                out["actions"] = []
            else:
                out["actions"] = list(s.scalars(select(ActionRow).where(
                    ActionRow.table_id == table_id, ActionRow.index >= max(0, version - 1)).order_by(ActionRow.index)))
            out["features"] = features(s) if features is not None else {}
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
            table.checkpoints.append(is_checkpoint(table.state, r.seat, action))
            index, movers = table.version, table.state.to_move()
            table.events.append(table.state.apply(r.seat, action))
            table.match.record(r.seat, action)
            self.m.bots.tell(table, index, r.seat, action, movers, table.events[-1])
            table.refresh_decisions(r.seat)
        table.updated_at = data["row"].updated_at

    def _rebuild(self, table: LiveTable, data: dict[str, Any]) -> bool:
        """Replace the copy's contents by the stored table; True when its history was rewritten."""
        fresh = self.m.from_rows(table.id, data["row"], data["seats"], data["all_actions"])
        old = table.match.actions
        rewritten = len(fresh.match.actions) < len(old) or not self._same(fresh.match.actions[:len(old)], old)
        for name in ("seats", "match", "state", "events", "checkpoints", "decision_since", "legal_ids", "waiting",
                     "updated_at", "seed_chosen", "final"):
            setattr(table, name, getattr(fresh, name))
        table.bots = {}
        self.m.hooks.restored(table, data["row"], data["seats"], data["extra"])
        return rewritten

    async def took_over(self, table_id: str) -> None:
        """This worker now holds the table's lease (bus.py): it drives its bots and clocks."""
        try:
            known = table_id in self.m.tables
            table = await self.m.get(table_id)
            if known:
                await self.catch_up(table, {"action"})
            await self.m.hooks.took_over(table)
            log.info("worker %s drives table %s", self.m.bus.worker, table_id)
        except Rejected as exc:
            log.warning("table %s taken over but not loaded: %s", table_id, exc.message)
            return
        self.m.wake_bots(table)

    def lost(self, table_id: str) -> None:
        """The lease went (its connection broke): stop driving the table's bots."""
        table = self.m.tables.get(table_id)
        if table is not None and table.bot_task is not None and not table.bot_task.done():
            table.bot_task.cancel()
