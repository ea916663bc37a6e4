"""Statistics pages' data: a player's per-game statistics and a game's site-wide ones (stats.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gemtable.core.registry import get_game

from gemtable.core import i18n
from ..deps import get_identity, get_manager
from ..limits import shown
from ..players import Identity
from ..ratings import levels
from ..stats import game_stats, history, player_stats
from ..table import Rejected
from ..tables import TableManager

router = APIRouter()


@router.get("/api/stats/players/{name}", tags=["stats"],
            summary="A player's statistics per game from finished games: games, wins, average score and "
                    "place, share played to the end, and the rating after each rated game")
async def player(name: str, manager: TableManager = Depends(get_manager),
                 identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    folded = " ".join(name.casefold().split())
    if folded.startswith("bot:") and folded[4:].strip() in levels():
        level = folded[4:].strip()
        return {"games": {}, "counted": 0, "history": await manager.run_db(history, manager.db, f"bot:{level}")}
    found = await identity.by_name(name)
    if found is None:
        raise Rejected("no_player", i18n.msg("There is no player of that name."), 404)
    out = await manager.run_db(player_stats, manager.db, found.id)
    out["history"] = await manager.run_db(history, manager.db, f"p:{found.id}")
    return out


@router.get("/api/stats/games/{game_id}", tags=["stats"],
            summary="A game's statistics from the site's finished games: games per day and each seat's share "
                    "of the wins per player count, with 95 % Wilson intervals")
async def game(game_id: str, manager: TableManager = Depends(get_manager)) -> dict[str, Any]:
    try:
        found = get_game(game_id)
    except KeyError:
        raise Rejected("unknown_game", i18n.msg("There is no game {game}.", game=shown(game_id)), 404) from None
    return await manager.run_db(game_stats, manager.db, found.id)
