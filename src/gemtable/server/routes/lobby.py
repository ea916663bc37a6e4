"""The lobby's routes: a seat at a waiting table (join, leave), the host's controls (remove a
player, start, the invite links again), a player's seat at a table and "my games"."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from gemtable.core import i18n
from .. import lobby
from ..deps import get_identity, get_manager, header_token, seat_of
from ..players import Identity
from ..table import LiveTable, Rejected
from ..tables import TableManager

router = APIRouter()


class JoinBody(BaseModel):
    seat: Any = Field(None, description="the open seat to take (default: the first free one)")


class KickBody(BaseModel):
    seat: Any = Field(..., description="the seat whose player is removed")


class StartBody(BaseModel):
    bots: Any = Field(None, description="level of the bots that fill the free seats (a name from "
                                        "GET /api/bots 'levels'; default: the easiest)")


async def host_table(table_id: str, request: Request, manager: TableManager = Depends(get_manager),
                     identity: Identity = Depends(get_identity)) -> LiveTable:
    """The table, when the request comes from its host (the host's player cookie, or the host
    seat's token in a header); else 403 ``not_host``."""
    table = await manager.get(table_id)
    rec = lobby.lobby_of(table)
    pid = await identity.player_id(request)
    if pid is not None and rec.host_player is not None and secrets.compare_digest(pid, rec.host_player):
        return table
    token = header_token(request)
    if token:
        _, seat = await seat_of(request, table_id, token)
        if seat is not None and seat == rec.host_seat:
            return table
    raise Rejected("not_host", i18n.msg("Only the table's host can do that."), 403)


@router.get("/api/tables/{table_id}/seat", tags=["lobby"],
            summary="This browser's player's seat and token at a table (resume from any browser)")
async def my_seat(table_id: str, request: Request, manager: TableManager = Depends(get_manager),
                  identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    player = await identity.require(request)
    table = await manager.get(table_id)
    for s in table.seats:
        if s.player == player.id:
            return {"seat": s.seat, "token": s.token}
    raise Rejected("no_seat", i18n.msg("You hold no seat at this table."), 404)


@router.post("/api/tables/{table_id}/join", tags=["lobby"],
             summary="Take an open seat of a waiting table (needs a player); returns the seat's token")
async def join_table(table_id: str, body: JoinBody, request: Request, manager: TableManager = Depends(get_manager),
                     identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    player = await identity.require(request)
    table = await manager.get(table_id)
    community = getattr(request.app.state, "community", None)
    if community is not None:  # a player blocked by someone at the table cannot join it
        await manager.run_db(community.may_join, table, player.id)
    seat = await lobby.join(manager, table, player, body.seat)
    return {"seat": seat, "token": table.seats[seat].token}


@router.post("/api/tables/{table_id}/leave", tags=["lobby"],
             summary="Give your open seat back before the game starts")
async def leave_table(table_id: str, request: Request, manager: TableManager = Depends(get_manager),
                      identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    player = await identity.require(request)
    table = await manager.get(table_id)
    await lobby.leave(manager, table, player)
    return {"table": table.summary()}


@router.post("/api/tables/{table_id}/kick", tags=["lobby"],
             summary="Host: remove a player who joined an open seat, before the start")
async def kick_seat(body: KickBody, table: LiveTable = Depends(host_table),
                    manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
    await lobby.kick(manager, table, body.seat)
    return {"table": table.summary()}


@router.post("/api/tables/{table_id}/start", tags=["lobby"],
             summary="Host: start now; bots of the given level take the free seats")
async def start_table(body: StartBody, table: LiveTable = Depends(host_table),
                      manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
    await lobby.start(manager, table, body.bots)
    return {"table": table.summary()}


@router.get("/api/tables/{table_id}/invites", tags=["lobby"],
            summary="Host: the invite links of the invite seats and of the host's own seat, again")
async def invites(table: LiveTable = Depends(host_table)) -> dict[str, Any]:
    out = []
    host_seat = lobby.lobby_of(table).host_seat
    for s in table.seats:
        if s.kind != "human" or (s.open and s.seat != host_seat):
            continue  # bots; open seats (their tokens belong to whoever joins them)
        # invite seats: the host made them and had their links from the start
        kind = "me" if s.seat == host_seat and s.player is not None else "human"
        out.append({"seat": s.seat, "name": s.name, "kind": kind, "token": s.token,
                    "invite": f"/table/{table.id}#token={s.token}"})
    return {"seats": out}


@router.get("/api/me/games", tags=["players"],
            summary="This browser's player's tables: waiting, running and finished (with results)")
async def my_games(request: Request, manager: TableManager = Depends(get_manager),
                   identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    player = await identity.require(request)
    return await lobby.games_of(manager, player.id)
