"""Players: guests and accounts, their browsers' sessions, name rules.

A browser is logged in by a session.  The cookie ``gt_player`` holds a random
session secret signed with the server's secret (``GEMTABLE_SECRET``, or one
generated once and stored in the database so that every worker shares it);
never the player id.  The database keeps only the SHA-256 hash of the session
secret (table ``gt_sessions``), so a copy of the database holds no cookie that
works.  The cookie is HttpOnly, SameSite=Lax and Secure when the request came
over https.

A session ends when it has not been used for ``SESSION_IDLE`` (its last use is
written at most once per ``SEEN_EVERY``, not on every request), at the latest
``SESSION_MAX`` after it began (the cookie's own lifetime), and at once, on
every worker, when its browser logs out.  Logging out with ``everywhere``, a
password change (which keeps the browser that made it) and
``gemtable admin logout NAME`` end the player's other sessions too.  Picking a
name, registering and logging in each start a fresh session and end the one
the browser had, so a session id planted before a login is worth nothing
after it.  Ended and expired rows are deleted: on use, and in a sweep when a
session starts (at most once per ``SWEEP_EVERY`` per worker).

Cookies from before sessions hold the signed player id itself (32 hex
characters).  Such a cookie is honoured only for a guest (a player without a
password): a guest cannot log in again, so refusing it would lose the guest's
games.  ``GET /api/me`` (and renaming) swaps it for a session cookie.  From the
player's first session on, the old format counts for ``OLD_COOKIE_GRACE``
more (other tabs that loaded at the same moment still carry the old cookie),
then never again; logging out ends it at once.  An account's old cookie is
refused outright: its owner logs in again with the password.

An account is a player with a password (argon2id hash).  Login attempts are
limited per address, per (address, name) failures, and per name failures, the
last only for addresses that have failed at that name: someone guessing an
account's password cannot lock its owner out.  Nothing here logs a session
secret, cookie, player id or password.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import os
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

from fastapi import Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from gemtable.core import i18n
from .db import PlayerRow, SeatRow, SessionRow, SettingRow, TableRow, utcnow
from .limits import MAX_NAME, Limits, RateLimiter
from .lobby import lobby_of
from .table import Rejected
from .tables import TableManager

COOKIE = "gt_player"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie
SECRET_KEY = "cookie_secret"
MIN_PASSWORD, MAX_PASSWORD = 8, 200
SESSION_IDLE = dt.timedelta(days=60)  # a session unused this long has ended
SESSION_MAX = dt.timedelta(seconds=COOKIE_MAX_AGE)  # and any session after this long
SEEN_EVERY = dt.timedelta(hours=1)  # how stale a session's last use may be in the database
SWEEP_EVERY = dt.timedelta(hours=1)  # between deletions of ended sessions, per worker
OLD_COOKIE_GRACE = dt.timedelta(minutes=2)  # the old cookie format after the first session
SESSION_BYTES = 32  # of randomness in a session secret
SESSION_CHARS = 43  # its length as URL-safe base64
# characters a player name may not hold: controls, invisible formatting (bidi overrides,
# zero-width ...), private use, unassigned, surrogates, line/paragraph separators
REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}
URLSAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
HEX = frozenset("0123456789abcdef")


def now() -> dt.datetime:
    """The sessions' clock: naive UTC, as the database stores times."""
    return utcnow()


def digest(secret: str) -> str:
    """The session row's key: the SHA-256 of the cookie's session secret (hex)."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


# -- names ----------------------------------------------------------------------------
def player_name(value: Any) -> tuple[str, str]:
    """``(name, key)``: the name as shown (NFC, single-spaced) and its case-insensitive key.

    Raises Rejected("bad_name", 422) for anything else: not text, a lone
    surrogate, a control or formatting character, empty or longer than
    MAX_NAME characters, or a name that looks like a bot's ("bot: …").
    """
    if not isinstance(value, str):
        raise Rejected("bad_name", i18n.msg("A name must be text."), 422)
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise Rejected("bad_name", i18n.msg("A name must be valid Unicode text (it holds a lone surrogate)."), 422)
    name = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in name):
        raise Rejected("bad_name", i18n.msg("A name cannot hold control characters or invisible formatting characters."), 422)
    name = " ".join(name.split())
    if not name:
        raise Rejected("bad_name", i18n.msg("A name needs at least one visible character."), 422)
    if len(name) > MAX_NAME:
        raise Rejected("bad_name", i18n.msg("A name has at most {most} characters.", most=MAX_NAME), 422)
    key = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    if key.replace(" ", "").startswith("bot:"):
        raise Rejected("bad_name", i18n.msg("Names starting with 'bot:' are kept for the bots' ratings."), 422)
    if len(key) > 100:
        raise Rejected("bad_name", i18n.msg("A name has at most {most} characters.", most=MAX_NAME), 422)
    return name, key


def name_key(value: str) -> str | None:
    """The lookup key of a name (None when it can be no player's name)."""
    try:
        return player_name(value)[1]
    except Rejected:
        return None


def check_password(value: Any) -> str:
    if not isinstance(value, str):
        raise Rejected("bad_password", i18n.msg("The password must be text."), 422)
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise Rejected("bad_password", i18n.msg("The password must be valid Unicode text."), 422)
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise Rejected("bad_password", i18n.msg("A password has {least} to {most} characters.", least=MIN_PASSWORD, most=MAX_PASSWORD), 422)
    return value


def public(player: PlayerRow | None) -> dict[str, Any] | None:
    """What a player's own browser is told about it (never the id)."""
    if player is None:
        return None
    return {"name": player.name, "account": player.password_hash is not None}


# -- request bodies ---------------------------------------------------------------------
class NameBody(BaseModel):
    name: Any = Field(..., description="the player's name: 1-24 characters, unique regardless of case")


class RegisterBody(BaseModel):
    name: Any = Field(None, description="the account's name (default: the current guest's name)")
    password: Any = Field(..., description=f"{MIN_PASSWORD}-{MAX_PASSWORD} characters")


class LoginBody(BaseModel):
    name: Any = Field(..., description="the account's name")
    password: Any = Field(..., description="the account's password")


class PasswordBody(BaseModel):
    password: Any = Field(..., description="the account's current password")
    new_password: Any = Field(..., description=f"the new password: {MIN_PASSWORD}-{MAX_PASSWORD} characters")


class LogoutBody(BaseModel):
    everywhere: Any = Field(False, description="true: end every session of the player, on every browser")


@dataclass(slots=True)
class Who:
    """What a request's cookie stands for: the player, and the session row's key (None for a
    cookie of the old format, ``old``)."""

    player: PlayerRow | None = None
    session: str | None = None
    old: bool = False


class Identity:
    """Players of one server: the cookie signer, sessions, the database and the login limits."""

    def __init__(self, manager: Callable[[], TableManager], limits: Limits) -> None:
        self.manager = manager
        self.limits = limits
        self._signer = None
        self._old_signer = None
        self._signer_lock = asyncio.Lock()
        from argon2 import PasswordHasher

        self.hasher = PasswordHasher()
        self._dummy_hash: str | None = None
        self._swept: dt.datetime | None = None
        self.new_players = RateLimiter(limits.player_rate, limits.player_burst)
        self.login_address = RateLimiter(limits.login_rate, limits.login_burst)
        self.login_pair = RateLimiter(limits.login_pair_rate, limits.login_pair_burst)
        self.login_name = RateLimiter(limits.login_name_rate, limits.login_name_burst)

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.manager().run_db(fn, *args)

    # -- the cookie ---------------------------------------------------------------
    def _secret(self) -> str:
        env = os.environ.get("GEMTABLE_SECRET", "").strip()
        if env:
            return env
        database = self.manager().db
        with database.session() as s:
            row = s.get(SettingRow, SECRET_KEY)
            if row is not None:
                return row.value
            s.add(SettingRow(key=SECRET_KEY, value=secrets.token_urlsafe(48)))
            try:
                s.commit()
            except IntegrityError:  # another worker stored one first: use theirs
                s.rollback()
        with database.session() as s:
            return s.get(SettingRow, SECRET_KEY).value

    def server_secret(self) -> str:
        """(A database thread) The server's secret, shared by every worker (other features sign with it)."""
        return self._secret()

    async def signer(self):
        """The signer of session cookies (its salt differs from the old format's)."""
        if self._signer is None:
            async with self._signer_lock:
                if self._signer is None:
                    from itsdangerous import Signer

                    secret = await self.db(self._secret)
                    self._old_signer = Signer(secret, salt="gemtable.player")
                    self._signer = Signer(secret, salt="gemtable.session")
        return self._signer

    async def _unsign(self, request: Request) -> tuple[str, str] | None:
        """``("session", secret)`` or ``("old", player id)`` from a validly signed cookie, else None."""
        raw = request.cookies.get(COOKIE)
        if not raw or len(raw) > 200:
            return None
        from itsdangerous import BadSignature

        signer = await self.signer()
        try:
            data = raw.encode("utf-8", "surrogatepass")
        except UnicodeError:
            return None
        for kind, sign, size, alphabet in (("session", signer, SESSION_CHARS, URLSAFE),
                                           ("old", self._old_signer, 32, HEX)):
            try:
                value = sign.unsign(data).decode("ascii")
            except (BadSignature, UnicodeError, ValueError):
                continue
            if len(value) == size and set(value) <= alphabet:
                return kind, value
        return None

    def _load_session(self, key: str) -> PlayerRow | None:
        """The player of a live session; an ended one is deleted.  Notes the use (at most hourly)."""
        t = now()
        with self.manager().db.session() as s:
            found = s.execute(select(SessionRow, PlayerRow).join(PlayerRow, PlayerRow.id == SessionRow.player_id)
                              .where(SessionRow.id == key)).first()
            if found is None:
                return None
            row, player = found
            # Core statements: another request may have ended this row meanwhile (no stale-row error)
            if row.last_seen + SESSION_IDLE <= t or row.expires_at <= t:
                s.execute(delete(SessionRow).where(SessionRow.id == key))
                s.commit()
                return None
            if t - row.last_seen >= SEEN_EVERY:
                s.execute(update(SessionRow).where(SessionRow.id == key).values(last_seen=t))
                s.commit()
            return player

    def _load_old(self, player_id: str) -> PlayerRow | None:
        """The guest of an old-format cookie, while that format still counts for it."""
        with self.manager().db.session() as s:
            player = s.get(PlayerRow, player_id)
        if player is None or player.password_hash is not None:
            return None
        if player.old_cookie_until is not None and player.old_cookie_until <= now():
            return None
        return player

    async def who(self, request: Request) -> Who:
        """The cookie's player and session (an empty ``Who`` for no cookie, a forged or ended one)."""
        found = await self._unsign(request)
        if found is None:
            return Who()
        kind, value = found
        if kind == "session":
            key = digest(value)
            player = await self.db(self._load_session, key)
            return Who(player, key) if player is not None else Who()
        player = await self.db(self._load_old, value)
        return Who(player, None, True) if player is not None else Who()

    async def player_id(self, request: Request) -> str | None:
        """The id of the cookie's player (a live session, or a guest's cookie of the old format)."""
        player = (await self.who(request)).player
        return None if player is None else player.id

    async def current(self, request: Request) -> PlayerRow | None:
        """The cookie's player, or None (no cookie, a forged one, an ended session, a player removed since)."""
        return (await self.who(request)).player

    async def require(self, request: Request) -> PlayerRow:
        player = await self.current(request)
        if player is None:
            raise Rejected("no_player", i18n.msg("Pick a name first: this needs a player (the gt_player cookie)."), 401)
        return player

    # -- sessions ------------------------------------------------------------------
    def _start(self, player_id: str, replaces: str | None, alone: bool) -> str:
        """A new session of the player (its secret); ``replaces``: the browser's session, ended;
        ``alone``: every other session of the player ends too."""
        secret = secrets.token_urlsafe(SESSION_BYTES)
        t = now()
        with self.manager().db.session() as s:
            if alone:
                s.execute(delete(SessionRow).where(SessionRow.player_id == player_id))
            if replaces is not None:
                s.execute(delete(SessionRow).where(SessionRow.id == replaces))
            s.add(SessionRow(id=digest(secret), player_id=player_id, created_at=t, last_seen=t,
                             expires_at=t + SESSION_MAX))
            # the old cookie format counts a little longer for this player, then never again
            s.execute(update(PlayerRow).where(PlayerRow.id == player_id, PlayerRow.old_cookie_until.is_(None))
                      .values(old_cookie_until=t + OLD_COOKIE_GRACE))
            if self._swept is None or t - self._swept >= SWEEP_EVERY:
                self._swept = t
                s.execute(delete(SessionRow).where(or_(SessionRow.last_seen <= t - SESSION_IDLE,
                                                       SessionRow.expires_at <= t)))
            s.commit()
        return secret

    async def start_session(self, request: Request, response: Response, player_id: str,
                            replaces: str | None = None, alone: bool = False) -> None:
        """Log this browser in as the player: a fresh session and its cookie (see ``_start``)."""
        secret = await self.db(self._start, player_id, replaces, alone)
        value = (await self.signer()).sign(secret.encode("ascii")).decode("ascii")
        response.set_cookie(COOKIE, value, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax",
                            secure=request.url.scheme in ("https", "wss"))

    def end_sessions_of(self, player_id: str | None, session: str | None, everywhere: bool, keep: str | None = None,
             password_hash: str | None = None) -> int:
        """End a session, or (``everywhere``) every session of the player but ``keep``, and
        its old-format cookie; with ``password_hash``, the player's new password in the same
        transaction.  Returns how many sessions ended."""
        t = now()
        with self.manager().db.session() as s:
            if everywhere and player_id is not None:
                gone = delete(SessionRow).where(SessionRow.player_id == player_id)
                if keep is not None:
                    gone = gone.where(SessionRow.id != keep)
                ended = s.execute(gone).rowcount
            elif session is not None:
                ended = s.execute(delete(SessionRow).where(SessionRow.id == session)).rowcount
            else:
                ended = 0
            if player_id is not None and (everywhere or session is None):
                s.execute(update(PlayerRow).where(PlayerRow.id == player_id, or_(
                    PlayerRow.old_cookie_until.is_(None), PlayerRow.old_cookie_until > t)).values(old_cookie_until=t))
            if password_hash is not None and player_id is not None:
                s.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(password_hash=password_hash))
            s.commit()
        return ended

    @staticmethod
    def clear_cookie(request: Request, response: Response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=request.url.scheme in ("https", "wss"))

    # -- login limits ----------------------------------------------------------------------
    def check_limits(self, where: str, key: str | None) -> None:
        """Refuse (429) an attempt at the password of name ``key`` from address ``where``; spends
        the address's token for an attempt."""
        pair, name = f"{where}\n{key}", f"name:{key}"
        if self.login_pair.bucket(pair).empty():
            raise self.limited(self.login_pair, pair, i18n.mark("Too many failed logins for this name from your address: try again in {wait} s."))
        if self.login_pair.spent(pair) and self.login_name.bucket(name).empty():
            raise self.limited(self.login_name, name, i18n.mark("Too many failed logins for this name: try again in {wait} s."))
        if not self.login_address.bucket(where).take():
            raise self.limited(self.login_address, where, i18n.mark("Too many login attempts from your address: try again in {wait} s."))

    def count_failure(self, where: str, key: str | None) -> None:
        self.login_pair.bucket(f"{where}\n{key}").take()
        self.login_name.bucket(f"name:{key}").take()

    # -- players in the database -----------------------------------------------------
    def create_player(self, name: str, key: str, password_hash: str | None) -> PlayerRow:
        with self.manager().db.session() as s:
            row = PlayerRow(id=secrets.token_hex(16), name=name, name_key=key, password_hash=password_hash,
                            old_cookie_until=now())  # it never had a cookie of the old format
            s.add(row)
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise Rejected("name_taken", i18n.msg("That name is taken: choose another one."), 409) from None
            return row

    def rename_player(self, player_id: str, name: str, key: str, password_hash: str | None = None) -> PlayerRow:
        with self.manager().db.session() as s:
            row = s.get(PlayerRow, player_id)
            if row is None:
                raise Rejected("no_player", i18n.msg("Pick a name first: this needs a player."), 401)
            other = s.scalar(select(PlayerRow.id).where(PlayerRow.name_key == key))
            if other is not None and other != player_id:
                raise Rejected("name_taken", i18n.msg("That name is taken: choose another one."), 409)
            row.name, row.name_key = name, key
            if password_hash is not None:
                row.password_hash = password_hash
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise Rejected("name_taken", i18n.msg("That name is taken: choose another one."), 409) from None
            return row

    def player_by_key(self, key: str) -> PlayerRow | None:
        with self.manager().db.session() as s:
            return s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))

    def set_hash(self, player_id: str, password_hash: str) -> None:
        with self.manager().db.session() as s:
            s.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(password_hash=password_hash))
            s.commit()

    async def by_name(self, name: Any) -> PlayerRow | None:
        key = name_key(name) if isinstance(name, str) else None
        return None if key is None else await self.db(self.player_by_key, key)

    # -- passwords ---------------------------------------------------------------------
    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        if password_hash is None:  # no such account: spend the same time as a real check
            if self._dummy_hash is None:
                self._dummy_hash = await self.hash(secrets.token_urlsafe(12))
            password_hash = self._dummy_hash
            real = False
        else:
            real = True
        try:
            await asyncio.to_thread(self.hasher.verify, password_hash, password)
            return real
        except (VerificationError, InvalidHashError):
            return False

    def limited(self, limiter: RateLimiter, key: str, what: str) -> Rejected:
        wait = limiter.bucket(key).retry_after()
        return Rejected("rate_limited", i18n.msg(what, wait=wait), 429, retry_after=wait)

    # -- a guest logging in ---------------------------------------------------------------
    def _merge(self, guest_id: str, account_id: str) -> None:
        from .db import KickedRow

        with self.manager().db.session() as s:
            touched = set(s.scalars(select(SeatRow.table_id).where(SeatRow.player_id == guest_id)))
            touched |= set(s.scalars(select(TableRow.id).where(TableRow.host_player == guest_id)))
            s.execute(update(SeatRow).where(SeatRow.player_id == guest_id).values(player_id=account_id))
            s.execute(update(TableRow).where(TableRow.host_player == guest_id).values(host_player=account_id))
            s.execute(delete(KickedRow).where(KickedRow.player_id == guest_id))
            for table_id in sorted(touched):  # other workers re-read these tables (bus.py)
                self.manager().bus.publish(s, table_id, "seats")
            guest = s.get(PlayerRow, guest_id)
            if guest is not None and guest.password_hash is None:
                s.delete(guest)  # its name is free again
                s.execute(delete(SessionRow).where(SessionRow.player_id == guest_id))
            s.commit()

    async def merge(self, guest_id: str, account_id: str) -> None:
        """The guest's seats and hosted tables become the account's (this browser's guest logs in)."""
        await self.db(self._merge, guest_id, account_id)
        for table in self.manager().tables.values():
            rec = lobby_of(table)
            if rec.host_player == guest_id:
                rec.host_player = account_id
            for seat in table.seats:
                if seat.player == guest_id:
                    seat.player = account_id
            rec.kicked.discard(guest_id)

    # -- seats ---------------------------------------------------------------------------
    def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        with self.manager().db.session() as s:
            return [(t, n) for t, n in s.execute(
                select(SeatRow.table_id, SeatRow.seat).where(SeatRow.player_id == player_id))]


def end_sessions(database, name: str) -> int | None:
    """End every session of the player called ``name`` (and its old-format cookie); how many
    sessions ended, or None when no player has that name.  For ``gemtable admin logout``."""
    key = name_key(name)
    if key is None:
        return None
    t = now()
    with database.session() as s:
        player = s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))
        if player is None:
            return None
        ended = s.execute(delete(SessionRow).where(SessionRow.player_id == player.id)).rowcount
        if player.old_cookie_until is None or player.old_cookie_until > t:
            player.old_cookie_until = t
        s.commit()
    return ended


def count_players(database) -> int:
    with database.session() as s:
        return s.scalar(select(func.count()).select_from(PlayerRow))
