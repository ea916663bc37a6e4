"""Persistence: SQLAlchemy 2 models for tables, seats and the action log.

A table is stored as what is needed to rebuild it exactly: game id, player
count, options, seed, the seats (human or bot spec, secret token) and the
ordered log of accepted actions.  The state itself is never stored: it is
rebuilt by replaying the match, which is also how a restart resumes a game.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import os
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    create_engine,
    event,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "gt_tables"
    # statistics read a game's latest finished tables (stats.py)
    __table_args__ = (Index("ix_gt_tables_game_status", "game_id", "status", "updated_at"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(64))
    num_players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="running")  # running | finished
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # the creator chose the seed (and so may know the hidden cards): every seat is told
    seed_chosen: Mapped[bool] = mapped_column(Boolean, default=False)
    # a hash of the creating client's address (lobby fairness); never the address itself
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # lobby (status "waiting" until every seat is taken or the host starts it)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    host_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    host_player: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # the ratings were updated from this finished table (or it was found not to be rated)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    # bumped by every change of the table's state (action, undo, seats, clocks and away seats):
    # a worker writes only if the row still has the revision its cached copy was built from
    rev: Mapped[int] = mapped_column(Integer, default=0)

    seats: Mapped[list["SeatRow"]] = relationship(
        back_populates="table", order_by="SeatRow.seat", cascade="all, delete-orphan"
    )
    actions: Mapped[list["ActionRow"]] = relationship(
        back_populates="table", order_by="ActionRow.index", cascade="all, delete-orphan"
    )


class SeatRow(Base):
    __tablename__ = "gt_seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("gt_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    bot: Mapped[str | None] = mapped_column(String(200), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    token: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    joined: Mapped[bool] = mapped_column(Boolean, default=False)
    # the player (gt_players.id) holding the seat; "open" seats can be joined from the lobby
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    open_seat: Mapped[bool] = mapped_column(Boolean, default=False)

    table: Mapped[TableRow] = relationship(back_populates="seats")


class ActionRow(Base):
    __tablename__ = "gt_actions"

    table_id: Mapped[str] = mapped_column(ForeignKey("gt_tables.id"), primary_key=True)
    index: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0-based move number
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # random per submission: tells "my earlier attempt did reach the database" from "another
    # worker stored an action at this index" (which is a conflict, never a success)
    nonce: Mapped[str | None] = mapped_column(String(16), nullable=True)

    table: Mapped[TableRow] = relationship(back_populates="actions")


class PlayerRow(Base):
    """A player: a guest (no password) or an account.  ``id`` is the random id in the cookie."""

    __tablename__ = "gt_players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(100), unique=True, index=True)  # case-folded name
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # until when a cookie of the format before sessions (the signed player id) still counts
    # for this guest; None: until the guest's first session (players.py explains)
    old_cookie_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True, default=utcnow)
    lang: Mapped[str | None] = mapped_column(String(8), nullable=True)  # chosen language (language.py)


class SessionRow(Base):
    """A logged-in browser: the cookie's session secret, known here only by its SHA-256 hash.

    A session ends when it is unused for a while (``last_seen``), at ``expires_at`` (the
    cookie's lifetime), at logout, or when the player ends its sessions (players.py).
    """

    __tablename__ = "gt_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # hex SHA-256 of the secret
    player_id: Mapped[str] = mapped_column(String(32), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    last_seen: Mapped[dt.datetime] = mapped_column(DateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)


class SettingRow(Base):
    """Server-wide values shared by every worker (the cookie secret)."""

    __tablename__ = "gt_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class RatingRow(Base):
    """An OpenSkill rating per game: ``subject`` is "p:<player id>" or "bot:<level>"."""

    __tablename__ = "gt_ratings"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    subject: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class RatingHistoryRow(Base):
    """One rated subject's rating after one rated table (written with the new rating, in the
    same transaction; tables rated before this table existed have no row)."""

    __tablename__ = "gt_rating_history"
    __table_args__ = (Index("ix_gt_rating_history_subject", "subject", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(64))
    subject: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str] = mapped_column(String(32))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


def default_db_url() -> str:
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("gemtable", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'gemtable.sqlite3'}"


def normalize_url(url: str) -> str:
    """Accept a bare path, sqlite:// and postgresql:// URLs (psycopg 3 preferred)."""
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser()}"
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            try:
                import psycopg  # noqa: F401

                return "postgresql+psycopg://" + url[len(prefix):]
            except ImportError:  # pragma: no cover - psycopg2 or nothing
                return "postgresql://" + url[len(prefix):]
    return url


class Database:
    def __init__(self, url: str | None = None) -> None:
        self.url = normalize_url(url or default_db_url())
        # hide_parameters: a database error's message (logged) never holds a row's values, such as
        # a player's e-mail address
        kwargs: dict[str, Any] = {"future": True, "hide_parameters": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
        # PostgreSQL: no pool_pre_ping (a round trip before every transaction).  A database that
        # went away and came back breaks the pooled connections' first use instead: SQLAlchemy
        # sees a disconnection, invalidates the pool, and the server's callers try again on a
        # fresh connection (TableManager.run_db retries such errors; tested in test_perf.py).
        self.engine: Engine = create_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):

            @event.listens_for(self.engine, "connect")
            def _sqlite_pragmas(conn, _record):  # pragma: no cover - trivial
                cur = conn.cursor()
                cur.execute("PRAGMA foreign_keys=ON")
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=FULL")
                cur.close()

        self._create_schema()
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    # columns added after the first release: databases made before them get them here
    NEW_COLUMNS = {
        "gt_tables": {"seed_chosen": "BOOLEAN NOT NULL DEFAULT FALSE", "creator": "VARCHAR(64)",
                      "private": "BOOLEAN NOT NULL DEFAULT FALSE", "host_seat": "INTEGER",
                      "host_player": "VARCHAR(32)", "rated": "BOOLEAN NOT NULL DEFAULT FALSE",
                      "rev": "INTEGER NOT NULL DEFAULT 0"},
        "gt_seats": {"player_id": "VARCHAR(32)", "open_seat": "BOOLEAN NOT NULL DEFAULT FALSE"},
        "gt_actions": {"nonce": "VARCHAR(16)"},
        "gt_table_play": {"alive_ms": "BIGINT"},
        "gt_players": {"old_cookie_until": "TIMESTAMP", "lang": "VARCHAR(8)"},
        "gt_chat": {"msg": "TEXT"},
    }

    @property
    def shared(self) -> bool:
        """PostgreSQL: several workers may share this database (see bus.py)."""
        return self.url.startswith("postgresql")

    @functools.cached_property
    def one_statement(self) -> bool:
        """PostgreSQL through psycopg 3 with its pool installed: an action is stored by one
        statement from the event loop (``ActionStore``)."""
        import importlib.util

        dialect = self.engine.dialect
        return (dialect.name == "postgresql" and dialect.driver == "psycopg"
                and importlib.util.find_spec("psycopg_pool") is not None)

    def _create_schema(self) -> None:
        """Create missing tables and columns; workers starting together take turns (PostgreSQL lock)."""
        from sqlalchemy import text

        with self.engine.begin() as conn:
            if self.shared:
                conn.execute(text("SELECT pg_advisory_xact_lock(7469767361)"))  # "gemtable schema"
            Base.metadata.create_all(conn)
            self._add_missing_columns(conn)
            for table in Base.metadata.sorted_tables:  # indexes added to tables that already existed
                for index in table.indexes:
                    index.create(conn, checkfirst=True)

    def _add_missing_columns(self, conn) -> None:
        from sqlalchemy import inspect, text

        inspector = inspect(conn)
        for table, columns in self.NEW_COLUMNS.items():
            have = {c["name"] for c in inspector.get_columns(table)}
            for name, ddl in columns.items():
                if name not in have:
                    conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}"))

    def session(self) -> Session:
        return self.sessions()

    def ping(self) -> None:
        """A trivial query (health checks); raises when the database does not answer.

        A pooled connection broken by a database restart is noticed here and
        the pool replaced: one more try on a fresh connection.
        """
        from sqlalchemy import text
        from sqlalchemy.exc import DBAPIError

        for attempt in range(2):
            try:
                with self.engine.connect() as conn:
                    conn.execute(text("SELECT 1")).scalar_one()
                return
            except DBAPIError as exc:
                if attempt or not exc.connection_invalidated:
                    raise

    def dispose(self) -> None:
        self.engine.dispose()

    # -- queries ---------------------------------------------------------------
    def unfinished_ids(self) -> list[str]:
        with self.session() as s:
            return list(s.scalars(select(TableRow.id).where(TableRow.status != "finished")))

    def list_tables(self, limit: int = 100, per_creator: int | None = None) -> list[TableRow]:
        """The most recently active tables, seats loaded, each with ``moves`` (action count).

        At most ``per_creator`` tables of one creator: one client creating many
        tables cannot push everyone else's out of the listing.
        """
        from sqlalchemy import func

        with self.session() as s:
            listed = TableRow.private.is_not(True)  # private tables: invite links only
            if per_creator is None:
                rows = s.scalars(select(TableRow).where(listed).order_by(TableRow.updated_at.desc()).limit(limit)).all()
            else:
                rank = func.row_number().over(
                    partition_by=func.coalesce(TableRow.creator, TableRow.id),
                    order_by=TableRow.updated_at.desc(),
                ).label("rank")
                inner = select(TableRow.id, TableRow.updated_at, rank).where(listed).subquery()
                ids = list(s.scalars(
                    select(inner.c.id).where(inner.c.rank <= per_creator)
                    .order_by(inner.c.updated_at.desc()).limit(limit)
                ))
                by_id = {r.id: r for r in s.scalars(select(TableRow).where(TableRow.id.in_(ids)))} if ids else {}
                rows = [by_id[i] for i in ids if i in by_id]
            ids = [r.id for r in rows]
            counts = dict(s.execute(
                select(ActionRow.table_id, func.count()).where(ActionRow.table_id.in_(ids)).group_by(ActionRow.table_id)
            ).all()) if ids else {}
            for r in rows:
                _ = r.seats  # load while the session is open
                r.moves = counts.get(r.id, 0)
            return list(rows)

    def expired_ids(self, cutoff: dt.datetime) -> list[str]:
        """Unfinished tables created before ``cutoff`` at which no person ever acted."""
        from sqlalchemy import and_, exists

        human_action = exists().where(and_(
            ActionRow.table_id == TableRow.id,
            SeatRow.table_id == ActionRow.table_id,
            SeatRow.seat == ActionRow.seat,
            SeatRow.kind == "human",
        ))
        with self.session() as s:
            return list(s.scalars(
                select(TableRow.id).where(TableRow.status != "finished", TableRow.created_at < cutoff, ~human_action)
            ))

    def expired_waiting_ids(self, cutoff: dt.datetime) -> list[str]:
        """Tables still waiting for players whose seats last changed before ``cutoff``."""
        with self.session() as s:
            return list(s.scalars(
                select(TableRow.id).where(TableRow.status == "waiting", TableRow.updated_at < cutoff)
            ))

    def delete_table(self, table_id: str) -> None:
        from sqlalchemy import delete

        with self.session() as s:
            s.execute(delete(ActionRow).where(ActionRow.table_id == table_id))
            s.execute(delete(ChatRow).where(ChatRow.table_id == table_id))  # SERVER-B
            s.execute(delete(PlayRow).where(PlayRow.table_id == table_id))
            s.execute(delete(KickedRow).where(KickedRow.table_id == table_id))
            s.execute(delete(PresenceRow).where(PresenceRow.table_id == table_id))
            s.execute(delete(ReviewRow).where(ReviewRow.table_id == table_id))
            s.execute(delete(HintRow).where(HintRow.table_id == table_id))
            s.execute(delete(PracticeRow).where(PracticeRow.table_id == table_id))
            s.execute(delete(SeatRow).where(SeatRow.table_id == table_id))
            s.execute(delete(SeatInviteRow).where(SeatInviteRow.table_id == table_id))  # community
            s.execute(delete(TurnRow).where(TurnRow.table_id == table_id))
            s.execute(delete(TurnVersionRow).where(TurnVersionRow.table_id == table_id))
            s.execute(delete(TableRow).where(TableRow.id == table_id))
            s.commit()

    def load(self, table_id: str) -> tuple[TableRow, list[SeatRow], list[ActionRow]] | None:
        with self.session() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            return row, list(row.seats), list(row.actions)


# -- in-table play (SERVER-B): chat, clocks, away seats, rematch -------------------------
# Separate tables (no foreign keys): a table's rows are removed by ``delete_table``.
class ChatRow(Base):
    """One chat line of a table: typed by a seat or a spectator, or a system line (``system``)."""

    __tablename__ = "gt_chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(2000))  # a system line: its English text
    system: Mapped[bool] = mapped_column(Boolean, default=False)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # a system line as its message (JSON, chat.py), so that every reader reads it in their language
    msg: Mapped[str | None] = mapped_column(Text, nullable=True)


class PlayRow(Base):
    """A table's time control and in-play state: clocks, away/replaced seats, mute, rematch.

    ``data`` is what ``clocks.PlayState.to_json`` writes: remaining milliseconds per seat and,
    for each running clock, the epoch milliseconds at which it was last started.
    """

    __tablename__ = "gt_table_play"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # when the worker driving the table's clocks was last known alive (epoch ms, its heartbeat):
    # a worker taking the table over charges running clocks up to here, not further
    alive_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class HeartbeatRow(Base):
    """When this server was last known alive (epoch ms): clock time after it is not charged."""

    __tablename__ = "gt_heartbeat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at_ms: Mapped[int] = mapped_column(BigInteger)


# -- several workers on one database (bus.py) ------------------------------------------------
class KickedRow(Base):
    """A player the host removed from a waiting table: they cannot join it again."""

    __tablename__ = "gt_kicked"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)


class WorkerRow(Base):
    """A live worker (PostgreSQL deployments): its id and when it last said it was alive."""

    __tablename__ = "gt_workers"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    alive_ms: Mapped[int] = mapped_column(BigInteger)


class PresenceRow(Base):
    """A seat with an open connection at a worker (rows of dead workers are ignored and swept)."""

    __tablename__ = "gt_presence"

    worker: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)


class ReviewRow(Base):
    """The review of a finished table (reviews.py): asked for, being computed (``worker``
    claimed it at ``claimed_ms``), done (``data``) or failed (``error``)."""

    __tablename__ = "gt_reviews"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued | working | done | failed
    worker: Mapped[str | None] = mapped_column(String(32), nullable=True)
    claimed_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(400), nullable=True)
    asked_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class PracticeRow(Base):
    """A table marked as practice by its creator (hints.py): hints for every seat, not rated."""

    __tablename__ = "gt_practice"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)


class HintRow(Base):
    """A seat of a table was shown hints (hints.py): the table is not rated."""

    __tablename__ = "gt_hints"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)


class Conflict(Exception):
    """The table changed in the database since this worker's copy was built (another worker)."""


def bump(session, table_id: str, expected: int, notify: tuple[str, str] | None = None, **values: Any) -> None:
    """In a writing transaction: move the table from revision ``expected`` to the next one.

    The row lock taken here orders concurrent writers (PostgreSQL); a writer
    whose copy is stale matches no row and gets ``Conflict`` (its transaction
    is rolled back by the caller's session or connection).  ``session`` is an
    ORM session or a Core connection (the action hot path); the statement is
    a Core one either way (no ORM bulk-update bookkeeping).

    ``notify``: (channel, payload) of a PostgreSQL notice sent by the same
    statement (``RETURNING pg_notify(...)``: one round trip less; only when
    the row matched, delivered on commit like any notice).
    """
    stmt = _bump_statement(tuple(sorted(values)), notify is not None)
    params = {"b_id": table_id, "b_expected": expected, "b_rev": expected + 1,
              **{"v_" + k: v for k, v in values.items()}}
    if notify is not None:
        params["b_channel"], params["b_payload"] = notify
        if len(session.execute(stmt, params).all()) != 1:
            raise Conflict(table_id)
        return
    if session.execute(stmt, params).rowcount != 1:
        raise Conflict(table_id)


_BUMPS: dict[tuple[tuple[str, ...], bool], Any] = {}


def _bump_statement(columns: tuple[str, ...], notify: bool) -> Any:
    """``bump``'s UPDATE for these columns, built once (building a statement per action costs CPU)."""
    stmt = _BUMPS.get((columns, notify))
    if stmt is None:
        from sqlalchemy import bindparam, func, update

        t = TableRow.__table__
        stmt = (update(t).where(t.c.id == bindparam("b_id"), t.c.rev == bindparam("b_expected"))
                .values(rev=bindparam("b_rev"), **{c: bindparam("v_" + c) for c in columns}))
        if notify:
            stmt = stmt.returning(func.pg_notify(bindparam("b_channel"), bindparam("b_payload")))
        _BUMPS[(columns, notify)] = stmt
    return stmt


# -- the action hot path on PostgreSQL: one statement, one round trip ------------------------
def _action_statement(finished: bool, clocks: bool) -> str:
    """The UPDATE of the table row (revision check), the INSERT of the action and, for timed
    tables, the upsert of the clocks, as one statement whose result row also sends the notice.

    Every part reads the row the UPDATE returned, so when the revision does not match nothing
    is written and no notice goes out (no row comes back: ``Conflict``).  Run in autocommit
    mode it is its own transaction: no BEGIN and COMMIT round trips.
    """
    sets = "rev = %(rev)s, updated_at = %(updated)s"
    if finished:
        sets += ", status = 'finished', result = %(result)s::json"
    sql = (f"WITH b AS (UPDATE gt_tables SET {sets} WHERE id = %(id)s AND rev = %(expected)s RETURNING id), "
           "a AS (INSERT INTO gt_actions (table_id, \"index\", seat, action, created_at, nonce) "
           "SELECT id, %(index)s, %(seat)s, %(action)s::json, %(updated)s, %(nonce)s FROM b)")
    if clocks:
        sql += (", p AS (INSERT INTO gt_table_play (table_id, data, rematch) "
                "SELECT id, %(play)s::json, %(rematch)s FROM b ON CONFLICT (table_id) "
                "DO UPDATE SET data = EXCLUDED.data, rematch = EXCLUDED.rematch)")
    return sql + " SELECT pg_notify(%(channel)s, %(payload)s) FROM b"


_ACTION_SQL = {(f, c): _action_statement(f, c) for f in (False, True) for c in (False, True)}


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as libpq takes it (no ``+driver``)."""
    for prefix in ("postgresql+psycopg://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix):]
    return url


class ActionStore:
    """Stores actions on PostgreSQL with the one statement above, from the event loop.

    A small pool of psycopg 3 ``AsyncConnection``s in autocommit mode (``psycopg_pool``): the
    round trip is awaited by the event loop, not waited out in a database thread.  (In a thread,
    every step of a commit had to win the interpreter lock back from a busy event loop; under
    load the threads queued and commits took hundreds of milliseconds.)

    ``store`` is True when stored (and announced on commit), False when the revision did not
    match (nothing written).  A taken index comes back as SQLAlchemy's ``IntegrityError``; a
    lost connection, an unreachable server or a closed store as its ``OperationalError`` (a
    broken connection is dropped from the pool), so callers handle both like those of the Core
    path.  The pool opens at the first action.
    """

    def __init__(self, url: str, size: int = 4, wait: float = 5.0) -> None:
        self.conninfo = libpq_url(url)
        self.size = size
        self.wait = wait  # seconds to wait for a connection before counting it as unavailable
        self._pool: Any = None
        self._opening = asyncio.Lock()  # one pool, however many actions arrive before it is open
        self._closed = False

    async def _get_pool(self) -> Any:
        async with self._opening:
            if self._closed:
                raise OperationalError("ActionStore", None, RuntimeError("the action store is closed"))
            if self._pool is None:
                from psycopg_pool import AsyncConnectionPool

                pool = AsyncConnectionPool(
                    self.conninfo, min_size=1, max_size=self.size, open=False, timeout=self.wait,
                    kwargs={"autocommit": True, "application_name": f"gemtable actions {os.getpid()}"})
                await pool.open()
                self._pool = pool
            return self._pool

    async def store(self, params: dict[str, Any], finished: bool, clocks: bool) -> bool:
        import psycopg

        sql = _ACTION_SQL[(finished, clocks)]
        pool = self._pool if self._pool is not None and not self._closed else await self._get_pool()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(sql, params)
                return (await cur.fetchone()) is not None
        except psycopg.errors.IntegrityError as exc:
            raise IntegrityError(sql, None, exc) from exc
        except psycopg.OperationalError as exc:  # also the pool's PoolTimeout and PoolClosed
            raise OperationalError(sql, None, exc) from exc

    async def close(self) -> None:
        self._closed = True
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()


# -- community (community.py, mail.py): mail addresses, the mail queue, turns, friends --------
class MailAddressRow(Base):
    """A player's e-mail address (one per player), whether it is confirmed, and what is sent there.

    ``key``: random, never shown; the signed confirm and unsubscribe links carry it (never the
    player id); a new address gets a new key, so links of an old address stop working.
    """

    __tablename__ = "gt_mail_addresses"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    address: Mapped[str] = mapped_column(String(254))
    key: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    mode: Mapped[str] = mapped_column(String(8), default="move")  # move | daily | never
    invites: Mapped[bool] = mapped_column(Boolean, default=True)  # mail when a friend invites
    # the daily digest: when it was last made (claimed by one worker: an UPDATE on this column)
    digest_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class MailRow(Base):
    """One queued mail, sent once by whichever worker claims it (mail.py explains the claim)."""

    __tablename__ = "gt_mail_queue"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    player_id: Mapped[str] = mapped_column(String(32), index=True)
    address: Mapped[str] = mapped_column(String(254))
    kind: Mapped[str] = mapped_column(String(16))  # confirm | turn | digest | invite
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    subject: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(String(20000))
    html: Mapped[str] = mapped_column(String(40000))
    unsubscribe: Mapped[str | None] = mapped_column(String(300), nullable=True)  # List-Unsubscribe URL
    status: Mapped[str] = mapped_column(String(8), default="queued", index=True)  # queued | sent | failed
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    next_try: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    claimed_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    claimed_by: Mapped[str | None] = mapped_column(String(32), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class TurnRow(Base):
    """A player whose move a running table waits for (the "your turn" list, digests)."""

    __tablename__ = "gt_turns"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    game_id: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer)  # the table's revision (``rev``) when this was written
    since: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class TurnVersionRow(Base):
    """The table revision the table's ``TurnRow``s belong to: an older writer changes nothing.
    (A revision, not a move number: an undo lowers the move number, never the revision.)"""

    __tablename__ = "gt_turn_versions"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


class FollowRow(Base):
    """``follower`` follows ``followed`` (a friend)."""

    __tablename__ = "gt_follows"

    follower: Mapped[str] = mapped_column(String(32), primary_key=True)
    followed: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class BlockRow(Base):
    """``blocker`` blocked ``blocked``: no joining the blocker's tables, no invitations."""

    __tablename__ = "gt_blocks"

    blocker: Mapped[str] = mapped_column(String(32), primary_key=True)
    blocked: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SeatInviteRow(Base):
    """A player invited to a free open seat of a waiting table (shown in their "my games")."""

    __tablename__ = "gt_seat_invites"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    to_player: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    seat: Mapped[int] = mapped_column(Integer)
    from_player: Mapped[str] = mapped_column(String(32))
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class OnlineRow(Base):
    """When a player's page last asked for news (its "your turn" list): online for a while after."""

    __tablename__ = "gt_online"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seen_at: Mapped[dt.datetime] = mapped_column(DateTime)


# -- moderation (moderation.py) ---------------------------------------------------------
class AdminRow(Base):
    """A player who moderates the site (granted by ``gemtable admin grant NAME``)."""

    __tablename__ = "gt_admins"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SanctionRow(Base):
    """A player's mute (no chat) or ban (no login, play or chat); ``until`` None: for good."""

    __tablename__ = "gt_sanctions"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)  # "mute" or "ban"
    until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    reason: Mapped[str] = mapped_column(String(500), default="")
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ReportRow(Base):
    """A player's report of a chat line or of a player, open until an admin closes it."""

    __tablename__ = "gt_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter: Mapped[str] = mapped_column(String(32), index=True)
    target: Mapped[str] = mapped_column(String(32), index=True)  # the reported player
    chat_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(String(500), default="")
    open: Mapped[bool] = mapped_column(Boolean, default=True, index=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class AuditRow(Base):
    """One admin action: who did what to whom (names as they were), never an address."""

    __tablename__ = "gt_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    admin: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(20))
    target: Mapped[str] = mapped_column(String(80))
    detail: Mapped[str] = mapped_column(String(500), default="")
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


# -- tournaments (tournaments.py) ----------------------------------------------------------
class TournamentRow(Base):
    """A tournament: its game and time control, format, schedule and where it stands.

    ``round`` is the round being played (0 before the start); it moves only by a
    compare-and-set (``UPDATE … WHERE round = r``), so one worker starts each round."""

    __tablename__ = "gt_tournaments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game_id: Mapped[str] = mapped_column(String(64))
    table_size: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    format: Mapped[str] = mapped_column(String(12))  # swiss | roundrobin
    rounds: Mapped[int] = mapped_column(Integer)  # round robin: set at the start
    round: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(12), default="open", index=True)  # open|running|finished|cancelled
    starts_at: Mapped[dt.datetime] = mapped_column(DateTime)
    max_players: Mapped[int | None] = mapped_column(Integer, nullable=True)
    no_show: Mapped[int] = mapped_column(Integer)  # seconds a seated player has to show up
    host_player: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    round_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # the round's start


class TournamentPlayerRow(Base):
    """A player registered for a tournament (``rating``: their rating when it started)."""

    __tablename__ = "gt_tournament_players"

    tournament_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    name: Mapped[str] = mapped_column(String(40))
    rating: Mapped[float] = mapped_column(Float, default=0.0)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class TournamentGameRow(Base):
    """One game of a tournament round: its players in seat order (one: a bye), its table (its id
    chosen with the pairing; ``made`` once the table exists) and, once over, each seat's place."""

    __tablename__ = "gt_tournament_games"

    tournament_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    players: Mapped[list[str]] = mapped_column(JSON)
    made: Mapped[bool] = mapped_column(Boolean, default=False)
    # (SQL NULL, not JSON null, until there is a result: "places IS NULL" finds the open games)
    places: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    forfeit: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True), nullable=True)  # seats that never showed up
    paired_by: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the process that paired the round
