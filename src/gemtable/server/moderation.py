"""Moderation for whoever runs the site: admins, mutes and bans, hidden chat lines, closed
tables, players' reports, and the audit log of every admin action.

A site makes its first admin from the command line (``gemtable admin grant NAME``, an account
only); an admin can then grant others.  Admins act through the admin page (routes/moderation.py);
each action is written to ``gt_audit`` in the same transaction as the action itself.

- A mute (``gt_sanctions`` kind ``mute``): the player's chat is refused with a clear message.
- A ban (kind ``ban``): every session of the player ends (``players.end_sessions``, as
  ``gemtable admin logout`` does), the account cannot log in, and the player's open table
  sockets close at once with the reason (close code ``CLOSE_BANNED``): their seats' sockets
  and the sockets their browser opened to watch a table (``Subscriber.player``) — at this
  worker directly, at the others through a ``moderation`` notice on every table where the
  player sits (``read_changes``/``caught_up``) and one to the whole site (``site_notice``:
  the tables they only watch are known to the worker holding those sockets alone).  A socket
  for a banned player's seat is refused.
- Either is for a number of minutes or for good (``until`` None); lifting it is an action too.
- A hidden chat line loses its text in the database (it becomes a system line saying a
  moderator hid a line), so replays and logs read later never show it; the tables cached
  anywhere swap it in their recent lines and every open page is told (``chat_hidden``).
- A closed table ends at once, unrated (claimed as rated, with nothing rated), with a note
  in its result and a system line.

Players report a chat line or a player (rate-limited per player); reports wait for an admin.
Reports and the audit log name players by name only; no address, e-mail or session is shown
or logged here.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any

from sqlalchemy import delete, or_, select, update

from gemtable.core import i18n
from . import chat as chatmod
from .bus import SITE
from .db import AdminRow, AuditRow, ChatRow, PlayerRow, ReportRow, SanctionRow, SeatRow, TableRow, bump, utcnow
from .clockwork import retrying
from .hooks import TableHooks
from .hub import push_all
from .inplay import InPlay, rec
from .limits import RateLimiter
from .players import end_sessions, name_key
from .table import LiveTable, Rejected

log = logging.getLogger("gemtable.server.moderation")

CLOSE_BANNED = 4451  # the socket's player was banned (docs/websocket.md)
HIDDEN_TEXT = "A line was hidden by a moderator."
KINDS = ("mute", "ban")
MAX_REASON = 300
MAX_MINUTES = 10 * 365 * 24 * 60  # ten years: longer is "for good"
REPORT_RATE, REPORT_BURST = 1 / 60, 5  # reports per player: five, then one a minute
NOTICE = "moderation"


def until_text(until: dt.datetime | None) -> str:
    return "for good" if until is None else "until " + until.strftime("%Y-%m-%d %H:%M") + " UTC"


def sanction_msg(kind: str, until: dt.datetime | None, reason: str) -> i18n.Message:
    """What a muted or banned player is told (a message: it reads in their language)."""
    when = None if until is None else until.strftime("%Y-%m-%d %H:%M")
    if kind == "mute":
        said = (i18n.msg("You are muted: you cannot chat for good.") if when is None
                else i18n.msg("You are muted: you cannot chat until {when} UTC.", when=when))
    else:
        said = (i18n.msg("You are banned from this site for good.") if when is None
                else i18n.msg("You are banned from this site until {when} UTC.", when=when))
    return i18n.msg("{sanction} Reason: {reason}", sanction=said, reason=reason) if reason else said


def sanction_message(kind: str, until: dt.datetime | None, reason: str) -> str:
    return i18n.render(sanction_msg(kind, until, reason))


def clean_reason(value: Any, what: str = "reason") -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Rejected("malformed", i18n.msg("'{field}' must be text.", field=what), 422)
    try:
        return chatmod.clean_text(value)[:MAX_REASON] if value.strip() else ""
    except chatmod.ChatError as exc:
        raise Rejected("malformed", i18n.msg("'{field}': {why}", field=what, why=str(exc)), 422) from None


# -- the database (threads) ---------------------------------------------------------------------
def active(s: Any, player_id: str, kind: str) -> SanctionRow | None:
    row = s.get(SanctionRow, (player_id, kind))
    if row is None or (row.until is not None and row.until <= utcnow()):
        return None
    return row


def is_admin(db: Any, player_id: str) -> bool:
    with db.session() as s:
        return s.get(AdminRow, player_id) is not None


def standing(db: Any, player_id: str) -> dict[str, Any]:
    """What the player may do: admin, and any mute or ban in force (its end and reason)."""
    with db.session() as s:
        out: dict[str, Any] = {"admin": s.get(AdminRow, player_id) is not None}
        for kind in KINDS:
            row = active(s, player_id, kind)
            out[kind] = None if row is None else {
                "until": None if row.until is None else row.until.isoformat(timespec="seconds") + "Z",
                "reason": row.reason, "message": sanction_message(kind, row.until, row.reason)}
        return out


def refusal(db: Any, player_id: str | None, kinds: tuple[str, ...]) -> Rejected | None:
    """The refusal for a player under one of ``kinds`` (a ban first), or None."""
    if player_id is None:
        return None
    with db.session() as s:
        for kind in sorted(kinds):  # "ban" before "mute"
            row = active(s, player_id, kind)
            if row is not None:
                return Rejected("banned" if kind == "ban" else "muted",
                                sanction_msg(kind, row.until, row.reason), 403)
    return None


def grant(db: Any, name: str, by: str = "(command line)") -> str | None:
    """Make the account called ``name`` an admin; its name, or None (no such account)."""
    key = name_key(name) if isinstance(name, str) else None
    if key is None:
        return None
    with db.session() as s:
        player = s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))
        if player is None or player.password_hash is None:
            return None
        if s.get(AdminRow, player.id) is None:
            s.add(AdminRow(player_id=player.id, at=utcnow()))
            s.add(AuditRow(admin=by[:40], action="grant", target=player.name, detail="", at=utcnow()))
        s.commit()
        return player.name


def player_by_name(s: Any, name: Any) -> PlayerRow:
    key = name_key(name) if isinstance(name, str) else None
    player = None if key is None else s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))
    if player is None:
        raise Rejected("no_player", i18n.msg("No player has that name."), 404)
    return player


class Moderation(TableHooks):
    """The moderation feature: its hooks refuse chat to muted and banned players and apply a
    ban or a hidden line that another worker made; its methods are the admin actions."""

    def __init__(self, manager: Any, inplay: InPlay) -> None:
        self.m = manager
        self.inplay = inplay
        self.reports = RateLimiter(REPORT_RATE, REPORT_BURST)
        self.tasks: set[asyncio.Task] = set()

    @property
    def db(self) -> Any:
        return self.m.db

    # -- hooks -----------------------------------------------------------------------------
    async def chat_refused(self, table: LiveTable, seat: int | None) -> Rejected | None:
        if seat is None or not 0 <= seat < len(table.seats):
            return None
        return await self.m.run_db(refusal, self.db, table.seats[seat].player, KINDS)

    async def seat_banned(self, table: LiveTable, seat: int | None) -> Rejected | None:
        """The refusal for a banned player's seat (its socket, its actions), or None."""
        if seat is None or not 0 <= seat < len(table.seats):
            return None
        return await self.m.run_db(refusal, self.db, table.seats[seat].player, ("ban",))

    def read_changes(self, table: LiveTable, kinds: set[str], full: bool) -> Any:
        if NOTICE not in kinds:
            return None
        table_id = table.id
        players = {s.player for s in table.seats if s.player}

        def read(s: Any) -> dict[str, Any]:
            hidden = set(s.scalars(select(ChatRow.id).where(ChatRow.table_id == table_id, ChatRow.system.is_(True),
                                                            ChatRow.text == HIDDEN_TEXT)))
            banned = {p for p in players if active(s, p, "ban") is not None}
            return {"hidden": hidden, "banned": banned}

        return read

    def caught_up(self, table: LiveTable, data: Any, full: bool, changed: bool) -> list[Any]:
        if data:
            self.apply_hidden(table, data["hidden"])
            for player_id in data["banned"]:
                self.close_sockets(table, player_id)
        return []

    def site_notice(self, kind: str, msg: dict[str, Any]) -> None:
        """A ban at another worker: the player's sockets here close, at every table (once the
        ban is read back: a notice is a hint, the database decides)."""
        player_id = msg.get("p")
        if kind != NOTICE or not isinstance(player_id, str) or not player_id:
            return
        task = asyncio.get_running_loop().create_task(self._banned_elsewhere(player_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _banned_elsewhere(self, player_id: str) -> None:
        try:
            refused = await self.m.run_db(refusal, self.db, player_id, ("ban",))
        except Exception:
            log.exception("reading a ban made at another worker failed")
            return
        if refused is not None:
            for table in list(self.m.tables.values()):
                self.close_sockets(table, player_id, refused.message)

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()

    # -- applying at this worker ---------------------------------------------------------------
    def apply_hidden(self, table: LiveTable, ids: set[int]) -> None:
        lines = rec(table).chat
        if not lines:
            return
        for i, line in enumerate(list(lines)):
            if line.get("id") in ids and line.get("text") != HIDDEN_TEXT:
                lines[i] = dict(line, seat=None, name="", text=HIDDEN_TEXT, system=True)
                # (the seats that never got the line, blocked by its author, are not told)
                push_all(table, {"type": "chat_hidden", "id": line["id"], "line": lines[i]},
                         self.m.hooks.hidden_from(table, line.get("seat")))

    def close_sockets(self, table: LiveTable, player_id: str, message: str | None = None) -> int:
        """Close the player's sockets at this table (here): their seats' and those their browser
        opened to watch it.  How many were closed."""
        seats = {s.seat for s in table.seats if s.player == player_id}
        message = message or "You were banned from this site."
        closed = 0
        for sub in list(table.subscribers):
            mine = sub.seat in seats if sub.seat is not None else sub.player == player_id
            if mine and sub.dropped is None:
                sub.drop(CLOSE_BANNED, message)  # the reason goes in the close frame (up to 120 characters)
                closed += 1
        return closed

    # -- admin actions ---------------------------------------------------------------------------
    async def require_admin(self, player: PlayerRow | None) -> PlayerRow:
        if player is None:
            raise Rejected("no_player", i18n.msg("Log in first: this needs an admin's account."), 401)
        if not await self.m.run_db(is_admin, self.db, player.id):
            raise Rejected("not_admin", i18n.msg("Only the site's admins can do this."), 403)
        return player

    def _sanction(self, admin: PlayerRow, name: Any, kind: str, minutes: int | None, reason: str) -> tuple[str, str, str]:
        with self.db.session() as s:
            target = player_by_name(s, name)
            if target.id == admin.id:
                raise Rejected("self", i18n.msg("An admin cannot sanction themself."), 409)
            until = None if minutes is None else utcnow() + dt.timedelta(minutes=minutes)
            s.execute(delete(SanctionRow).where(SanctionRow.player_id == target.id, SanctionRow.kind == kind))
            s.add(SanctionRow(player_id=target.id, kind=kind, until=until, reason=reason, at=utcnow()))
            s.add(AuditRow(admin=admin.name, action=kind, target=target.name,
                           detail=f"{until_text(until)}{'; ' + reason if reason else ''}"[:500], at=utcnow()))
            if kind == "ban":
                tables = set(s.scalars(select(SeatRow.table_id).join(TableRow, TableRow.id == SeatRow.table_id)
                                       .where(SeatRow.player_id == target.id, TableRow.status != "finished")))
                for table_id in sorted(tables):  # other workers close the player's sockets there
                    self.m.bus.publish(s, table_id, NOTICE)
                self.m.bus.publish(s, SITE, NOTICE, p=target.id)  # and where they only watch
            s.commit()
            return target.id, target.name, sanction_message(kind, until, reason)

    async def sanction(self, admin: PlayerRow, name: Any, kind: Any, minutes: Any, reason: Any) -> dict[str, Any]:
        if kind not in KINDS:
            raise Rejected("malformed", i18n.msg("'kind' must be 'mute' or 'ban'."), 422)
        if minutes is not None and (not isinstance(minutes, int) or isinstance(minutes, bool)
                                    or not 1 <= minutes <= MAX_MINUTES):
            raise Rejected("malformed", i18n.msg("'minutes' must be a whole number from 1 to {most}, or null for good.",
                                                 most=MAX_MINUTES), 422)
        reason = clean_reason(reason)
        target_id, target_name, message = await self.m.run_db(self._sanction, admin, name, kind, minutes, reason)
        closed = 0
        if kind == "ban":
            await self.m.run_db(end_sessions, self.db, target_name)
            for table in list(self.m.tables.values()):
                closed += self.close_sockets(table, target_id, message)
        return {"player": target_name, "kind": kind, "message": message, "closed": closed}

    def _lift(self, admin: PlayerRow, name: Any, kind: str) -> str:
        with self.db.session() as s:
            target = player_by_name(s, name)
            gone = s.execute(delete(SanctionRow).where(SanctionRow.player_id == target.id,
                                                       SanctionRow.kind == kind)).rowcount
            if not gone:
                raise Rejected("no_sanction", (i18n.msg("{player} has no mute to lift.", player=target.name) if kind == "mute"
                                                else i18n.msg("{player} has no ban to lift.", player=target.name)), 409)
            s.add(AuditRow(admin=admin.name, action="un" + kind, target=target.name, detail="", at=utcnow()))
            s.commit()
            return target.name

    async def lift(self, admin: PlayerRow, name: Any, kind: Any) -> dict[str, Any]:
        if kind not in KINDS:
            raise Rejected("malformed", i18n.msg("'kind' must be 'mute' or 'ban'."), 422)
        return {"player": await self.m.run_db(self._lift, admin, name, kind), "kind": kind, "lifted": True}

    def _grant(self, admin: PlayerRow, name: Any) -> str:
        with self.db.session() as s:
            target = player_by_name(s, name)
            if target.password_hash is None:
                raise Rejected("no_account", i18n.msg("Only an account (a player with a password) can be an admin."), 409)
            if s.get(AdminRow, target.id) is None:
                s.add(AdminRow(player_id=target.id, at=utcnow()))
                s.add(AuditRow(admin=admin.name, action="grant", target=target.name, detail="", at=utcnow()))
            s.commit()
            return target.name

    async def grant(self, admin: PlayerRow, name: Any) -> dict[str, Any]:
        return {"player": await self.m.run_db(self._grant, admin, name), "admin": True}

    def _hide(self, admin: PlayerRow, chat_id: int) -> tuple[str, str]:
        with self.db.session() as s:
            line = s.get(ChatRow, chat_id)
            if line is None:
                raise Rejected("no_line", i18n.msg("There is no such chat line."), 404)
            if line.system:
                raise Rejected("system_line", i18n.msg("System lines cannot be hidden."), 409)
            author = line.name
            s.execute(update(ChatRow).where(ChatRow.id == chat_id)
                      .values(text=HIDDEN_TEXT, system=True, seat=None, name=""))
            s.execute(update(ReportRow).where(ReportRow.chat_id == chat_id).values(open=False))
            s.add(AuditRow(admin=admin.name, action="hide", target=author,
                           detail=f"chat line {chat_id} at table {line.table_id}", at=utcnow()))
            self.m.bus.publish(s, line.table_id, NOTICE)
            s.commit()
            return line.table_id, author

    async def hide(self, admin: PlayerRow, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int) or isinstance(chat_id, bool) or not 0 < chat_id < 2 ** 62:
            raise Rejected("malformed", i18n.msg("'chat_id' must be a chat line's id (a positive whole number)."), 422)
        table_id, _author = await self.m.run_db(self._hide, admin, chat_id)
        table = self.m.tables.get(table_id)
        if table is not None:
            self.apply_hidden(table, {chat_id})
        return {"hidden": chat_id, "table": table_id}

    async def close_table(self, admin: PlayerRow, table_id: Any, note: Any) -> dict[str, Any]:
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 32:
            raise Rejected("malformed", i18n.msg("'table' must be a table's id."), 422)
        note = clean_reason(note, "note") or "Closed by a moderator."
        table = await self.m.get(table_id)  # 404 when there is none
        await self._close(table, admin, note)
        await self.inplay.system_line(table, chatmod.table_closed(note))
        self.m.broadcast(table)
        return {"table": table_id, "closed": True, "note": note}

    @retrying  # another worker changed the table first: catch up and decide again
    async def _close(self, table: LiveTable, admin: PlayerRow, note: str) -> None:
        table_id = table.id
        async with table.lock:
            if table.over:
                raise Rejected("over", i18n.msg("This table's game is over already."), 409)
            try:
                scores = [s if isinstance(s, (int, float)) else 0 for s in table.state.scores()]
            except Exception:  # a game that cannot score an unfinished position
                scores = [0] * table.num_players
            result = {"scores": scores, "ranking": [1] * table.num_players, "winners": [], "tiebreak": "",
                      "ended_by": "closed", "note": note, "unrated": list(range(table.num_players))}
            stamp = utcnow()

            def store(s: Any) -> None:
                bump(s, table_id, table.rev)
                # claimed as rated, with nothing rated: a closed table never counts
                s.execute(update(TableRow).where(TableRow.id == table_id)
                          .values(status="finished", result=result, updated_at=stamp, rated=True))
                s.add(AuditRow(admin=admin.name, action="close", target=f"table {table_id}", detail=note, at=stamp))
                self.m.bus.publish(s, table_id, "reload")

            def write() -> None:
                with self.db.session() as s:
                    store(s)
                    s.commit()

            await self.m.run_db(write)
            table.rev += 1
            table.final = result
            table.updated_at = stamp
            self.m.forget_replay(table.id)

    def _dismiss(self, admin: PlayerRow, report_id: int) -> None:
        with self.db.session() as s:
            row = s.get(ReportRow, report_id)
            if row is None or not row.open:
                raise Rejected("no_report", i18n.msg("There is no such open report."), 404)
            row.open = False
            s.add(AuditRow(admin=admin.name, action="dismiss", target=f"report {report_id}", detail="", at=utcnow()))
            s.commit()

    async def dismiss(self, admin: PlayerRow, report_id: Any) -> dict[str, Any]:
        if not isinstance(report_id, int) or isinstance(report_id, bool) or not 0 < report_id < 2 ** 62:
            raise Rejected("malformed", i18n.msg("'report' must be a report's id (a positive whole number)."), 422)
        await self.m.run_db(self._dismiss, admin, report_id)
        return {"report": report_id, "dismissed": True}

    # -- reports ---------------------------------------------------------------------------------
    def _report(self, reporter: PlayerRow, name: Any, chat_id: Any, reason: str) -> int:
        with self.db.session() as s:
            if chat_id is not None:
                line = s.get(ChatRow, chat_id)
                if line is None or line.system or line.seat is None:
                    raise Rejected("no_line", i18n.msg("There is no such chat line to report."), 404)
                seat = s.get(SeatRow, (line.table_id, line.seat))
                if seat is None or seat.player_id is None:
                    raise Rejected("no_player", i18n.msg("That line's author is not a known player."), 404)
                target_id = seat.player_id
            else:
                target_id = player_by_name(s, name).id
            if target_id == reporter.id:
                raise Rejected("self", i18n.msg("You cannot report yourself."), 409)
            row = ReportRow(reporter=reporter.id, target=target_id, chat_id=chat_id, reason=reason, open=True,
                            at=utcnow())
            s.add(row)
            s.commit()
            return row.id

    async def report(self, reporter: PlayerRow, name: Any, chat_id: Any, reason: Any) -> dict[str, Any]:
        if (name is None) == (chat_id is None):
            raise Rejected("malformed", i18n.msg("Report either a chat line ('chat_id') or a player ('player')."), 422)
        if chat_id is not None and (not isinstance(chat_id, int) or isinstance(chat_id, bool)
                                    or not 0 < chat_id < 2 ** 62):
            raise Rejected("malformed", i18n.msg("'chat_id' must be a chat line's id (a positive whole number)."), 422)
        if name is not None and not isinstance(name, str):
            raise Rejected("malformed", i18n.msg("'player' must be a player's name."), 422)
        reason = clean_reason(reason)
        bucket = self.reports.bucket(reporter.id)
        if bucket.empty():
            wait = bucket.retry_after()
            raise Rejected("rate_limited", i18n.msg("Too many reports: try again in {wait} s.", wait=wait), 429, retry_after=wait)
        report_id = await self.m.run_db(self._report, reporter, name, chat_id, reason)
        bucket.take()  # only a report that was filed counts
        return {"report": report_id}

    # -- the admin page -----------------------------------------------------------------------------
    def _overview(self) -> dict[str, Any]:
        with self.db.session() as s:
            names: dict[str, str] = {}

            def name_of(player_id: str) -> str:
                if player_id not in names:
                    names[player_id] = s.scalar(select(PlayerRow.name).where(PlayerRow.id == player_id)) or "(gone)"
                return names[player_id]

            reports = []
            for r in s.scalars(select(ReportRow).where(ReportRow.open.is_(True)).order_by(ReportRow.id).limit(200)):
                line = s.get(ChatRow, r.chat_id) if r.chat_id is not None else None
                reports.append({"id": r.id, "reporter": name_of(r.reporter), "player": name_of(r.target),
                                "reason": r.reason, "at": r.at.isoformat(timespec="seconds") + "Z",
                                "chat": None if line is None else {"id": line.id, "table": line.table_id,
                                                                   "text": line.text}})
            t = utcnow()
            sanctions = [{"player": name_of(r.player_id), "kind": r.kind,
                          "until": None if r.until is None else r.until.isoformat(timespec="seconds") + "Z",
                          "reason": r.reason}
                         for r in s.scalars(select(SanctionRow).where(or_(SanctionRow.until.is_(None),
                                                                             SanctionRow.until > t))
                                            .order_by(SanctionRow.at.desc()).limit(200))]
            audit = [{"id": a.id, "admin": a.admin, "action": a.action, "target": a.target, "detail": a.detail,
                      "at": a.at.isoformat(timespec="seconds") + "Z"}
                     for a in s.scalars(select(AuditRow).order_by(AuditRow.id.desc()).limit(200))]
            return {"reports": reports, "sanctions": sanctions, "audit": audit}

    async def overview(self) -> dict[str, Any]:
        return await self.m.run_db(self._overview)
