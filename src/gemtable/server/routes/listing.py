"""The lobby's list of tables with its filters and pages, and "Play now" (listing.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from gemtable.core import i18n
from .. import listing, lobby
from ..deps import NEW_TABLES, client_address, get_identity, get_manager, too_many
from ..players import Identity
from ..table import LiveTable, Rejected
from ..tables import TableManager

router = APIRouter()

# the time control of a table Play now opens, by the mode asked for (the lobby form's defaults)
NEW_CLOCKS = {"none": None, "realtime": {"mode": "realtime", "base": 600, "increment": 5},
              "turn": {"mode": "turn", "per_move": 86400}}


class PlayBody(BaseModel):
    game: Any = Field(..., description="the game's id (GET /api/games)")
    players: Any = Field(None, description="number of players (default: any; a new table: 2 where the game allows)")
    clock: Any = Field(None, description="'none', 'realtime' or 'turn' (default: any; a new table: none)")


@router.get("/api/lobby", tags=["lobby"],
            summary="The lobby's tables, newest first, filtered and in pages",
            description="Filters: `game` (an id), `players` (a count), `clock` (`none`, `realtime`, `turn`), "
                        "`open=1` (waiting tables with a free open seat). Pages of `per_page` tables "
                        f"(1–{listing.MAX_PER_PAGE}, default {listing.PER_PAGE}); the next page: `after` = the "
                        "answer's `next` (null on the last page). Private tables are never listed.")
async def lobby_page(request: Request, manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
    q = request.query_params
    filters = listing.parse_filters(q.get("game"), q.get("players"), q.get("clock"), q.get("open"))
    after = listing.parse_cursor(q.get("after"))
    return await listing.page(manager, filters, after, listing.parse_per_page(q.get("per_page")))


@router.post("/api/lobby/play", tags=["lobby"],
             summary="Play now: a seat at the matching waiting table whose players' ratings are nearest yours, "
                     "or at a new one",
             description="Tables whose players' ratings (for that game; a guest counts with the default) are "
                         "within the table's window come first, the nearest first; the window widens the "
                         "longer a table waits, and a table outside it is still taken when nothing better "
                         "waits. Equal distances: the table that has waited longest.",
             responses={401: {"description": "no player (pick a name first)"},
                        429: {"description": "a new table was needed and too many were created from this address"}})
async def play_now(body: PlayBody, request: Request, manager: TableManager = Depends(get_manager),
                   identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    player = await identity.require(request)
    if body.game in (None, ""):
        raise Rejected("bad_filter", i18n.msg("'game' is needed: which game to play."), 422)
    wanted = listing.parse_filters(body.game, body.players, body.clock)
    seeker = listing.Seeker(player, wanted.game, wanted.players, wanted.clock)

    async def open_table() -> LiveTable:
        from gemtable.core.registry import get_game

        address = client_address(request)
        limiter = request.app.state.create_limiter
        if not limiter.bucket(address).take():
            raise too_many(limiter, address, NEW_TABLES)
        allowed = get_game(seeker.game).player_counts
        n = seeker.players or (2 if 2 in allowed else min(allowed))
        seats, setup = lobby.prepare([{"kind": "me"}] + [{"kind": "open"}] * (n - 1), player, False)
        steps = [setup, request.app.state.inplay.clock_setup(NEW_CLOCKS[seeker.clock or "none"])]
        return await manager.create(seeker.game, n, {}, seats, None, creator=address, setup=steps)

    table, seat, new = await request.app.state.play_now.play(seeker, open_table)
    return {"table": table.summary(), "seat": seat, "token": table.seats[seat].token, "new": new}
