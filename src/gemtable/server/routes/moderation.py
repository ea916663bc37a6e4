"""Moderation's routes: players report a chat line or a player; admins read the reports, the
sanctions in force and the audit log, and act (mute, ban, lift, hide a line, close a table,
dismiss a report, grant admin).  The rules are in moderation.py."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from gemtable.core import i18n

from ..deps import get_identity
from ..moderation import Moderation, standing
from ..players import Identity
from .pages import index
from ..table import Rejected

router = APIRouter()
router.add_api_route("/admin", index, methods=["GET"], include_in_schema=False)  # the admin page (moderation.js)


def get_moderation(request: Request) -> Moderation:
    return request.app.state.moderation


class ReportBody(BaseModel):
    """A report: either ``chat_id`` (a chat line) or ``player`` (a name); ``reason`` optional."""

    chat_id: Any = None
    player: Any = None
    reason: Any = None


class ActBody(BaseModel):
    """An admin action (``POST /api/admin/{action}``): what each action reads of it is in its summary."""

    player: Any = None
    kind: Any = None
    minutes: Any = None
    reason: Any = None
    chat_id: Any = None
    table: Any = None
    note: Any = None
    report: Any = None


@router.get("/api/moderation/me", tags=["moderation"],
            summary="This browser's player's standing: admin, and any mute or ban in force")
async def me(request: Request, identity: Identity = Depends(get_identity),
             mod: Moderation = Depends(get_moderation)) -> dict[str, Any]:
    player = await identity.current(request)
    if player is None:
        return {"admin": False, "mute": None, "ban": None}
    return await mod.m.run_db(standing, mod.db, player.id)


@router.post("/api/reports", tags=["moderation"], summary="Report a chat line or a player to the site's admins",
             responses={401: {"description": "no player"}, 404: {"description": "no such line or player"},
                        429: {"description": "too many reports (see Retry-After)"}})
async def report(body: ReportBody, request: Request, identity: Identity = Depends(get_identity),
                 mod: Moderation = Depends(get_moderation)) -> dict[str, Any]:
    player = await identity.require(request)
    return await mod.report(player, body.player, body.chat_id, body.reason)


@router.get("/api/admin/overview", tags=["moderation"],
            summary="Admins: open reports, sanctions in force and the audit log (newest first)",
            responses={401: {"description": "no player"}, 403: {"description": "not an admin"}})
async def overview(request: Request, identity: Identity = Depends(get_identity),
                   mod: Moderation = Depends(get_moderation)) -> dict[str, Any]:
    await mod.require_admin(await identity.current(request))
    return await mod.overview()


ACTIONS = ("mute", "ban", "unmute", "unban", "hide", "close", "dismiss", "grant")


@router.post("/api/admin/{action}", tags=["moderation"],
             summary="Admins: mute or ban (player, minutes or null for good, reason), unmute or unban (player), "
                     "hide (chat_id), close (table, note), dismiss (report), grant (player)",
             responses={401: {"description": "no player"}, 403: {"description": "not an admin"},
                        404: {"description": "no such player, line, table or report"}})
async def act(action: str, body: ActBody, request: Request, identity: Identity = Depends(get_identity),
              mod: Moderation = Depends(get_moderation)) -> dict[str, Any]:
    if action not in ACTIONS:
        raise Rejected("no_action", i18n.msg("Unknown admin action (use one of {actions}).", actions=", ".join(ACTIONS)), 404)
    admin = await mod.require_admin(await identity.current(request))
    if action in ("mute", "ban"):
        return await mod.sanction(admin, body.player, action, body.minutes, body.reason)
    if action in ("unmute", "unban"):
        return await mod.lift(admin, body.player, action[2:])
    if action == "hide":
        return await mod.hide(admin, body.chat_id)
    if action == "close":
        return await mod.close_table(admin, body.table, body.note)
    if action == "dismiss":
        return await mod.dismiss(admin, body.report)
    return await mod.grant(admin, body.player)
