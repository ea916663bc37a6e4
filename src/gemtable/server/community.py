"""The community between visits: turn alerts (mail, the "your turn" list), friends, blocks and
invitations to a seat.

Turn alerts plug into the table core through the ``moved`` hook (an action committed here),
``turns_changed`` (moves taken back, a seat taken back from its stand-in) and ``seats_changed``
(a game started): the players a table now waits for are written to ``gt_turns`` (behind the
table's revision, which every stored change moves forward, an undo too, so an older writer
changes nothing), and each of
them whose page is not open at the table and who asked for it gets a mail (queued, mail.py) —
at most one per table per ``MailSettings.throttle``, and at most ``hourly`` an hour.  Players
who chose the daily digest get one mail a day listing every table waiting for them; players
who chose never get none.

An address is added unconfirmed and a confirm link is mailed; nothing else goes there until it
is confirmed.  Links in mails carry a signed, random key of the address (never a player id);
the unsubscribe link needs no login.  The links put the token after ``#``, which browsers never
send to a server (so it is in no access log); the page posts it.  The one-click unsubscribe of
mail programs (RFC 8058, ``List-Unsubscribe-Post``) needs a URL they can post to: that one
carries an unsubscribe token in its path, which can do nothing but turn mail off.

An address is shown to its owner only, and never logged.  Player names in mails are escaped.

Friends: following is one-way (a friend is someone you follow); a page that asks for the "your
turn" list marks its player online for ``ONLINE_FOR``.  Blocking a player: they cannot join a
table where you sit, invite you, or follow you (a follow is dropped both ways), and their seat
at a table you share does not get your chat lines (``hidden_from``; spectators are not known by
name).  A guest who logs in to an account brings all of this along (``merge``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import logging
import re
import secrets
from typing import Any, Callable

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from gemtable.core.i18n import SOURCE, languages, msg, msgn, render
from gemtable.core.registry import get_game

from . import mail
from .db import (
    BlockRow,
    FollowRow,
    MailAddressRow,
    MailRow,
    OnlineRow,
    PlayerRow,
    SeatInviteRow,
    SeatRow,
    TableRow,
    TurnRow,
    TurnVersionRow,
    utcnow,
)
from .hooks import TableHooks
from .language import WEB_DOMAIN
from .limits import RateLimiter
from .table import LiveTable, Rejected
from .tables import TableManager

log = logging.getLogger("gemtable.server")

MODES = ("move", "daily", "never")
BLOCKS_EVERY = 30.0  # seconds between readings of the blocks among the players of the live tables
ONLINE_FOR = dt.timedelta(minutes=2)
SEEN_EVERY = dt.timedelta(seconds=30)  # the online mark is written at most this often per player
DIGEST_EVERY = dt.timedelta(hours=24)
CONFIRM_FOR = 3 * 24 * 3600  # seconds a confirm link works
CONFIRMS_A_DAY = 5  # confirm mails to one player a day
MAX_FOLLOWS = 500
MAX_BLOCKS = 500
MAX_ADDRESS = 254
_ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")


def check_address(value: Any) -> str:
    """An e-mail address as stored (ASCII, the domain lower-cased), or Rejected 422."""
    if not isinstance(value, str):
        raise Rejected("bad_address", msg("The e-mail address must be text."), 422)
    value = value.strip()
    if len(value) > MAX_ADDRESS or not _ADDRESS.match(value) or ".." in value:
        raise Rejected("bad_address", msg("That is not an e-mail address this server can send to "
                                          "(name@example.org, plain ASCII)."), 422)
    local, _, host = value.rpartition("@")
    return f"{local}@{host.lower()}"


def game_title(game_id: str) -> str:
    try:
        return get_game(game_id).title
    except KeyError:
        return game_id


# -- mails (text and HTML; every name escaped in the HTML), in the recipient's language ------------
def _page(settings: mail.MailSettings, paragraphs: list[str], link: str, label: str, unsubscribe: str | None,
          lang: str = SOURCE) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    foot = (f'<p style="color:#667;font-size:13px"><a href="{html.escape(unsubscribe)}">'
            f'{html.escape(render(msg("Stop these mails"), lang))}</a> · '
            f'<a href="{html.escape(settings.site)}/settings">{html.escape(render(msg("Mail settings"), lang))}</a></p>'
            ) if unsubscribe else ""
    return (f'<!doctype html><html><body style="font-family:sans-serif">{body}'
            f'<p><a href="{html.escape(link)}">{html.escape(label)}</a></p>{foot}</body></html>')


def _foot_text(settings: mail.MailSettings, unsubscribe: str | None, lang: str = SOURCE) -> str:
    if not unsubscribe:
        return ""
    return (f"\n\n--\n{render(msg('Stop these mails'), lang)}: {unsubscribe}\n"
            f"{render(msg('Mail settings'), lang)}: {settings.site}/settings\n")


def _bold(value: str) -> str:
    return f"<b>{html.escape(value)}</b>"


def turn_mail(settings: mail.MailSettings, game_id: str, table_id: str, others: list[str],
              unsubscribe: str, lang: str = SOURCE) -> tuple[str, str, str]:
    title = game_title(game_id)
    link = f"{settings.site}/table/{table_id}"
    against = ", ".join(others) or render(msg("the bots"), lang)
    subject = render(msg("Your turn at {title}", title=title), lang)
    turn = "It is your turn at {title} (with {against})."
    text = (render(msg(turn, title=title, against=against), lang) + "\n\n"
            + render(msg("Open the table: {link}", link=link), lang) + _foot_text(settings, unsubscribe, lang))
    page = _page(settings, [render(msg(turn, title=_bold(title), against=html.escape(against)), lang)],
                 link, render(msg("Open the table"), lang), unsubscribe, lang)
    return subject, text, page


def digest_mail(settings: mail.MailSettings, tables: list[tuple[str, str]], unsubscribe: str,
                lang: str = SOURCE) -> tuple[str, str, str]:
    subject = render(msgn("{n} game waits for your move", "{n} games wait for your move", len(tables)), lang)
    lines = [f"- {game_title(g)}: {settings.site}/table/{t}" for t, g in tables]
    waiting = render(msg("These tables wait for your move:"), lang)
    text = waiting + "\n\n" + "\n".join(lines) + _foot_text(settings, unsubscribe, lang)
    items = "".join(f'<li><a href="{html.escape(settings.site)}/table/{html.escape(t)}">{html.escape(game_title(g))}</a></li>'
                    for t, g in tables)
    page = _page(settings, [f"{html.escape(waiting)}</p><ul>{items}</ul><p>"],
                 f"{settings.site}/me", render(msg("All my games"), lang), unsubscribe, lang)
    return subject, text, page


def invite_mail(settings: mail.MailSettings, inviter: str, game_id: str, table_id: str,
                unsubscribe: str, lang: str = SOURCE) -> tuple[str, str, str]:
    title = game_title(game_id)
    link = f"{settings.site}/me"
    subject = render(msg("{inviter} invites you to {title}", inviter=inviter, title=title), lang)
    invites = "{inviter} invites you to a seat at {title}."
    text = (render(msg(invites, inviter=inviter, title=title), lang) + "\n\n"
            + render(msg("Accept or decline in My games: {link}", link=link), lang)
            + _foot_text(settings, unsubscribe, lang))
    page = _page(settings, [render(msg(invites, inviter=_bold(inviter), title=_bold(title)), lang)],
                 link, render(msg("Accept or decline in My games"), lang), unsubscribe, lang)
    return subject, text, page


def confirm_mail(settings: mail.MailSettings, name: str, link: str, lang: str = SOURCE) -> tuple[str, str, str]:
    subject = render(msg("Confirm your e-mail address for gemtable"), lang)
    hello = "Hello {name},"
    confirm = render(msg("confirm that gemtable may send you mail at this address"), lang)
    ignore = render(msg("If you did not ask for this, ignore this mail: nothing more will come."), lang)
    text = f"{render(msg(hello, name=name), lang)}\n\n{confirm}: {link}\n\n{ignore}"
    page = _page(settings, [render(msg(hello, name=html.escape(name)), lang), html.escape(confirm) + ".", html.escape(ignore)],
                 link, render(msg("Confirm my address"), lang), None)
    return subject, text, page


def lang_of_player(s: Any, player_id: str) -> str:
    """The language a player chose (language.py), English when none: what their mails are in."""
    chosen = s.scalar(select(PlayerRow.lang).where(PlayerRow.id == player_id))
    return chosen if chosen in languages(WEB_DOMAIN) else SOURCE


# -- the community feature ----------------------------------------------------------------------
class BlockRecord:
    """A live table's blocks among its seated players: (blocker id, blocked id) pairs."""

    __slots__ = ("pairs",)

    def __init__(self) -> None:
        self.pairs: frozenset[tuple[str, str]] = frozenset()


class TurnRecord:
    """The players this worker last wrote as the table's movers away from it (None: unknown here,
    e.g. after another worker changed the table): a move that leaves them as they were writes
    nothing."""

    __slots__ = ("movers",)

    def __init__(self) -> None:
        self.movers: tuple[str, ...] | None = None


def blocks_among(session: Any, players: set[str]) -> set[tuple[str, str]]:
    if len(players) < 2:
        return set()
    return set(session.execute(select(BlockRow.blocker, BlockRow.blocked).where(
        BlockRow.blocker.in_(players), BlockRow.blocked.in_(players))).all())


class Community(TableHooks):
    """Turn alerts, mail settings, friends, blocks and invitations of one server process."""

    def __init__(self, manager: TableManager, settings: mail.MailSettings, secret: Callable[[], str]) -> None:
        self.m = manager
        self.settings = settings
        self._secret = secret  # the server's secret (database thread), for signing links
        self._serializers: dict[str, Any] = {}
        self.sender = mail.MailSender(manager.db, settings, extra=self.digests)
        self.tasks: set[asyncio.Task] = set()
        self.address_limiter = RateLimiter(1 / 600, 3)  # address changes (each mails a link), per player
        self.follow_limiter = RateLimiter(1 / 6, 20)  # follows and blocks, per player
        self.invite_limiter = RateLimiter(1 / 30, 10)  # invitations, per player
        self._seen: dict[str, dt.datetime] = {}
        # tables held here waiting for a player who is at them (not written to the database):
        # player id -> {table id: since}
        self._here: dict[str, dict[str, dt.datetime]] = {}
        # the same by table: table id -> the players noted at it (may name some no longer in
        # ``_here``: ``turns`` drops entries by player)
        self._here_at: dict[str, set[str]] = {}

    # -- life -----------------------------------------------------------------------------
    def start(self) -> None:
        self.sender.start()
        self._spawn(self._watch_blocks())

    async def close(self) -> None:
        await self.sender.close()
        for task in list(self.tasks):
            task.cancel()

    # -- blocks at the live tables (who does not see whose chat) ----------------------------------
    def hidden_from(self, table: LiveTable, seat: int | None) -> set[int]:
        pairs = table.record(BlockRecord).pairs
        if not pairs or seat is None or not 0 <= seat < len(table.seats):
            return set()
        author = table.seats[seat].player
        return {s.seat for s in table.seats if s.player is not None and (author, s.player) in pairs}

    async def refresh_blocks(self, tables: list[LiveTable] | None = None) -> None:
        """Read the blocks among the seated players of these live tables (default: all), one query."""
        tables = list(self.m.tables.values()) if tables is None else tables
        seated = {t.id: {s.player for s in t.seats if s.player is not None} for t in tables}
        everyone = set().union(*seated.values()) if seated else set()
        if len(everyone) < 2:
            for t in tables:
                t.record(BlockRecord).pairs = frozenset()
            return

        def read() -> set[tuple[str, str]]:
            with self.m.db.session() as s:
                return blocks_among(s, everyone)

        pairs = await self.db(read)
        for t in tables:
            here = seated[t.id]
            t.record(BlockRecord).pairs = frozenset(p for p in pairs if p[0] in here and p[1] in here)

    async def _watch_blocks(self) -> None:
        """Blocks made at other workers reach this worker's tables within ``BLOCKS_EVERY``."""
        while True:
            await asyncio.sleep(BLOCKS_EVERY)
            try:
                await self.refresh_blocks()
            except Exception:
                log.exception("reading the blocks failed (tried again)")

    def blocks_changed(self, player_id: str) -> None:
        """This player blocked or unblocked someone here: the tables where they sit know it now."""
        tables = [t for t in self.m.tables.values() if any(s.player == player_id for s in t.seats)]
        if tables:
            self._spawn(self.refresh_blocks(tables))

    async def loaded(self, table: LiveTable) -> None:
        try:
            await self.refresh_blocks([table])
        except Exception:
            log.exception("reading the blocks of table %s failed", table.id)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.m.run_db(fn, *args)

    # -- signed links -------------------------------------------------------------------------
    def serializer(self, salt: str) -> Any:
        s = self._serializers.get(salt)
        if s is None:
            from itsdangerous import URLSafeTimedSerializer

            s = self._serializers[salt] = URLSafeTimedSerializer(self._secret(), salt=salt)
        return s

    def unsubscribe_token(self, key: str) -> str:
        return self.serializer("gemtable.unsubscribe").dumps(key)

    def unsubscribe_links(self, key: str) -> tuple[str, str]:
        """(the link in the mail's text, the one-click URL of its List-Unsubscribe header)."""
        token = self.unsubscribe_token(key)
        return (f"{self.settings.site}/mail/unsubscribe#t={token}",
                f"{self.settings.site}/api/mail/unsubscribe/{token}")

    def key_of(self, token: Any, salt: str, max_age: int | None = None) -> str:
        from itsdangerous import BadData

        if not isinstance(token, str) or not 10 <= len(token) <= 300:
            raise Rejected("bad_token", msg("That link is not valid (copy the whole link from the mail)."), 400)
        try:
            key = self.serializer(salt).loads(token, max_age=max_age)
        except BadData:
            raise Rejected("bad_token", msg("That link is not valid or has expired."), 400) from None
        if not isinstance(key, str):
            raise Rejected("bad_token", msg("That link is not valid."), 400)
        return key

    # -- turns (hooks) ------------------------------------------------------------------------
    def movers(self, table: LiveTable) -> tuple[list[str], set[str]]:
        """The players (ids) the table waits for, and those among them with the table open."""
        if table.waiting or table.over:
            return [], set()
        connected = table.connected_seats()
        out, present = [], set()
        for i in table.state.to_move():
            seat = table.seats[i]
            if seat.kind != "human" or seat.player is None or self.m.hooks.bot_plays(table, i):
                continue
            if seat.player not in out:
                out.append(seat.player)
            if i in connected:
                present.add(seat.player)
        return out, present

    def note_applied(self, table: LiveTable, note: dict[str, Any]) -> None:
        table.record(TurnRecord).movers = None  # another worker moved here: its writes count

    def caught_up(self, table: LiveTable, data: Any, full: bool, changed: bool) -> list[Any]:
        if changed:
            table.record(TurnRecord).movers = None
        return []

    def moved(self, table: LiveTable, version: int) -> None:
        actions = table.match.actions
        actor = table.seats[actions[version - 1][0]].player if 0 < version <= len(actions) else None
        self._turns_changed(table, actor)

    def turns_changed(self, table: LiveTable) -> None:
        self._turns_changed(table, None)

    def seats_changed(self, table: LiveTable, event: str | None, name: str | None, started: bool) -> None:
        self._spawn(self.refresh_blocks([table]))
        if started:
            self._turns_changed(table, None)

    def presence_lost(self, table: LiveTable, seats: set[int]) -> None:
        # a player who left the table while it waits for them is now waiting elsewhere: listed, mailed
        if not table.waiting and not table.over and seats & set(table.state.to_move()):
            self._turns_changed(table, None)

    def _turns_changed(self, table: LiveTable, actor: str | None) -> None:
        """Write who the table waits for among the players not at it.  A player at the table sees
        their turn there, so a table whose movers are all present writes nothing (a busy table
        of people playing live costs no database work here); when one of them leaves while it is
        their turn, ``presence_lost`` writes it then."""
        movers, present = self.movers(table)
        away = [p for p in movers if p not in present]
        self._note_here(table.id, present)
        rec = table.record(TurnRecord)
        if rec.movers == tuple(away) and actor not in away:
            return  # the same players still to move (bots' moves, another seat's pick): nothing new
        rec.movers = tuple(away)
        others = {p: [s.name for s in table.seats if s.player != p] for p in away}
        self._spawn(self._record(table.id, table.game.id, table.rev, away, set(), others, actor))

    def _note_here(self, table_id: str, present: set[str]) -> None:
        """Note the players at ``table_id`` now (``present``), since when; forget the others'.
        (Per move: the work is the table's own players, not every player noted.)"""
        before = self._here_at.get(table_id, ())
        for pid in [p for p in before if p not in present]:
            tables = self._here.get(pid)
            if tables is not None:
                tables.pop(table_id, None)
                if not tables:
                    del self._here[pid]
        if not present:
            self._here_at.pop(table_id, None)
            return
        if before != present:
            self._here_at[table_id] = set(present)
        now = None
        for pid in present:
            tables = self._here.setdefault(pid, {})
            if table_id not in tables:
                tables[table_id] = now = now or utcnow()

    async def _record(self, table_id: str, game_id: str, rev: int, movers: list[str], present: set[str],
                      others: dict[str, list[str]], actor: str | None) -> None:
        try:
            queued = await self.db(self.record_turns, table_id, game_id, rev, movers, present, others, actor)
        except Exception as exc:  # (named by its type only: a message could hold an address)
            log.error("turn alerts of table %s failed (%s)", table_id, type(exc).__name__)
            return
        if queued:
            self.sender.wake()

    def record_turns(self, table_id: str, game_id: str, version: int, movers: list[str], present: set[str],
                     others: dict[str, list[str]], actor: str | None = None) -> int:
        """(A database thread) The table's turn rows at its revision ``version`` (``LiveTable.rev``),
        and the turn mails; how many mails were queued.  A turn is new for a player the table did
        not wait for, or who just moved (``actor``) and is to move again.  Nothing changes when a
        later revision was recorded already."""
        now = utcnow()
        v, t = TurnVersionRow.__table__, TurnRow.__table__
        with self.m.db.session() as s:
            # Core statements (no ORM bookkeeping): this runs after most moves
            for attempt in range(2):
                won = s.execute(update(v).where(v.c.table_id == table_id, v.c.version < version)
                                .values(version=version))
                if won.rowcount == 1:
                    break
                try:  # no row yet, or a later move's
                    s.execute(insert(v).values(table_id=table_id, version=version))
                    break
                except IntegrityError:  # there is one (maybe written just now): compare again
                    s.rollback()
                    if attempt:
                        return 0
            kept = set(s.scalars(select(t.c.player_id).where(t.c.table_id == table_id)))
            gone = kept - set(movers)
            if gone:
                s.execute(delete(t).where(t.c.table_id == table_id, t.c.player_id.in_(gone)))
            fresh = [p for p in movers if p not in kept or p == actor]
            new = [{"table_id": table_id, "player_id": p, "game_id": game_id, "version": version, "since": now}
                   for p in movers if p not in kept]
            if new:
                s.execute(insert(t), new)
            if actor in kept and actor in movers:
                s.execute(update(t).where(t.c.table_id == table_id, t.c.player_id == actor)
                          .values(since=now, version=version))
            queued = 0
            for pid in fresh:
                if pid not in present and self._turn_mail(s, pid, table_id, game_id, others.get(pid, []), now):
                    queued += 1
            s.commit()
            return queued

    def _turn_mail(self, s: Any, pid: str, table_id: str, game_id: str, others: list[str], now: dt.datetime) -> bool:
        a = MailAddressRow.__table__
        addr = s.execute(select(a.c.address, a.c.key).where(a.c.player_id == pid, a.c.confirmed.is_(True),
                                                            a.c.mode == "move")).first()
        if addr is None:
            return False
        recent = now - dt.timedelta(seconds=self.settings.throttle)
        if s.scalar(select(MailRow.id).where(MailRow.player_id == pid, MailRow.table_id == table_id,
                                             MailRow.kind == "turn", MailRow.created_at > recent).limit(1)) is not None:
            return False
        if self._over_hourly(s, pid, now):
            return False
        link, one_click = self.unsubscribe_links(addr.key)
        subject, text, page = turn_mail(self.settings, game_id, table_id, others, link, lang_of_player(s, pid))
        mail.queue(s, self.settings, pid, addr.address, "turn", subject, text, page, table_id, one_click)
        return True

    def _over_hourly(self, s: Any, pid: str, now: dt.datetime) -> bool:
        count = s.scalar(select(func.count()).select_from(MailRow).where(
            MailRow.player_id == pid, MailRow.created_at > now - dt.timedelta(hours=1),
            MailRow.kind.in_(("turn", "invite"))))
        return count >= self.settings.hourly

    def digests(self, db: Any) -> int:
        """(The sender's thread, every round) A digest to each daily player due one, claimed by an
        UPDATE of ``digest_at`` in the transaction that queues it: one worker makes it."""
        now = utcnow()
        cutoff = now - DIGEST_EVERY
        due = or_(MailAddressRow.digest_at.is_(None), MailAddressRow.digest_at < cutoff)
        made = 0
        with db.session() as s:
            players = list(s.scalars(select(MailAddressRow.player_id).where(
                MailAddressRow.mode == "daily", MailAddressRow.confirmed.is_(True), due,
                MailAddressRow.player_id.in_(select(TurnRow.player_id))).limit(50)))
        for pid in players:
            with db.session() as s:
                won = s.execute(update(MailAddressRow).where(MailAddressRow.player_id == pid, MailAddressRow.mode == "daily",
                                                             due).values(digest_at=now))
                if won.rowcount != 1:
                    s.rollback()
                    continue
                addr = s.get(MailAddressRow, pid)
                tables = [(t, g) for t, g in s.execute(
                    select(TurnRow.table_id, TurnRow.game_id).join(TableRow, TableRow.id == TurnRow.table_id)
                    .where(TurnRow.player_id == pid, TableRow.status == "running").order_by(TurnRow.since).limit(50))]
                if tables:
                    link, one_click = self.unsubscribe_links(addr.key)
                    subject, text, page = digest_mail(self.settings, tables, link, lang_of_player(s, pid))
                    mail.queue(s, self.settings, pid, addr.address, "digest", subject, text, page, None, one_click)
                    made += 1
                s.commit()
        return made

    # -- the "your turn" list -------------------------------------------------------------------
    def turns_of(self, player_id: str) -> list[dict[str, Any]]:
        with self.m.db.session() as s:
            rows = s.execute(select(TurnRow.table_id, TurnRow.game_id, TurnRow.since)
                             .join(TableRow, TableRow.id == TurnRow.table_id)
                             .where(TurnRow.player_id == player_id, TableRow.status == "running")
                             .order_by(TurnRow.since).limit(100)).all()
            seats: dict[str, list[str]] = {}
            ids = [r[0] for r in rows]
            if ids:
                for sr in s.scalars(select(SeatRow).where(SeatRow.table_id.in_(ids)).order_by(SeatRow.seat)):
                    if sr.player_id != player_id:
                        seats.setdefault(sr.table_id, []).append(sr.name)
        return [{"table": t, "game": g, "title": game_title(g), "since": since.isoformat() + "Z",
                 "others": seats.get(t, [])} for t, g, since in rows]

    async def turns(self, player_id: str) -> list[dict[str, Any]]:
        """The tables waiting for this player's move (tables held here are asked directly: a move
        taken back changes who moves without a new action)."""
        out = []
        for item in await self.db(self.turns_of, player_id):
            table = self.m.tables.get(item["table"])
            if table is not None and player_id not in self.movers(table)[0]:
                continue
            out.append(item)
        listed = {item["table"] for item in out}
        for table_id, since in list(self._here.get(player_id, {}).items()):
            table = self.m.tables.get(table_id)
            if table is None or player_id not in self.movers(table)[0]:
                self._here.get(player_id, {}).pop(table_id, None)  # moved on, or no longer held here
                continue
            if table_id in listed:
                continue
            out.append({"table": table_id, "game": table.game.id, "title": game_title(table.game.id),
                        "since": since.isoformat() + "Z",
                        "others": [s.name for s in table.seats if s.player != player_id]})
        return out

    async def seen(self, player_id: str) -> None:
        """The player's page is open: online for ``ONLINE_FOR`` (written at most every ``SEEN_EVERY``)."""
        now = utcnow()
        last = self._seen.get(player_id)
        if last is not None and now - last < SEEN_EVERY:
            return
        if len(self._seen) > 50_000:
            self._seen.clear()
        self._seen[player_id] = now

        def store() -> None:
            with self.m.db.session() as s:
                if s.execute(update(OnlineRow).where(OnlineRow.player_id == player_id).values(seen_at=now)).rowcount != 1:
                    s.add(OnlineRow(player_id=player_id, seen_at=now))
                try:
                    s.commit()
                except IntegrityError:
                    s.rollback()

        await self.db(store)

    # -- mail settings -------------------------------------------------------------------------
    def mail_settings_of(self, player_id: str) -> dict[str, Any]:
        with self.m.db.session() as s:
            addr = s.get(MailAddressRow, player_id)
        out: dict[str, Any] = {"available": self.settings.enabled, "address": None, "confirmed": False,
                               "mode": "move", "invites": True, "modes": list(MODES)}
        if addr is not None:
            out.update(address=addr.address, confirmed=addr.confirmed, mode=addr.mode, invites=addr.invites)
        return out

    def set_address(self, player: PlayerRow, address: str) -> None:
        """A new (unconfirmed) address, and its confirm mail; the old address and its links end."""
        now = utcnow()
        with self.m.db.session() as s:
            confirms = s.scalar(select(func.count()).select_from(MailRow).where(
                MailRow.player_id == player.id, MailRow.kind == "confirm",
                MailRow.created_at > now - dt.timedelta(days=1)))
            if confirms >= CONFIRMS_A_DAY:
                raise Rejected("rate_limited", msg("Too many confirm mails today: try again tomorrow."), 429,
                               retry_after=3600)
            key = secrets.token_urlsafe(18)
            addr = s.get(MailAddressRow, player.id)
            if addr is not None and addr.address == address and addr.confirmed:
                return  # the same, confirmed address: nothing to do
            if addr is None:
                addr = MailAddressRow(player_id=player.id, address=address, key=key, confirmed=False, mode="move",
                                      invites=True, created_at=now)
                s.add(addr)
            else:
                addr.address, addr.key, addr.confirmed, addr.digest_at = address, key, False, None
            # mails still queued for the old address are not sent any more
            s.execute(update(MailRow).where(MailRow.player_id == player.id, MailRow.status == "queued")
                      .values(status="dropped"))
            token = self.serializer("gemtable.mail-confirm").dumps(key)
            link = f"{self.settings.site}/mail/confirm#t={token}"
            subject, text, page = confirm_mail(self.settings, player.name, link, lang_of_player(s, player.id))
            mail.queue(s, self.settings, player.id, address, "confirm", subject, text, page)
            s.commit()

    def remove_address(self, player_id: str) -> None:
        with self.m.db.session() as s:
            s.execute(delete(MailAddressRow).where(MailAddressRow.player_id == player_id))
            s.execute(update(MailRow).where(MailRow.player_id == player_id, MailRow.status == "queued")
                      .values(status="dropped"))
            s.commit()

    def set_prefs(self, player_id: str, mode: str | None, invites: bool | None) -> None:
        with self.m.db.session() as s:
            addr = s.get(MailAddressRow, player_id)
            if addr is None:
                raise Rejected("no_address", msg("Add an e-mail address first."), 409)
            if mode is not None:
                addr.mode = mode
                if mode == "daily":
                    addr.digest_at = utcnow()  # the first digest a day from now
            if invites is not None:
                addr.invites = invites
            s.commit()

    def confirm(self, token: Any) -> None:
        key = self.key_of(token, "gemtable.mail-confirm", CONFIRM_FOR)
        with self.m.db.session() as s:
            if s.execute(update(MailAddressRow).where(MailAddressRow.key == key).values(confirmed=True)).rowcount != 1:
                raise Rejected("bad_token", msg("That link is for an address that was changed or removed since."), 400)
            s.commit()

    def unsubscribe(self, token: Any) -> None:
        key = self.key_of(token, "gemtable.unsubscribe")
        with self.m.db.session() as s:
            if s.execute(update(MailAddressRow).where(MailAddressRow.key == key)
                         .values(mode="never", invites=False)).rowcount != 1:
                raise Rejected("bad_token", msg("That link is for an address that was changed or removed since."), 400)
            s.commit()

    # -- friends and blocks --------------------------------------------------------------------
    def _other(self, s: Any, me: str, name: Any) -> PlayerRow:
        from .players import name_key

        key = name_key(name) if isinstance(name, str) and len(name) <= 200 else None
        other = None if key is None else s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))
        if other is None:
            raise Rejected("no_player", msg("There is no player of that name."), 404)
        if other.id == me:
            raise Rejected("yourself", msg("That is you."), 409)
        return other

    @staticmethod
    def blocked(s: Any, blocker: str, blocked: str) -> bool:
        return s.get(BlockRow, (blocker, blocked)) is not None

    def follow(self, me: str, name: Any) -> str:
        with self.m.db.session() as s:
            other = self._other(s, me, name)
            if self.blocked(s, other.id, me) or self.blocked(s, me, other.id):
                raise Rejected("blocked", msg("You cannot follow this player."), 403)
            if s.get(FollowRow, (me, other.id)) is None:
                if s.scalar(select(func.count()).select_from(FollowRow).where(FollowRow.follower == me)) >= MAX_FOLLOWS:
                    raise Rejected("too_many", msg("You follow {n} players already.", n=MAX_FOLLOWS), 409)
                s.add(FollowRow(follower=me, followed=other.id, at=utcnow()))
                try:
                    s.commit()
                except IntegrityError:  # the same follow, twice at once
                    s.rollback()
            return other.name

    def unfollow(self, me: str, name: Any) -> None:
        with self.m.db.session() as s:
            other = self._other(s, me, name)
            s.execute(delete(FollowRow).where(FollowRow.follower == me, FollowRow.followed == other.id))
            s.commit()

    def block(self, me: str, name: Any) -> str:
        with self.m.db.session() as s:
            other = self._other(s, me, name)
            if s.get(BlockRow, (me, other.id)) is None:
                if s.scalar(select(func.count()).select_from(BlockRow).where(BlockRow.blocker == me)) >= MAX_BLOCKS:
                    raise Rejected("too_many", msg("You block {n} players already.", n=MAX_BLOCKS), 409)
                s.add(BlockRow(blocker=me, blocked=other.id, at=utcnow()))
            s.execute(delete(FollowRow).where(or_(and_(FollowRow.follower == me, FollowRow.followed == other.id),
                                                  and_(FollowRow.follower == other.id, FollowRow.followed == me))))
            s.execute(delete(SeatInviteRow).where(SeatInviteRow.to_player == me, SeatInviteRow.from_player == other.id))
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
            return other.name

    def unblock(self, me: str, name: Any) -> None:
        with self.m.db.session() as s:
            other = self._other(s, me, name)
            s.execute(delete(BlockRow).where(BlockRow.blocker == me, BlockRow.blocked == other.id))
            s.commit()

    def blocks_of(self, me: str) -> list[str]:
        with self.m.db.session() as s:
            return list(s.scalars(select(PlayerRow.name).join(BlockRow, BlockRow.blocked == PlayerRow.id)
                                  .where(BlockRow.blocker == me).order_by(PlayerRow.name_key)))

    def friends_of(self, me: str) -> list[dict[str, Any]]:
        """Whom the player follows: online or not, and their tables waiting for players (public ones)."""
        now = utcnow()
        with self.m.db.session() as s:
            rows = s.execute(select(PlayerRow.id, PlayerRow.name, OnlineRow.seen_at)
                             .join(FollowRow, FollowRow.followed == PlayerRow.id)
                             .outerjoin(OnlineRow, OnlineRow.player_id == PlayerRow.id)
                             .where(FollowRow.follower == me).order_by(PlayerRow.name_key).limit(MAX_FOLLOWS)).all()
            ids = [r[0] for r in rows]
            tables: dict[str, list[dict[str, Any]]] = {}
            if ids:
                found = s.execute(select(SeatRow.player_id, TableRow)
                                  .join(TableRow, TableRow.id == SeatRow.table_id)
                                  .where(SeatRow.player_id.in_(ids), TableRow.status == "waiting",
                                         TableRow.private.is_not(True))
                                  .order_by(TableRow.updated_at.desc()).limit(500)).all()
                table_ids = list({t.id for _, t in found})
                free: dict[str, int] = {}
                if table_ids:
                    free = dict(s.execute(select(SeatRow.table_id, func.count()).where(
                        SeatRow.table_id.in_(table_ids), SeatRow.open_seat.is_(True), SeatRow.player_id.is_(None))
                        .group_by(SeatRow.table_id)).all())
                for pid, t in found:
                    if free.get(t.id):
                        tables.setdefault(pid, []).append({"table": t.id, "game": t.game_id, "title": game_title(t.game_id),
                                                           "players": t.num_players, "free": free[t.id]})
        return [{"name": name, "online": seen is not None and now - seen < ONLINE_FOR,
                 "tables": tables.get(pid, [])[:10]} for pid, name, seen in rows]

    def merge(self, guest: str, account: str) -> None:
        """(A database thread) A guest logged in to an account: its follows, blocks, invitations,
        turns and (when the account has none) its address become the account's."""
        with self.m.db.session() as s:
            for kind, cols in ((FollowRow, ("follower", "followed")), (BlockRow, ("blocker", "blocked")),
                               (SeatInviteRow, ("to_player", "from_player")), (TurnRow, ("player_id",))):
                for col in cols:
                    for row in list(s.scalars(select(kind).where(getattr(kind, col) == guest))):
                        values = {c.name: getattr(row, c.name) for c in kind.__table__.columns}
                        values[col] = account
                        s.delete(row)
                        s.flush()
                        pk = tuple(values[c.name] for c in kind.__table__.primary_key.columns)
                        if s.get(kind, pk) is None and len({values.get(c) for c in cols}) == len(cols):
                            s.add(kind(**values))  # (not a follow or block of oneself, not twice)
                        s.flush()
            mine = s.get(MailAddressRow, account)
            theirs = s.get(MailAddressRow, guest)
            if theirs is not None:
                values = {c.name: getattr(theirs, c.name) for c in MailAddressRow.__table__.columns}
                s.delete(theirs)
                s.flush()
                if mine is None:
                    s.add(MailAddressRow(**dict(values, player_id=account)))
            s.execute(delete(OnlineRow).where(OnlineRow.player_id == guest))
            s.commit()

    # -- invitations --------------------------------------------------------------------------
    def may_join(self, table: LiveTable, player_id: str) -> None:
        """Refuse (403) a player blocked by anyone seated at the table or by its host."""
        from .lobby import lobby_of

        here = {s.player for s in table.seats if s.player is not None and s.player != player_id}
        host = lobby_of(table).host_player
        if host is not None and host != player_id:
            here.add(host)
        if not here:
            return
        with self.m.db.session() as s:
            if s.scalar(select(BlockRow.blocker).where(BlockRow.blocker.in_(here), BlockRow.blocked == player_id)
                        .limit(1)) is not None:
                raise Rejected("blocked", msg("A player at this table does not play with you."), 403)

    def invite(self, me: PlayerRow, table: LiveTable, name: Any, seat: int) -> str:
        with self.m.db.session() as s:
            other = self._other(s, me.id, name)
            if self.blocked(s, other.id, me.id):
                raise Rejected("blocked", msg("This player does not accept your invitations."), 403)
            if self.blocked(s, me.id, other.id):
                raise Rejected("blocked", msg("You blocked this player: unblock them first."), 409)
            if any(st.player == other.id for st in table.seats):
                raise Rejected("seated", msg("That player has a seat at this table already."), 409)
            row = s.get(SeatInviteRow, (table.id, other.id))
            if row is None:
                s.add(SeatInviteRow(table_id=table.id, to_player=other.id, seat=seat, from_player=me.id, at=utcnow()))
            else:
                row.seat, row.from_player, row.at = seat, me.id, utcnow()
            addr = s.get(MailAddressRow, other.id)
            if row is None and addr is not None and addr.confirmed and addr.invites and not self._over_hourly(s, other.id, utcnow()):
                link, one_click = self.unsubscribe_links(addr.key)
                subject, text, page = invite_mail(self.settings, me.name, table.game.id, table.id, link,
                                                  lang_of_player(s, other.id))
                mail.queue(s, self.settings, other.id, addr.address, "invite", subject, text, page, table.id, one_click)
            s.commit()
            return other.name

    def invites_of(self, me: str) -> list[dict[str, Any]]:
        with self.m.db.session() as s:
            rows = s.execute(select(SeatInviteRow, TableRow, PlayerRow.name)
                             .join(TableRow, TableRow.id == SeatInviteRow.table_id)
                             .join(PlayerRow, PlayerRow.id == SeatInviteRow.from_player)
                             .where(SeatInviteRow.to_player == me, TableRow.status == "waiting",
                                    SeatInviteRow.table_id.not_in(select(SeatRow.table_id).where(SeatRow.player_id == me)))
                             .order_by(SeatInviteRow.at.desc()).limit(100)).all()
        return [{"table": t.id, "game": t.game_id, "title": game_title(t.game_id), "seat": inv.seat, "from": name,
                 "players": t.num_players, "at": inv.at.isoformat() + "Z"} for inv, t, name in rows]

    def decline(self, me: str, table_id: str) -> None:
        with self.m.db.session() as s:
            s.execute(delete(SeatInviteRow).where(SeatInviteRow.to_player == me, SeatInviteRow.table_id == table_id))
            s.commit()
