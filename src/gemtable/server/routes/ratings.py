"""Leaderboards per game and players' profiles (ratings.py keeps the ratings)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gemtable.core.registry import get_game

from gemtable.core import i18n
from ..deps import get_identity, get_manager
from ..limits import shown
from ..lobby import games_of
from ..players import Identity
from ..ratings import RECENT, bot_name, finished_share, leaderboard, levels, ratings_of
from ..table import Rejected
from ..tables import TableManager

router = APIRouter()


@router.get("/api/leaderboard/{game_id}", tags=["ratings"],
            summary="A game's OpenSkill leaderboard: accounts and bot levels, best first")
async def game_leaderboard(game_id: str, manager: TableManager = Depends(get_manager)) -> list[dict[str, Any]]:
    try:
        game = get_game(game_id)
    except KeyError:
        raise Rejected("unknown_game", i18n.msg("There is no game {game}.", game=shown(game_id)), 404) from None
    return await manager.run_db(leaderboard, manager.db, game.id)


@router.get("/api/players/{name}", tags=["ratings"],
            summary="A player's profile: ratings per game, recent finished games and the share of their "
                    "finished games they played to the end ('finished')")
async def profile(name: str, manager: TableManager = Depends(get_manager),
                  identity: Identity = Depends(get_identity)) -> dict[str, Any]:
    folded = " ".join(name.casefold().split())
    if folded.startswith("bot:") and folded[4:].strip() in levels():
        level = folded[4:].strip()
        ratings = await manager.run_db(ratings_of, manager.db, f"bot:{level}")
        return {"name": bot_name(level), "account": False, "bot": True, "ratings": ratings, "recent": []}
    player = await identity.by_name(name)
    if player is None:
        raise Rejected("no_player", i18n.msg("There is no player of that name."), 404)
    ratings = await manager.run_db(ratings_of, manager.db, f"p:{player.id}")
    recent = (await games_of(manager, player.id, finished_limit=RECENT, only_finished=True))["finished"]
    finished = await manager.run_db(finished_share, manager.db, player.id)
    return {"name": player.name, "account": player.password_hash is not None, "bot": False,
            "ratings": ratings, "recent": recent, "finished": finished}
