"""SQLite's group commit (storage.GroupCommit): actions accepted while a commit is under way share
the next one; each is stored or refused on its own; the rows read back as the ORM writes them."""

from __future__ import annotations

import asyncio
import time

from gemtable.server.db import Conflict, Database, utcnow
from gemtable.server.limits import Limits
from gemtable.server.storage import GroupCommit
from gemtable.server.tables import TableManager

HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def _manager(url: str) -> TableManager:
    return TableManager(Database(url), bot_delay=0.0, limits=Limits.relaxed())


def _groups(monkeypatch) -> list[int]:
    """The size of every group the database thread commits from now on."""
    sizes: list[int] = []
    flush = GroupCommit.flush

    def counted(self, group):
        sizes.append(len(group))
        return flush(self, group)

    monkeypatch.setattr(GroupCommit, "flush", counted)
    return sizes


def test_actions_accepted_during_a_commit_share_the_next_one(db_url, toy_registered, monkeypatch):
    async def scenario():
        m = _manager(db_url)
        try:
            tables = [await m.create("toy", 2, None, HUMANS) for _ in range(8)]
            sizes = _groups(monkeypatch)
            # the database thread is busy (a slow read): the first action waits for it alone,
            # the seven accepted meanwhile gather and go together
            busy = asyncio.ensure_future(m.run_db(time.sleep, 0.3))
            await asyncio.sleep(0.05)
            first = asyncio.ensure_future(m.submit(tables[0], 0, {"type": "pick", "n": 1}, 0))
            await asyncio.sleep(0.05)
            rest = [asyncio.ensure_future(m.submit(t, 0, {"type": "pick", "n": 2}, 0)) for t in tables[1:]]
            await asyncio.gather(busy, first, *rest)
            assert sizes == [1, 7]
            assert all(t.version == 1 for t in tables)
        finally:
            await m.close()
            m.db.dispose()
        # every action is on disk: a fresh server reads the same tables back
        again = _manager(db_url)
        try:
            for t in tables:
                back = await again.get(t.id)
                assert back.version == 1 and back.match.actions == t.match.actions
                assert back.updated_at == t.updated_at  # the date as the ORM stores it
        finally:
            await again.close()
            again.db.dispose()

    asyncio.run(scenario())


def test_a_stale_action_in_a_group_is_refused_alone(db_url, toy_registered):
    async def scenario():
        m = _manager(db_url)
        try:
            a = await m.create("toy", 2, None, HUMANS)
            b = await m.create("toy", 2, None, HUMANS)
            group = m.storage.group
            now = utcnow()
            results = await asyncio.gather(
                group.store((a.id, 0, 0, {"type": "pick", "n": 1}, now, None),
                            {"expected": a.rev, "nonce": "a1", "play": None, "rematch": None}),
                group.store((b.id, 0, 0, {"type": "pick", "n": 1}, now, None),  # a stale revision
                            {"expected": b.rev + 5, "nonce": "b1", "play": None, "rematch": None}),
                group.store((a.id, 0, 0, {"type": "pick", "n": 1}, now, None),  # the same again: fine
                            {"expected": a.rev, "nonce": "a1", "play": None, "rematch": None}),
                group.store((b.id, 0, 1, {"type": "pick", "n": 2}, now, None),
                            {"expected": b.rev, "nonce": "b2", "play": {"left": [1]}, "rematch": "x"}),
                return_exceptions=True)
            assert results[0] is None and isinstance(results[1], Conflict) and results[2] is None
            assert results[3] is None
            from sqlalchemy import text

            with m.db.engine.connect() as c:
                rows = c.execute(text('SELECT table_id, "index", seat, nonce FROM gt_actions ORDER BY nonce')).all()
                play = c.execute(text("SELECT table_id, data, rematch FROM gt_table_play")).all()
                revs = dict(c.execute(text("SELECT id, rev FROM gt_tables")).all())
            assert [tuple(r) for r in rows] == [(a.id, 0, 0, "a1"), (b.id, 0, 1, "b2")]
            assert [(p[0], p[2]) for p in play] == [(b.id, "x")] and '"left"' in play[0][1]
            assert revs == {a.id: a.rev + 1, b.id: b.rev + 1}
        finally:
            await m.close()
            m.db.dispose()

    asyncio.run(scenario())


def test_a_locked_file_fails_the_whole_group_and_each_action_is_tried_again(db_url, toy_registered):
    """Another program holds the write lock: no action of the group is stored while it does; each is
    tried again (``Storage.retrying``) and stored once the lock is gone."""
    import sqlite3

    async def scenario():
        m = _manager(db_url)
        try:
            tables = [await m.create("toy", 2, None, HUMANS) for _ in range(3)]
            group = m.storage.group
            group.timeout = 0.05  # give up waiting for the lock quickly (then Storage.retrying waits)
            other = sqlite3.connect(m.db.engine.url.database, isolation_level=None, check_same_thread=False)
            other.execute("BEGIN IMMEDIATE")
            moves = [asyncio.ensure_future(m.submit(t, 0, {"type": "pick", "n": 1}, 0)) for t in tables]
            await asyncio.sleep(0.5)
            assert not any(f.done() for f in moves) and all(t.version == 0 for t in tables)
            other.execute("ROLLBACK")
            other.close()
            await asyncio.gather(*moves)
            assert all(t.version == 1 for t in tables)
        finally:
            await m.close()
            m.db.dispose()

    asyncio.run(scenario())
