"""The community's routes: mail settings and the links in mails, the "your turn" list, friends,
blocks and invitations to a seat (community.py holds the rules)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from gemtable.core import i18n
from .. import lobby
from ..community import MODES, Community, check_address
from ..deps import get_identity, get_manager
from ..limits import RateLimiter
from ..players import Identity
from ..table import Rejected
from ..tables import TableManager
from .pages import index

router = APIRouter()

# the shell's pages of the community (the shell routes them itself)
for _path in ("/friends", "/settings", "/mail/confirm", "/mail/unsubscribe"):
    router.add_api_route(_path, index, methods=["GET"], include_in_schema=False)


def get_community(request: Request) -> Community:
    return request.app.state.community


class AddressBody(BaseModel):
    address: Any = Field(..., description="the e-mail address; a confirm link is mailed there")


class PrefsBody(BaseModel):
    mode: Any = Field(None, description="turn mails: 'move' (every move, at most one per table a quarter hour), "
                                        "'daily' (one digest a day) or 'never'")
    invites: Any = Field(None, description="true: mail me when someone invites me to a seat")


class TokenBody(BaseModel):
    token: Any = Field(..., description="the token of the link in the mail (the part after '#t=')")


class NameBody(BaseModel):
    name: Any = Field(..., description="a player's name")


class InviteBody(BaseModel):
    name: Any = Field(..., description="the invited player's name")
    seat: Any = Field(None, description="the free open seat offered (default: the first)")


FOLLOWS_LIMITED = i18n.mark("Too many follows and blocks: try again in {wait} s.")


def limited(limiter: RateLimiter, key: str, what: str) -> None:
    """Refuse (429) when ``key``'s bucket is empty; ``what`` is the refusal (a marked text with {wait})."""
    if not limiter.bucket(key).take():
        wait = limiter.bucket(key).retry_after()
        raise Rejected("rate_limited", i18n.msg(what, wait=wait), 429, retry_after=wait)


# -- mail ----------------------------------------------------------------------------------------
@router.get("/api/me/mail", tags=["community"], summary="This player's e-mail address (shown to its owner only) "
            "and what is mailed there")
async def mail_settings(request: Request, identity: Identity = Depends(get_identity),
                        community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    return await community.db(community.mail_settings_of, player.id)


@router.put("/api/me/mail", tags=["community"], summary="Set the e-mail address (unconfirmed; a confirm link "
            "is mailed)", responses={429: {"description": "too many address changes"}})
async def set_address(body: AddressBody, request: Request, identity: Identity = Depends(get_identity),
                      community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    address = check_address(body.address)
    limited(community.address_limiter, player.id, i18n.mark("Too many address changes: try again in {wait} s."))
    await community.db(community.set_address, player, address)
    community.sender.wake()
    return await community.db(community.mail_settings_of, player.id)


@router.delete("/api/me/mail", tags=["community"], summary="Remove the e-mail address (nothing more is mailed)")
async def remove_address(request: Request, identity: Identity = Depends(get_identity),
                         community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    await community.db(community.remove_address, player.id)
    return await community.db(community.mail_settings_of, player.id)


@router.post("/api/me/mail/prefs", tags=["community"], summary="Choose what is mailed: every move, a daily "
             "digest or never; and invitations")
async def set_prefs(body: PrefsBody, request: Request, identity: Identity = Depends(get_identity),
                    community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    if body.mode is not None and (not isinstance(body.mode, str) or body.mode not in MODES):
        raise Rejected("bad_mode", i18n.msg("'mode' is one of {modes}.", modes=", ".join(MODES)), 422)
    if body.invites is not None and not isinstance(body.invites, bool):
        raise Rejected("malformed", i18n.msg("'invites' must be true or false."), 422)
    await community.db(community.set_prefs, player.id, body.mode, body.invites)
    return await community.db(community.mail_settings_of, player.id)


@router.post("/api/mail/confirm", tags=["community"], summary="Confirm an address with the link's token (no login)")
async def confirm(body: TokenBody, community: Community = Depends(get_community)) -> dict[str, Any]:
    await community.db(community.confirm, body.token)
    return {"confirmed": True}


@router.post("/api/mail/unsubscribe", tags=["community"], summary="Stop every mail to the link's address (no login)")
async def unsubscribe(body: TokenBody, community: Community = Depends(get_community)) -> dict[str, Any]:
    await community.db(community.unsubscribe, body.token)
    return {"unsubscribed": True}


@router.post("/api/mail/unsubscribe/{token}", tags=["community"],
             summary="One-click unsubscribe of mail programs (RFC 8058 List-Unsubscribe-Post)")
async def one_click(token: str, community: Community = Depends(get_community)) -> Response:
    await community.db(community.unsubscribe, token)
    return Response(status_code=204)


# -- your turn -----------------------------------------------------------------------------------
@router.get("/api/me/turns", tags=["community"], summary="The tables waiting for this player's move (marks the "
            "player online for friends)")
async def turns(request: Request, identity: Identity = Depends(get_identity),
                community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.current(request)
    if player is None:
        return {"turns": []}
    await community.seen(player.id)
    return {"turns": await community.turns(player.id)}


# -- friends and blocks --------------------------------------------------------------------------
@router.get("/api/me/friends", tags=["community"], summary="The players this player follows: online or not, "
            "their tables waiting for players")
async def friends(request: Request, identity: Identity = Depends(get_identity),
                  community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    return {"friends": await community.db(community.friends_of, player.id),
            "blocked": await community.db(community.blocks_of, player.id)}


@router.post("/api/me/follows", tags=["community"], summary="Follow a player (a friend)")
async def follow(body: NameBody, request: Request, identity: Identity = Depends(get_identity),
                 community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    limited(community.follow_limiter, player.id, FOLLOWS_LIMITED)
    return {"following": await community.db(community.follow, player.id, body.name)}


@router.post("/api/me/unfollow", tags=["community"], summary="Stop following a player")
async def unfollow(body: NameBody, request: Request, identity: Identity = Depends(get_identity),
                   community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    await community.db(community.unfollow, player.id, body.name)
    return {"ok": True}


@router.post("/api/me/blocks", tags=["community"], summary="Block a player: they cannot join your tables, "
             "invite you or follow you")
async def block(body: NameBody, request: Request, identity: Identity = Depends(get_identity),
                community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    limited(community.follow_limiter, player.id, FOLLOWS_LIMITED)
    name = await community.db(community.block, player.id, body.name)
    community.blocks_changed(player.id)
    return {"blocked": name}


@router.post("/api/me/unblock", tags=["community"], summary="Unblock a player")
async def unblock(body: NameBody, request: Request, identity: Identity = Depends(get_identity),
                  community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    await community.db(community.unblock, player.id, body.name)
    community.blocks_changed(player.id)
    return {"ok": True}


# -- invitations ---------------------------------------------------------------------------------
@router.post("/api/tables/{table_id}/invite", tags=["community"],
             summary="Invite a player to a free open seat of a waiting table where you sit (shown in their My "
                     "games; mailed if they want)")
async def invite(table_id: str, body: InviteBody, request: Request, manager: TableManager = Depends(get_manager),
                 identity: Identity = Depends(get_identity),
                 community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    table = await manager.get(table_id)
    rec = lobby.lobby_of(table)
    if rec.host_player != player.id and not any(s.player == player.id for s in table.seats):
        raise Rejected("not_seated", i18n.msg("Only a player seated at the table can invite to it."), 403)
    if not table.waiting:
        raise Rejected("started", i18n.msg("The game has started: no seat is free."), 409)
    free = lobby.free_seats(table)
    if body.seat is None:
        if not free:
            raise Rejected("full", i18n.msg("Every seat of this table is taken."), 409)
        seat = free[0]
    elif isinstance(body.seat, bool) or not isinstance(body.seat, int) or body.seat not in free:
        raise Rejected("seat_taken", i18n.msg("That seat is not a free open seat of this table."), 409)
    else:
        seat = body.seat
    limited(community.invite_limiter, player.id, i18n.mark("Too many invitations: try again in {wait} s."))
    name = await community.db(community.invite, player, table, body.name, seat)
    community.sender.wake()
    return {"invited": name, "seat": seat}


@router.get("/api/me/invites", tags=["community"], summary="Invitations to a seat (waiting tables only)")
async def my_invites(request: Request, identity: Identity = Depends(get_identity),
                     community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    return {"invites": await community.db(community.invites_of, player.id)}


@router.post("/api/me/invites/{table_id}/decline", tags=["community"], summary="Decline an invitation")
async def decline(table_id: str, request: Request, identity: Identity = Depends(get_identity),
                  community: Community = Depends(get_community)) -> dict[str, Any]:
    player = await identity.require(request)
    if len(table_id) > 32:
        raise Rejected("no_invite", i18n.msg("There is no such invitation."), 404)
    await community.db(community.decline, player.id, table_id)
    return {"ok": True}
