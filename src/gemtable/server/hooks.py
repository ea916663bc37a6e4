"""How features plug into the table core.

The table core (tables.py, storage.py, replica.py, hub.py, botdriver.py) knows tables,
seats, actions and connections, and nothing of the lobby, clocks, chat, undo, rematch or
ratings.  A feature subclasses ``TableHooks``, overrides the points it needs, and is added
with ``TableManager.add_hooks``; the core calls every feature's hook at that point, in the
order they were added.  A feature keeps its per-table state in a record of its own
(``LiveTable.record``), never in fields of the core's table.

Hooks run under the table's lock where the core holds it (creating, loading, committing,
catching up); they must not await anything but the database calls the core hands them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .hub import Subscriber
    from .table import LiveTable, Rejected


class CommitPart:
    """What a feature adds to an action's commit (``TableHooks.before_commit``).

    ``record``: the feature's per-table JSON stored with the action in the same transaction
    (the table's live record, ``gt_table_play.data``), also carried by the action's notice to
    other workers (``TableHooks.note_applied``); ``tag``: a short string stored beside it
    (``gt_table_play.rematch``); ``done``: called once the commit went through, under the
    table's lock (install what was stored).
    """

    __slots__ = ("record", "tag", "done")

    def __init__(self, record: dict[str, Any] | None = None, tag: str | None = None, done: Any = None) -> None:
        self.record = record
        self.tag = tag
        self.done = done


class TableHooks:
    """The points where the table core calls its features (every method a no-op here)."""

    # -- creating and loading -------------------------------------------------------------
    def created(self, table: LiveTable) -> None:
        """A new table, before it is stored (the feature sets its record up)."""

    def store_new(self, session: Any, table: LiveTable) -> None:
        """In the creating transaction: the feature's rows of the new table."""

    def restored(self, table: LiveTable, row: Any, seat_rows: list[Any], extra: dict[str, Any]) -> None:
        """A table rebuilt from its rows (``extra``: what ``read_rows`` read), or rebuilt again
        from the database after another worker changed it."""

    def read_rows(self, session: Any, table_id: str) -> dict[str, Any]:
        """(A database thread) What the feature reads with a table's rows when it is loaded."""
        return {}

    async def loaded(self, table: LiveTable) -> None:
        """A table was loaded into this worker's cache (its records restored)."""

    # -- the public summary and a seat's message ---------------------------------------------
    def summary(self, table: LiveTable, out: dict[str, Any]) -> None:
        """Add the feature's public fields to a table's summary (lobby, every message)."""

    def row_summary(self, row: Any, out: dict[str, Any]) -> None:
        """The same for a table that is not in memory, from its rows (the lobby's list)."""

    def payload(self, table: LiveTable, msg: dict[str, Any], viewer: int | None, reset: bool) -> None:
        """Add the feature's fields to the ``state`` message of ``viewer`` (None: a spectator)."""

    def result(self, table: LiveTable, result: dict[str, Any]) -> None:
        """Add to a finished game's result (the message, the stored row, the replay)."""

    # -- actions -----------------------------------------------------------------------------
    def before_commit(self, table: LiveTable, seat: int, after: Any) -> CommitPart | None:
        """An action by ``seat`` was judged and applied to a copy (``after``); what the feature
        stores with it.  At most one feature may give a ``record``."""
        return None

    def moved(self, table: LiveTable, version: int) -> None:
        """An action was committed here and sent (only at the worker that committed it, once per
        action): who is to move may have changed (turn alerts)."""

    def turns_changed(self, table: LiveTable) -> None:
        """Who the table waits for may have changed without a new action: moves were taken back
        (undo) or a seat taken back from its stand-in bot, here, and the new state was sent (turn
        alerts, as after ``moved``)."""

    def bot_plays(self, table: LiveTable, seat: int) -> bool:
        """Whether a bot plays this human seat now (a stand-in); bots' own seats always do."""
        return False

    def bot_epoch(self, table: LiveTable) -> int:
        """Bumped whenever a bot's pending move must not be played (a move taken back, a seat taken
        back): the core refuses a bot move chosen at another epoch."""
        return 0

    def stand_in(self, table: LiveTable, seat: int) -> str | None:
        """The bot spec that plays a human seat for its player (``bot_plays``)."""
        return None

    # -- between features ---------------------------------------------------------------------
    def seats_changed(self, table: LiveTable, event: str | None, name: str | None, started: bool) -> None:
        """Before the start, a seat changed (``event``: join, leave, kick, start; ``name``: whose
        seat); ``started``: the game has just started."""

    def hidden_from(self, table: LiveTable, seat: int | None) -> set[int]:
        """The seats that must not see what ``seat`` writes in the chat (its player blocked theirs)."""
        return set()

    async def chat_refused(self, table: LiveTable, seat: int | None) -> Rejected | None:
        """Why ``seat`` may not chat at all now (its player is muted or banned), or None."""
        return None

    def carry_over(self, old: LiveTable, new: LiveTable, order: list[int]) -> None:
        """``new`` is the rematch of ``old`` (before it is stored): carry over what should stay.
        ``order[j]``: the seat of ``old`` whose player sits at seat ``j`` of ``new``."""

    # -- connections -------------------------------------------------------------------------
    def disconnected(self, table: LiveTable, sub: Subscriber) -> None:
        """A connection at this worker closed."""

    def presence_lost(self, table: LiveTable, seats: set[int]) -> None:
        """Seats are connected nowhere any more (their last connection, at any worker, closed)."""

    # -- several workers -----------------------------------------------------------------------
    def read_changes(self, table: LiveTable, kinds: set[str], full: bool) -> Any:
        """Another worker changed the table (notices of ``kinds``; ``full``: the table is read
        again whole).  Called on the event loop under the table's lock: None, or a function the
        catch-up runs in its database thread with its session (one snapshot on PostgreSQL),
        whose result goes to ``caught_up``."""
        return None

    def caught_up(self, table: LiveTable, data: Any, full: bool, changed: bool) -> list[Any]:
        """Install what ``read_changes`` read (under the table's lock; ``changed``: the table's
        state changed too); returns coroutines to run once the lock is released and the new
        state was sent (messages to send, tables to load)."""
        return []

    def note_applied(self, table: LiveTable, note: dict[str, Any]) -> None:
        """An action notice from another worker was applied without reading (its ``record``)."""

    def wants_read(self, kinds: set[str]) -> bool:
        """Whether a notice of ``kinds`` needs ``read_changes`` (kinds the feature publishes)."""
        return False

    async def took_over(self, table: LiveTable) -> None:
        """This worker now drives the table (its lease): bots, clocks."""

    def site_notice(self, kind: str, msg: dict[str, Any]) -> None:
        """Another worker published a notice about no one table (``bus.SITE`` as its table):
        ``kind`` and the notice's fields, for the feature that publishes that kind.  Called on
        the event loop; it must not block (start a task for database work)."""

    # -- life -------------------------------------------------------------------------------
    def start(self) -> None:
        """The server started (its event loop runs)."""

    async def close(self) -> None:
        """The server stops."""

    def finished(self, table: LiveTable) -> None:
        """A table's game just ended (once per worker that saw it end)."""


class Hooks(TableHooks):
    """Every feature's hooks, called in the order the features were added."""

    def __init__(self) -> None:
        self.features: list[TableHooks] = []

    def add(self, feature: TableHooks) -> None:
        self.features.append(feature)

    def created(self, table):
        for f in self.features:
            f.created(table)

    def store_new(self, session, table):
        for f in self.features:
            f.store_new(session, table)

    def restored(self, table, row, seat_rows, extra):
        for f in self.features:
            f.restored(table, row, seat_rows, extra.get(id(f), {}))

    def read_rows(self, session, table_id):
        return {id(f): f.read_rows(session, table_id) for f in self.features}

    async def loaded(self, table):
        for f in self.features:
            await f.loaded(table)

    def summary(self, table, out):
        for f in self.features:
            f.summary(table, out)

    def row_summary(self, row, out):
        for f in self.features:
            f.row_summary(row, out)

    def payload(self, table, msg, viewer, reset):
        for f in self.features:
            f.payload(table, msg, viewer, reset)

    def result(self, table, result):
        for f in self.features:
            f.result(table, result)

    def before_commits(self, table, seat, after) -> list[CommitPart]:
        return [p for p in (f.before_commit(table, seat, after) for f in self.features) if p is not None]

    def moved(self, table, version):
        for f in self.features:
            f.moved(table, version)

    def turns_changed(self, table):
        for f in self.features:
            f.turns_changed(table)

    def bot_plays(self, table, seat):
        return any(f.bot_plays(table, seat) for f in self.features)

    def bot_epoch(self, table):
        return sum(f.bot_epoch(table) for f in self.features)

    def stand_in(self, table, seat):
        for f in self.features:
            spec = f.stand_in(table, seat)
            if spec is not None:
                return spec
        return None

    def seats_changed(self, table, event, name, started):
        for f in self.features:
            f.seats_changed(table, event, name, started)

    def hidden_from(self, table, seat):
        out: set[int] = set()
        for f in self.features:
            out |= f.hidden_from(table, seat)
        return out

    async def chat_refused(self, table, seat):
        for f in self.features:
            refused = await f.chat_refused(table, seat)
            if refused is not None:
                return refused
        return None

    def carry_over(self, old, new, order):
        for f in self.features:
            f.carry_over(old, new, order)

    def disconnected(self, table, sub):
        for f in self.features:
            f.disconnected(table, sub)

    def presence_lost(self, table, seats):
        for f in self.features:
            f.presence_lost(table, seats)

    def read_changes(self, table, kinds, full):
        readers = {id(f): r for f in self.features if (r := f.read_changes(table, kinds, full)) is not None}
        return (lambda session: {key: read(session) for key, read in readers.items()}) if readers else None

    def caught_up(self, table, data, full, changed):
        out: list[Any] = []
        for f in self.features:
            out += f.caught_up(table, (data or {}).get(id(f)), full, changed)
        return out

    def note_applied(self, table, note):
        for f in self.features:
            f.note_applied(table, note)

    def wants_read(self, kinds):
        return any(f.wants_read(kinds) for f in self.features)

    async def took_over(self, table):
        for f in self.features:
            await f.took_over(table)

    def site_notice(self, kind, msg):
        for f in self.features:
            f.site_notice(kind, msg)

    def start(self):
        for f in self.features:
            f.start()

    async def close(self):
        for f in self.features:
            await f.close()

    def finished(self, table):
        for f in self.features:
            f.finished(table)
