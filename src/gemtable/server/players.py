"""Players: a guest identity in a signed cookie, optional accounts, name rules.

The cookie ``gt_player`` holds only a random player id, signed with the
server's secret (``GEMTABLE_SECRET``, or one generated once and stored in the
database so that every worker shares it).  It is HttpOnly, SameSite=Lax and
Secure when the request came over https.  An account is a player with a
password (argon2id hash); logging in on another browser gives that browser
the account's cookie.  Nothing here logs a player id, cookie or password.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import unicodedata
from typing import Any, Callable

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from .db import PlayerRow, SeatRow, SettingRow, TableRow
from .limits import MAX_NAME, Limits, RateLimiter
from .tables import Rejected, TableManager

COOKIE = "gt_player"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie
SECRET_KEY = "cookie_secret"
MIN_PASSWORD, MAX_PASSWORD = 8, 200
# characters a player name may not hold: controls, invisible formatting (bidi overrides,
# zero-width ...), private use, unassigned, surrogates, line/paragraph separators
REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}


# -- names ----------------------------------------------------------------------------
def player_name(value: Any) -> tuple[str, str]:
    """``(name, key)``: the name as shown (NFC, single-spaced) and its case-insensitive key.

    Raises Rejected("bad_name", 422) for anything else: not text, a lone
    surrogate, a control or formatting character, empty or longer than
    MAX_NAME characters, or a name that looks like a bot's ("bot: …").
    """
    if not isinstance(value, str):
        raise Rejected("bad_name", "A name must be text.", 422)
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise Rejected("bad_name", "A name must be valid Unicode text (it holds a lone surrogate).", 422)
    name = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in name):
        raise Rejected("bad_name", "A name cannot hold control characters or invisible formatting characters.", 422)
    name = " ".join(name.split())
    if not name:
        raise Rejected("bad_name", "A name needs at least one visible character.", 422)
    if len(name) > MAX_NAME:
        raise Rejected("bad_name", f"A name has at most {MAX_NAME} characters.", 422)
    key = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    if key.replace(" ", "").startswith("bot:"):
        raise Rejected("bad_name", "Names starting with 'bot:' are kept for the bots' ratings.", 422)
    if len(key) > 100:
        raise Rejected("bad_name", f"A name has at most {MAX_NAME} characters.", 422)
    return name, key


def name_key(value: str) -> str | None:
    """The lookup key of a name (None when it can be no player's name)."""
    try:
        return player_name(value)[1]
    except Rejected:
        return None


def check_password(value: Any) -> str:
    if not isinstance(value, str):
        raise Rejected("bad_password", "The password must be text.", 422)
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise Rejected("bad_password", "The password must be valid Unicode text.", 422)
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise Rejected("bad_password", f"A password has {MIN_PASSWORD} to {MAX_PASSWORD} characters.", 422)
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


class Identity:
    """Players of one server: the cookie signer, the database and the login limits."""

    def __init__(self, manager: Callable[[], TableManager], limits: Limits) -> None:
        self.manager = manager
        self.limits = limits
        self._signer = None
        self._signer_lock = asyncio.Lock()
        from argon2 import PasswordHasher

        self.hasher = PasswordHasher()
        self._dummy_hash: str | None = None
        self.new_players = RateLimiter(limits.player_rate, limits.player_burst)
        self.login_address = RateLimiter(limits.login_rate, limits.login_burst)
        self.login_name = RateLimiter(limits.login_name_rate, limits.login_name_burst)

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.manager()._db(fn, *args)

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

    async def signer(self):
        if self._signer is None:
            async with self._signer_lock:
                if self._signer is None:
                    from itsdangerous import Signer

                    secret = await self.db(self._secret)
                    self._signer = Signer(secret, salt="gemtable.player")
        return self._signer

    async def player_id(self, request: Request) -> str | None:
        """The id in a valid cookie (not checked against the database)."""
        raw = request.cookies.get(COOKIE)
        if not raw or len(raw) > 200:
            return None
        from itsdangerous import BadSignature

        try:
            value = (await self.signer()).unsign(raw.encode("utf-8", "surrogatepass")).decode("ascii")
        except (BadSignature, UnicodeError, ValueError):
            return None
        return value if len(value) == 32 else None

    async def current(self, request: Request) -> PlayerRow | None:
        """The cookie's player, or None (no cookie, a forged one, or a player removed since)."""
        pid = await self.player_id(request)
        if pid is None:
            return None

        def load() -> PlayerRow | None:
            with self.manager().db.session() as s:
                return s.get(PlayerRow, pid)

        return await self.db(load)

    async def require(self, request: Request) -> PlayerRow:
        player = await self.current(request)
        if player is None:
            raise Rejected("no_player", "Pick a name first: this needs a player (the gt_player cookie).", 401)
        return player

    async def set_cookie(self, request: Request, response: Response, player_id: str) -> None:
        value = (await self.signer()).sign(player_id.encode("ascii")).decode("ascii")
        response.set_cookie(COOKIE, value, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax",
                            secure=request.url.scheme in ("https", "wss"))

    @staticmethod
    def clear_cookie(request: Request, response: Response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=request.url.scheme in ("https", "wss"))

    # -- players in the database -----------------------------------------------------
    def _create(self, name: str, key: str, password_hash: str | None) -> PlayerRow:
        with self.manager().db.session() as s:
            row = PlayerRow(id=secrets.token_hex(16), name=name, name_key=key, password_hash=password_hash)
            s.add(row)
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise Rejected("name_taken", "That name is taken: choose another one.", 409) from None
            return row

    def _rename(self, player_id: str, name: str, key: str, password_hash: str | None = None) -> PlayerRow:
        with self.manager().db.session() as s:
            row = s.get(PlayerRow, player_id)
            if row is None:
                raise Rejected("no_player", "Pick a name first: this needs a player.", 401)
            other = s.scalar(select(PlayerRow.id).where(PlayerRow.name_key == key))
            if other is not None and other != player_id:
                raise Rejected("name_taken", "That name is taken: choose another one.", 409)
            row.name, row.name_key = name, key
            if password_hash is not None:
                row.password_hash = password_hash
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                raise Rejected("name_taken", "That name is taken: choose another one.", 409) from None
            return row

    def _by_key(self, key: str) -> PlayerRow | None:
        with self.manager().db.session() as s:
            return s.scalar(select(PlayerRow).where(PlayerRow.name_key == key))

    def _set_hash(self, player_id: str, password_hash: str) -> None:
        with self.manager().db.session() as s:
            s.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(password_hash=password_hash))
            s.commit()

    async def by_name(self, name: Any) -> PlayerRow | None:
        key = name_key(name) if isinstance(name, str) else None
        return None if key is None else await self.db(self._by_key, key)

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
        return Rejected("rate_limited", f"Too many {what}: try again in {wait} s.", 429, retry_after=wait)

    # -- a guest logging in ---------------------------------------------------------------
    def _merge(self, guest_id: str, account_id: str) -> None:
        from sqlalchemy import delete

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
            s.commit()

    async def merge(self, guest_id: str, account_id: str) -> None:
        """The guest's seats and hosted tables become the account's (this browser's guest logs in)."""
        await self.db(self._merge, guest_id, account_id)
        for table in self.manager().tables.values():
            if table.host_player == guest_id:
                table.host_player = account_id
            for seat in table.seats:
                if seat.player == guest_id:
                    seat.player = account_id
            table.kicked.discard(guest_id)

    # -- seats ---------------------------------------------------------------------------
    def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        with self.manager().db.session() as s:
            return [(t, n) for t, n in s.execute(
                select(SeatRow.table_id, SeatRow.seat).where(SeatRow.player_id == player_id))]


def install(app: FastAPI, manager: Callable[[], TableManager], limits: Limits,
            address: Callable[[Request], str]) -> Identity:
    """Add the player and account routes; returns the Identity the other routes use."""
    identity = Identity(manager, limits)
    app.state.identity = identity

    async def store(request: Request, response: Response, player: Any, name: str, key: str,
                    hashed: str | None) -> Any:
        """A new player (and this browser's cookie), or the current one renamed (and given ``hashed``)."""
        if player is None:
            player = await identity.db(identity._create, name, key, hashed)
            await identity.set_cookie(request, response, player.id)
            return player
        return await identity.db(identity._rename, player.id, name, key, hashed)

    @app.get("/api/me", tags=["players"], summary="The player of this browser (cookie), or null")
    async def me(request: Request) -> dict[str, Any]:
        return {"player": public(await identity.current(request))}

    @app.post("/api/me", tags=["players"],
              summary="Pick a name (a new guest gets the gt_player cookie) or rename this browser's player",
              responses={409: {"description": "the name is taken"}, 429: {"description": "too many new players"}})
    async def pick_name(body: NameBody, request: Request, response: Response) -> dict[str, Any]:
        name, key = player_name(body.name)
        player = await identity.current(request)
        if player is None:
            where = address(request)
            if not identity.new_players.bucket(where).take():
                raise identity.limited(identity.new_players, where, "new players from your address")
        return {"player": public(await store(request, response, player, name, key, None))}

    @app.post("/api/account/register", tags=["players"],
              summary="Give this browser's player (or a new one) a password, making it an account",
              responses={409: {"description": "the name is taken, or this player already has an account"},
                         429: {"description": "too many attempts (see Retry-After)"}})
    async def register(body: RegisterBody, request: Request, response: Response) -> dict[str, Any]:
        password = check_password(body.password)
        player = await identity.current(request)
        if player is not None and player.password_hash is not None:
            raise Rejected("has_account", "This player already has an account: log out to make another one.", 409)
        if body.name is None:
            if player is None:
                raise Rejected("bad_name", "A new account needs a name.", 422)
            name, key = player.name, player.name_key
        else:
            name, key = player_name(body.name)
        where = address(request)
        if not identity.login_address.bucket(where).take():
            raise identity.limited(identity.login_address, where, "login attempts from your address")
        hashed = await identity.hash(password)
        return {"player": public(await store(request, response, player, name, key, hashed))}

    @app.post("/api/account/login", tags=["players"],
              summary="Log in: this browser becomes the account's player",
              responses={403: {"description": "wrong name or password"},
                         429: {"description": "too many attempts from this address or at this name (see Retry-After)"}})
    async def login(body: LoginBody, request: Request, response: Response) -> dict[str, Any]:
        if not isinstance(body.name, str) or not isinstance(body.password, str):
            raise Rejected("malformed", "'name' and 'password' must be text.", 422)
        if any("\ud800" <= ch <= "\udfff" for ch in body.password) or len(body.password) > MAX_PASSWORD:
            raise Rejected("bad_password", "The password must be valid Unicode text of at most "
                                           f"{MAX_PASSWORD} characters.", 422)
        key = name_key(body.name)
        where = address(request)
        if identity.login_name.bucket(f"name:{key}").empty():
            raise identity.limited(identity.login_name, f"name:{key}", "failed logins for this name")
        if not identity.login_address.bucket(where).take():
            raise identity.limited(identity.login_address, where, "login attempts from your address")
        row = None if key is None else await identity.db(identity._by_key, key)
        ok = await identity.verify(row.password_hash if row is not None else None, body.password)
        if not ok or row is None:
            identity.login_name.bucket(f"name:{key}").take()
            raise Rejected("bad_login", "Wrong name or password.", 403)
        if identity.hasher.check_needs_rehash(row.password_hash):
            await identity.db(identity._set_hash, row.id, await identity.hash(body.password))
        guest = await identity.current(request)
        if guest is not None and guest.password_hash is None and guest.id != row.id:
            await identity.merge(guest.id, row.id)
        await identity.set_cookie(request, response, row.id)
        return {"player": public(row)}

    @app.post("/api/account/logout", tags=["players"], summary="Forget this browser's player (the cookie)")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        identity.clear_cookie(request, response)
        return {"player": None}

    return identity


def count_players(database) -> int:
    with database.session() as s:
        return s.scalar(select(func.count()).select_from(PlayerRow))
