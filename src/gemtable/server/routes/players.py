"""Players' routes: picking a name, accounts (register, log in, change the password) and
logging out; the rules and the sessions themselves are in players.py."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from gemtable.core import i18n
from .. import language
from ..deps import client_address, get_identity
from ..db import PlayerRow
from ..players import (
    MAX_PASSWORD,
    Identity,
    LoginBody,
    LogoutBody,
    NameBody,
    PasswordBody,
    RegisterBody,
    Who,
    check_password,
    name_key,
    player_name,
    public,
)
from ..moderation import refusal
from ..table import Rejected

router = APIRouter()


async def store(identity: Identity, request: Request, response: Response, who: Who, name: str, key: str,
                hashed: str | None) -> PlayerRow:
    """A new player (and this browser's session), or the current one renamed (and given ``hashed``)."""
    if who.player is None:
        player = await identity.db(identity.create_player, name, key, hashed)
        await identity.start_session(request, response, player.id, who.session)
        return player
    player = await identity.db(identity.rename_player, who.player.id, name, key, hashed)
    if hashed is not None:  # a guest becomes an account: a fresh session, the only one
        await identity.start_session(request, response, player.id, who.session, alone=True)
    elif who.old:  # a guest's cookie from before sessions: from now on a session cookie
        await identity.start_session(request, response, player.id)
    return player

@router.get("/api/me", tags=["players"], summary="The player of this browser (cookie), or null")
async def me(request: Request, response: Response, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    who = await identity.who(request)
    if who.old:  # a guest's cookie from before sessions: from now on a session cookie
        await identity.start_session(request, response, who.player.id)
    out: dict[str, Any] = {"player": public(who.player)}
    chosen = who.player.lang if who.player is not None else None
    if chosen in language.offered():  # an account's choice follows it to every browser
        out["lang"] = chosen
        if request.cookies.get(language.COOKIE) != chosen:
            language.set_cookie(request, response, chosen)
    return out

@router.post("/api/me", tags=["players"],
          summary="Pick a name (a new guest gets the gt_player cookie) or rename this browser's player",
          responses={409: {"description": "the name is taken"}, 429: {"description": "too many new players"}})
async def pick_name(body: NameBody, request: Request, response: Response, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    name, key = player_name(body.name)
    who = await identity.who(request)
    if who.player is None:
        where = client_address(request)
        if not identity.new_players.bucket(where).take():
            raise identity.limited(identity.new_players, where, i18n.mark("Too many new players from your address: try again in {wait} s."))
    return {"player": public(await store(identity, request, response, who, name, key, None))}

@router.post("/api/account/register", tags=["players"],
          summary="Give this browser's player (or a new one) a password, making it an account",
          responses={409: {"description": "the name is taken, or this player already has an account"},
                     429: {"description": "too many attempts (see Retry-After)"}})
async def register(body: RegisterBody, request: Request, response: Response, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    password = check_password(body.password)
    who = await identity.who(request)
    player = who.player
    if player is not None and player.password_hash is not None:
        raise Rejected("has_account", i18n.msg("This player already has an account: log out to make another one."), 409)
    if body.name is None:
        if player is None:
            raise Rejected("bad_name", i18n.msg("A new account needs a name."), 422)
        name, key = player.name, player.name_key
    else:
        name, key = player_name(body.name)
    where = client_address(request)
    if not identity.login_address.bucket(where).take():
        raise identity.limited(identity.login_address, where, i18n.mark("Too many login attempts from your address: try again in {wait} s."))
    hashed = await identity.hash(password)
    return {"player": public(await store(identity, request, response, who, name, key, hashed))}

@router.post("/api/account/login", tags=["players"],
          summary="Log in: this browser becomes the account's player (a new session)",
          responses={403: {"description": "wrong name or password"},
                     429: {"description": "too many attempts from this address, or failed ones at this name "
                                          "(see Retry-After)"}})
async def login(body: LoginBody, request: Request, response: Response, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    if not isinstance(body.name, str) or not isinstance(body.password, str):
        raise Rejected("malformed", i18n.msg("'name' and 'password' must be text."), 422)
    if any("\ud800" <= ch <= "\udfff" for ch in body.password) or len(body.password) > MAX_PASSWORD:
        raise Rejected("bad_password", i18n.msg("The password must be valid Unicode text of at most {most} characters.",
                                                most=MAX_PASSWORD), 422)
    key = name_key(body.name)
    where = client_address(request)
    identity.check_limits(where, key)
    row = None if key is None else await identity.db(identity.player_by_key, key)
    ok = await identity.verify(row.password_hash if row is not None else None, body.password)
    if not ok or row is None:
        identity.count_failure(where, key)
        raise Rejected("bad_login", i18n.msg("Wrong name or password."), 403)
    moderation = getattr(request.app.state, "moderation", None)
    if moderation is not None:  # a banned account cannot log in (told only with the right password)
        banned = await identity.db(refusal, moderation.db, row.id, ("ban",))
        if banned is not None:
            raise banned
    if identity.hasher.check_needs_rehash(row.password_hash):
        await identity.db(identity.set_hash, row.id, await identity.hash(body.password))
    who = await identity.who(request)
    guest = who.player
    if guest is not None and guest.password_hash is None and guest.id != row.id:
        await identity.merge(guest.id, row.id)
        community = getattr(request.app.state, "community", None)
        if community is not None:  # the guest's friends, blocks, address and turns too
            await identity.db(community.merge, guest.id, row.id)
    await identity.start_session(request, response, row.id, who.session)
    return {"player": public(row)}

@router.post("/api/account/password", tags=["players"],
          summary="Change this account's password; ends its sessions on every other browser",
          responses={401: {"description": "this browser is not logged in"},
                     403: {"description": "the current password is wrong"},
                     409: {"description": "this player has no password yet (create an account instead)"},
                     429: {"description": "too many attempts (see Retry-After)"}})
async def change_password(body: PasswordBody, request: Request, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    if not isinstance(body.password, str) or any("\ud800" <= ch <= "\udfff" for ch in body.password) \
            or len(body.password) > MAX_PASSWORD:
        raise Rejected("bad_password", i18n.msg("The current password must be valid Unicode text of at most "
                                                "{most} characters.", most=MAX_PASSWORD), 422)
    new = check_password(body.new_password)
    who = await identity.who(request)
    player = who.player
    if player is None or who.session is None:
        raise Rejected("no_player", i18n.msg("Log in first: changing the password needs this account's session."), 401)
    if player.password_hash is None:
        raise Rejected("no_account", i18n.msg("This player has no password yet: create an account instead."), 409)
    where = client_address(request)
    identity.check_limits(where, player.name_key)
    if not await identity.verify(player.password_hash, body.password):
        identity.count_failure(where, player.name_key)
        raise Rejected("bad_password", i18n.msg("The current password is wrong."), 403)
    hashed = await identity.hash(new)
    await identity.db(identity.end_sessions_of, player.id, who.session, True, who.session, hashed)
    return {"player": public(player)}

@router.post("/api/account/logout", tags=["players"],
          summary="Log this browser out (its session ends on every worker); with everywhere: every browser")
async def logout(request: Request, response: Response, body: LogoutBody | None = None, identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    everywhere = False if body is None else body.everywhere
    if not isinstance(everywhere, bool):
        raise Rejected("malformed", i18n.msg("'everywhere' must be true or false."), 422)
    who = await identity.who(request)
    if who.player is not None:
        await identity.db(identity.end_sessions_of, who.player.id, who.session, everywhere)
    identity.clear_cookie(request, response)
    return {"player": None}
