"""Less work per action: notices that carry the action, the health check, and what the
hot path relies on (a database restart without ``pool_pre_ping``).

The PostgreSQL tests run two ``TableManager``s (two workers) on one event loop in this process,
sharing a throw-away cluster (``postgres_url``; skipped without the server binaries).
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemtable.server.bus import CHANNEL, NOTICE_MAX, PgBus
from gemtable.server.db import Database
from gemtable.server.limits import Limits
from gemtable.server.tables import Subscriber, TableManager

HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


async def _worker(url: str) -> TableManager:
    m = TableManager(Database(url), bot_delay=0.0, limits=Limits.relaxed())
    await m.bus.start(m)
    return m


async def _close(*managers: TableManager) -> None:
    for m in managers:
        await m.close()
        m.db.dispose()


async def _until(pred, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not come true in time")
        await asyncio.sleep(0.02)


def _counting_reads(m: TableManager) -> list[int]:
    """Count the catch-up reads of ``m`` (``Replica.read_changes``) while keeping them working."""
    reads: list[int] = []
    real = m.replica.read_changes

    def counted(*args):
        reads.append(args[1])
        return real(*args)

    m.replica.read_changes = counted
    return reads


def _same_copy(a, b) -> None:
    assert b.version == a.version and b.rev == a.rev
    assert b.match.actions == a.match.actions
    for viewer in (None, 0, 1):
        assert json.dumps(b.state.view(viewer), sort_keys=True) == json.dumps(a.state.view(viewer), sort_keys=True)
    assert b.decision_since == a.decision_since and b.checkpoints == a.checkpoints
    assert b.updated_at == a.updated_at


def test_a_worker_one_version_behind_applies_the_action_from_the_notice(postgres_url, toy_registered):
    async def scenario():
        one, two = await _worker(postgres_url), await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            copy = await two.get(table.id)  # cached at the second worker too
            reads = _counting_reads(two)
            await one.submit(table, 0, {"type": "pick", "n": 1}, 0)
            await _until(lambda: copy.version == 1)
            await one.submit(table, 1, {"type": "pick", "n": 2}, 0)
            await _until(lambda: copy.version == 2)
            assert reads == []  # both applied from the notices, nothing read
            _same_copy(table, copy)
            # the second worker's copy is good to write from: its next action is accepted there
            await two.submit(copy, 0, {"type": "pick", "n": 3}, copy.version)
            await _until(lambda: table.version == 3)
            _same_copy(copy, table)
        finally:
            await _close(one, two)

    asyncio.run(scenario())


def test_a_missed_notice_is_a_gap_the_worker_reads_the_rows(postgres_url, toy_registered):
    async def scenario():
        one, two = await _worker(postgres_url), await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            copy = await two.get(table.id)
            reads = _counting_reads(two)
            heard = two.on_notify
            dropped: list[dict] = []

            def lossy(msg):  # the first action notice never arrives
                if msg.get("k") == "action" and not dropped:
                    dropped.append(msg)
                    return
                heard(msg)

            two.on_notify = lossy  # what the bus calls with every notice
            await one.submit(table, 0, {"type": "pick", "n": 1}, 0)
            await _until(lambda: bool(dropped))
            await asyncio.sleep(0.2)
            assert copy.version == 0
            await one.submit(table, 1, {"type": "pick", "n": 2}, 0)
            await _until(lambda: copy.version == 2)
            assert reads == [0]  # revision 2 after 0: a gap, so the rows were read (from version 0)
            _same_copy(table, copy)
        finally:
            await _close(one, two)

    asyncio.run(scenario())


def test_a_worker_lets_go_of_a_table_nobody_there_needs_and_reads_it_again_when_asked(postgres_url, toy_registered):
    """A copy nobody at this worker is connected to, asked for, changing or driving is dropped at
    the next notice instead of being caught up (a balancer routing by table: the worker that
    created a table its players play elsewhere would otherwise apply every move of it)."""
    async def scenario():
        one, two = await _worker(postgres_url), await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)  # one holds the lease
            copy = await two.get(table.id)
            await _move(one, table, 1)
            await _until(lambda: copy.version == 1)  # asked for just now: followed
            await _settled(two, table.id)
            two.replica.IDLE_AFTER = one.replica.IDLE_AFTER = 0.0
            await _move(one, table, 2)
            await _until(lambda: table.id not in two.tables)
            assert copy.version == 1  # let go, not caught up
            assert table.id in one.tables  # the lease holder keeps its copy
            two.replica.IDLE_AFTER = 15.0
            again = await two.get(table.id)  # asked for again: read from the database
            assert again is not copy
            _same_copy(table, again)
            await _move(one, table, 3)
            await _until(lambda: again.version == 3)
            _same_copy(table, again)
            # what keeps a copy: a connection here, a change in progress here, the lease
            two.replica.IDLE_AFTER = 0.0
            sub = Subscriber(None, _ignore)
            sub.start()
            assert two.subscribe(again, sub) is again
            await _move(one, table, 1)
            await _until(lambda: again.version == 4)
            two.unsubscribe(again, sub)
            await sub.stop()
            async with again.lock:
                await _move(one, table, 1)
                await asyncio.sleep(0.3)
                assert two.tables.get(table.id) is again
            await _until(lambda: again.version == 5)  # caught up once the change here was done
            one.replica.IDLE_AFTER = 0.0
            await _move(two, again, 1)
            await _until(lambda: table.version == 6)
            assert one.tables.get(table.id) is table
        finally:
            await _close(one, two)

    asyncio.run(scenario())


async def _move(m: TableManager, table, n: int) -> None:
    """The seat to move at ``table`` (a copy at ``m``) picks ``n`` at the copy's version."""
    await m.submit(table, table.state.to_move()[0], {"type": "pick", "n": n}, table.version)


async def _ignore(_text: str) -> None:
    return None


async def _settled(m: TableManager, table_id: str) -> None:
    """Wait until ``m`` has heard and handled every notice sent so far about ``table_id``.

    A notice heard while the copy is busy (catching up with an earlier notice that arrived late
    on a loaded machine) rightly keeps the copy, so a test of letting go first lets the notices
    already on their way land.  PostgreSQL delivers notices in commit order, so once a marker
    sent now has arrived, every earlier notice has too; then the catch-up they started must end.
    """
    marker = f"settled-{time.monotonic_ns()}"
    heard: list[str] = []
    real = m.on_notify

    def hearing(msg):
        heard.append(msg.get("t"))
        real(msg)

    m.on_notify = hearing
    try:
        await _presence_notice(m, marker)
        await _until(lambda: marker in heard)
    finally:
        del m.on_notify
    table = m.tables[table_id]
    await _until(lambda: table_id not in m.replica._catching and not m.replica._notices.get(table_id)
                 and not table.lock.locked())


async def _until_let_go(m: TableManager, table_id: str, copy) -> None:
    """Wait until ``m`` no longer caches ``copy``.  A worker lets an idle copy go when a notice
    for it arrives; a copy still busy catching up then (say, with a late notice of the table's
    creation, on a loaded machine) is rightly kept until the next one.  So while waiting, nudge
    with a notice that changes nothing (a presence change) now and then."""
    for _ in range(10):
        try:
            await _until(lambda: m.tables.get(table_id) is not copy, timeout=2.0)
            return
        except AssertionError:
            await _presence_notice(m, table_id)
    raise AssertionError("the copy was never let go")


async def _presence_notice(m: TableManager, table_id: str) -> None:
    """Send, as another worker would, a notice that ``table_id``'s presence changed (it changes
    nothing the table holds)."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(m.bus.conninfo, autocommit=True) as conn:
        await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps({"t": table_id, "k": "presence"})))


def test_a_socket_subscribing_to_a_copy_let_go_meanwhile_follows_the_table(postgres_url, toy_registered):
    """The WebSocket handler loads a table, then subscribes after a few awaits; a copy dropped in
    between must not leave the socket on a copy nobody updates."""
    async def scenario():
        one, two = await _worker(postgres_url), await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            for cached_again in (False, True):
                copy = await two.get(table.id)
                two.replica.IDLE_AFTER = 0.0
                await _move(one, table, 1)
                await _until_let_go(two, table.id, copy)
                two.replica.IDLE_AFTER = 15.0
                newer = await two.get(table.id) if cached_again else None
                got: list[dict] = []

                async def send(text: str, got=got) -> None:
                    got.append(json.loads(text))

                sub = Subscriber(0, send, token=table.seats[0].token)  # seat 0, opened with its token
                sub.start()
                followed = two.subscribe(copy, sub)
                assert followed is (newer if cached_again else copy)
                assert two.tables.get(table.id) is followed
                await _until(lambda followed=followed: followed.version == table.version)
                await _move(one, table, 2)
                await _until(lambda got=got: any(m.get("type") == "state" and m["version"] == table.version
                                                 for m in got))
                _same_copy(table, followed)
                two.unsubscribe(followed, sub)
                await sub.stop()
        finally:
            await _close(one, two)

    asyncio.run(scenario())


def test_malformed_notices_are_skipped_and_the_worker_keeps_listening(postgres_url, toy_registered):
    """Whatever arrives on the channel (not JSON, JSON of the wrong shape, deep nesting, bytes
    that are not UTF-8, notices for unknown tables or with bad fields): skipped or read again
    from the database, never a lost connection; the next real move still reaches the copy."""
    import psycopg

    async def scenario():
        one, two = await _worker(postgres_url), await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            copy = await two.get(table.id)
            listening = two.bus._listen_conn
            junk = ["", "not json", "[1, 2]", "null", '"text"', "{}", '{"t": 5, "k": "action"}',
                    '{"t": "nosuch", "k": "action"}', '{"t": "%s", "k": 7}' % table.id,
                    '{"t": "%s", "k": "action", "r": "x", "v": null}' % table.id,
                    '{"t": "%s", "k": "action", "r": 1, "v": 1, "s": 9, "a": {}, "u": "x"}' % table.id,
                    "[" * 3000 + "]" * 3000, '{"t": "%s", "k": "deleted", "w": [' % table.id]
            async with await psycopg.AsyncConnection.connect(two.bus.conninfo, autocommit=True) as conn:
                for payload in junk:
                    await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                await conn.execute(r"SELECT pg_notify(%s, convert_from('\xc3'::bytea, 'LATIN1'))", (CHANNEL,))
            await asyncio.sleep(0.5)
            assert two.bus._listen_conn is listening  # never reconnected
            assert two.tables.get(table.id) is copy and copy.version == 0
            await one.submit(table, 0, {"type": "pick", "n": 1}, 0)
            await _until(lambda: copy.version == 1)
            _same_copy(table, copy)
        finally:
            await _close(one, two)

    asyncio.run(scenario())


def test_notices_apply_only_in_order_and_only_with_their_action(postgres_url, toy_registered):
    """``Replica.apply_notes`` refuses (None: read instead) anything but the actions right after the copy."""
    async def scenario():
        one = await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            r, v = table.rev, table.version
            note = {"t": table.id, "k": "action", "r": r + 1, "v": v + 1, "s": 0, "a": {"type": "pick", "n": 1},
                    "u": "2026-01-01T00:00:00"}
            assert one.replica.apply_notes(table, [dict(note, r=r + 2)]) is None  # a revision skipped
            assert one.replica.apply_notes(table, [dict(note, v=v + 2)]) is None  # a version skipped
            assert one.replica.apply_notes(table, [{k: x for k, x in note.items() if k != "a"}]) is None  # too big
            assert one.replica.apply_notes(table, [note, dict(note, r=r + 3, v=v + 2)]) is None
            assert table.version == v and table.rev == r  # nothing applied by a refused batch
            assert one.replica.apply_notes(table, [dict(note, r=r, v=v)]) is False  # already here
            assert one.replica.apply_notes(table, [note]) is True
            assert table.version == v + 1 and table.rev == r + 1
        finally:
            await _close(one)

    asyncio.run(scenario())


def test_a_notice_too_big_for_postgresql_goes_without_its_action():
    bus = PgBus.__new__(PgBus)
    bus.worker = "w"
    _, small = bus.action_notice("t1", v=3, r=5, s=0, a={"type": "pick", "n": 1}, u="x")
    assert json.loads(small)["a"] == {"type": "pick", "n": 1}
    _, big = bus.action_notice("t1", v=3, r=5, s=0, a={"type": "say", "text": "é" * NOTICE_MAX}, u="x")
    assert len(big.encode("utf-8")) <= NOTICE_MAX
    assert json.loads(big) == {"t": "t1", "k": "action", "w": "w", "v": 3, "r": 5}


def test_actions_are_stored_after_the_database_dropped_every_pooled_connection(postgres_url, toy_registered):
    """No ``pool_pre_ping``: a restarted database breaks the pooled connections, the retry takes a new one."""
    from sqlalchemy import create_engine, text

    from gemtable.server.db import normalize_url

    async def scenario():
        one = await _worker(postgres_url)
        admin = create_engine(normalize_url(postgres_url), isolation_level="AUTOCOMMIT")
        try:
            table = await one.create("toy", 2, None, HUMANS)
            await one.submit(table, 0, {"type": "pick", "n": 1}, 0)
            with admin.connect() as c:  # what a restart does to the server's pooled connections
                killed = c.execute(text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                    "AND datname = current_database() AND application_name NOT LIKE 'gemtable worker%'")).scalar()
            assert killed >= 1
            await one.submit(table, 1, {"type": "pick", "n": 2}, 0)
            assert table.version == 2
            assert await one.healthy()
        finally:
            admin.dispose()
            await _close(one)

    asyncio.run(scenario())


# -- one statement per action on PostgreSQL ------------------------------------------------------
def _listener(url: str):
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    conn.execute("LISTEN gemtable")
    return conn


def _heard(conn, seconds: float = 0.5) -> list[dict]:
    return [json.loads(n.payload) for n in conn.notifies(timeout=seconds)]


def _rows(manager, table_id: str) -> tuple:
    from sqlalchemy import text

    with manager.db.engine.connect() as c:
        rev, status, result = c.execute(text("SELECT rev, status, result FROM gt_tables WHERE id = :i"),
                                        {"i": table_id}).one()
        actions = c.execute(text('SELECT "index", seat, action, nonce FROM gt_actions WHERE table_id = :i '
                                 'ORDER BY "index"'), {"i": table_id}).all()
        play = c.execute(text("SELECT data, rematch FROM gt_table_play WHERE table_id = :i"),
                         {"i": table_id}).all()
    return rev, status, result, [tuple(a) for a in actions], [tuple(p) for p in play]


def test_an_action_is_stored_by_one_statement_all_or_nothing(postgres_url, toy_registered):
    """The revision check, the action row, the clocks and the notice are one statement, sent from
    the event loop: a stale revision or a taken index writes nothing and announces nothing."""
    from sqlalchemy.exc import IntegrityError

    from gemtable.server.db import ActionStore, utcnow

    async def scenario():
        one = await _worker(postgres_url)
        listen = _listener(postgres_url)
        store = ActionStore(postgres_url, size=2)
        try:
            assert one.db.one_statement and one.storage.action_store is not None
            table = await one.create("toy", 2, None, HUMANS)
            rev0 = table.rev  # (the worker's copy catches up with what is stored below)
            before = _rows(one, table.id)
            _heard(listen, 0.2)  # the creation's notices
            base = {"id": table.id, "expected": rev0, "rev": rev0 + 1, "updated": utcnow(), "index": 0,
                    "seat": 0, "action": '{"type":"pick","n":1}', "nonce": "n1", "channel": "gemtable",
                    "payload": json.dumps({"t": table.id, "k": "test"}), "result": None,
                    "play": '{"left":[1000,2000]}', "rematch": None}
            # a stale revision: nothing written, nothing announced
            assert await store.store(dict(base, expected=rev0 + 7, rev=rev0 + 8),
                                     finished=False, clocks=True) is False
            assert _rows(one, table.id) == before and _heard(listen) == []
            # stored: the row, the clocks and the notice (after the commit)
            assert await store.store(base, finished=False, clocks=True) is True
            rev, status, _, actions, play = _rows(one, table.id)
            assert rev == rev0 + 1 and status == before[1]
            assert actions == [(0, 0, {"type": "pick", "n": 1}, "n1")]
            assert play == [({"left": [1000, 2000]}, None)]
            assert _heard(listen) == [{"t": table.id, "k": "test"}]
            # the index is taken (the revision matches): an IntegrityError, and nothing changed
            with pytest.raises(IntegrityError):
                await store.store(dict(base, expected=rev0 + 1, rev=rev0 + 2, nonce="n2",
                                       play='{"left":[1,2]}'), finished=False, clocks=True)
            assert _rows(one, table.id)[0] == rev0 + 1 and _rows(one, table.id)[4] == play
            assert _heard(listen) == []
            # the last action: the table is finished with its result; the clocks row is updated
            assert await store.store(dict(base, expected=rev0 + 1, rev=rev0 + 2, index=1,
                                          result='{"winners":[0]}', play='{"left":[5,6]}', rematch="abc"),
                                     finished=True, clocks=True)
            rev, status, result, actions, play = _rows(one, table.id)
            assert (rev, status, result) == (rev0 + 2, "finished", {"winners": [0]})
            assert len(actions) == 2 and play == [({"left": [5, 6]}, "abc")]
            # a closed store refuses (as an unavailable database) and opens no new connection
            await store.close()
            from sqlalchemy.exc import OperationalError
            with pytest.raises(OperationalError):
                await store.store(base, finished=False, clocks=False)
        finally:
            listen.close()
            await store.close()
            await _close(one)

    asyncio.run(scenario())


def test_a_commit_tried_again_after_a_lost_acknowledgement_recognises_its_own_row(postgres_url, toy_registered):
    """Both ways of storing (the one statement from the event loop, SQLAlchemy Core in a thread):
    the same submission again is fine, another one at that index is a conflict."""
    from gemtable.server.db import Conflict, utcnow

    async def scenario():
        one = await _worker(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            # the stored revision before these writes (the worker's own copy may catch up with
            # them in the background, so its ``rev`` is not read again)
            rev = table.rev
            args = (table.id, 0, 0, {"type": "pick", "n": 1}, utcnow(), None)
            await one.storage.store_action(*args, expected=rev, nonce="mine")
            await one.storage.store_action(*args, expected=rev, nonce="mine")  # the same submission again
            with pytest.raises(Conflict):  # another submission at that index: a conflict
                await one.storage.store_action(*args, expected=rev, nonce="other")
            later = (table.id, 1, 1, {"type": "pick", "n": 2}, utcnow(), None)
            one.storage.commit(*later, expected=rev + 1, nonce="core")
            one.storage.commit(*later, expected=rev + 1, nonce="core")
            with pytest.raises(Conflict):
                one.storage.commit(*later, expected=rev + 1, nonce="other")
            assert [a[3] for a in _rows(one, table.id)[3]] == ["mine", "core"]
        finally:
            await _close(one)

    asyncio.run(scenario())


def test_both_stores_announce_the_action_with_its_clocks(postgres_url, toy_registered):
    """Other workers apply an action from its notice, clocks included, whichever way it was stored
    (the event loop's one statement, or SQLAlchemy Core in a thread without psycopg's pool)."""
    from gemtable.server.db import utcnow

    async def scenario():
        one = await _worker(postgres_url)
        listen = _listener(postgres_url)
        try:
            table = await one.create("toy", 2, None, HUMANS)
            _heard(listen, 0.2)
            rev = table.rev
            await one.storage.store_action(table.id, 0, 0, {"type": "pick", "n": 1}, utcnow(), None, expected=rev,
                                    nonce="a", play={"left": [1, 2]})
            one.storage.commit(table.id, 1, 1, {"type": "pick", "n": 2}, utcnow(), None, expected=rev + 1, nonce="b",
                        play={"left": [3, 4]})
            notes = [n for n in _heard(listen) if n.get("k") == "action"]
            assert [(n["v"], n["r"], n["s"], n["a"], n["p"]) for n in notes] == [
                (1, rev + 1, 0, {"type": "pick", "n": 1}, {"left": [1, 2]}),
                (2, rev + 2, 1, {"type": "pick", "n": 2}, {"left": [3, 4]})]
        finally:
            listen.close()
            await _close(one)

    asyncio.run(scenario())


def test_websocket_messages_encode_whatever_the_standard_library_encoded():
    """orjson on the hot path; what it refuses (a lone surrogate, an integer beyond 64 bits)
    still goes out, as the standard library writes it."""
    from gemtable.server.hub import encode_message

    plain = {"type": "state", "n": 3, "x": 0.5, "names": ["Ann", "Zoë"], 2: [None, True]}
    assert json.loads(encode_message(plain)) == json.loads(json.dumps(plain))
    for odd in ({"text": "\ud800"}, {"n": 2**70}):
        assert encode_message(odd) == json.dumps(odd, separators=(",", ":"))


def test_messages_are_read_as_the_standard_library_reads_them():
    """Client messages and notices are parsed by orjson where it can: what the standard library
    accepts beyond it (NaN, integers beyond 64 bits, lone surrogates) is still read, and what it
    refuses is still refused with the same kind of error."""
    import math

    from gemtable.server.limits import parse_message

    for text in ('{"type":"action","version":3,"action":{"type":"take","gems":[0,1,2]}}',
                 '{"n": 18446744073709551616}', '{"t": "\\ud800"}', '[1.5e300, -0.0, "Zoë"]', '{"a":1,"a":2}'):
        assert parse_message(text) == json.loads(text)
    assert math.isnan(parse_message('{"x": NaN}')["x"])
    for bad in ("", "{", '{"a":}', "[1,]", "tru"):
        with pytest.raises(ValueError):
            parse_message(bad)
    with pytest.raises(RecursionError):
        parse_message("[" * 100_000 + "]" * 100_000)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=20))
@settings(max_examples=300, deadline=None)
def test_any_json_value_is_read_as_the_standard_library_reads_it(value):
    from gemtable.server.limits import parse_message

    text = json.dumps(value)
    assert parse_message(text) == json.loads(text)
    assert parse_message(text.encode()) == json.loads(text)  # a notice arrives as bytes


@pytest.mark.parametrize("number", [2**63 - 1, -2**63, -2**63 - 1, 2**64 - 1, 2**64, -10**30, 10**100])
def test_an_integer_beyond_64_bits_stays_an_integer(number):
    """orjson reads such an integer as a float; the standard library's exact integer stands."""
    from gemtable.server.limits import parse_message

    for text in (str(number), f'{{"version": {number}, "n": [1, {number}]}}'):
        assert parse_message(text) == json.loads(text)
        assert parse_message(text.encode()) == json.loads(text)
        got = parse_message(text)
        assert type(got if isinstance(got, int) else got["version"]) is int


# -- GET /api/health -----------------------------------------------------------------------------
def test_health_answers_ok_when_the_database_answers(client):
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert r.headers["cache-control"] == "no-store"


def test_health_answers_503_when_the_database_does_not(client):
    from sqlalchemy import create_engine

    manager = client.app.state.manager
    real = manager.db.engine
    # a database that refuses connections (nothing listens on port 1)
    manager.db.engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    try:
        r = client.get("/api/health")
    finally:
        manager.db.engine.dispose()
        manager.db.engine = real
    assert r.status_code == 503
    body = r.json()
    assert body["ok"] is False and body["error"] == "database"
    assert "127.0.0.1" not in r.text and "nobody" not in r.text  # nothing about the database is told


def test_a_server_process_sets_its_garbage_collector_up_for_serving():
    """`gemtable serve`'s processes: startup's objects frozen, full collections rare (in a child
    process, so this test process keeps its own collector settings)."""
    import subprocess
    import sys

    code = ("import gc; from gemtable.server.app import server_gc, SERVER_GC_THRESHOLDS as T; "
            "before = gc.get_threshold(); server_gc(); "
            "print(before == (700, 10, 10), gc.get_threshold() == T, gc.get_freeze_count() > 1000, "
            "T[0] > 700 and T[2] >= 100)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True", "True", "True"]
