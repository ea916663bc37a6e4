"""Installed games, their how-to-play and sample views, bot levels, and the health check."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from gemtable.core import i18n
from gemtable.core.registry import all_games, get_game

from .. import language
from ..deps import get_limits, get_manager
from ..edge import SafeJSONResponse
from ..limits import Limits, shown
from ..table import Rejected
from ..tables import TableManager
from .pages import WEB_DIR

router = APIRouter()


def renderer_of(game_id: str) -> str | None:
    path = WEB_DIR / "games" / f"{game_id}.js"
    return f"/static/games/{game_id}.js" if path.is_file() else None


def known_game(game_id: str):
    try:
        return get_game(game_id)
    except KeyError:
        raise Rejected("unknown_game", i18n.msg("There is no game {game}.", game=shown(game_id)), 404) from None


# a game's words (title, summary, options) read in the request's language: the answer varies with it
VARY = "Accept-Language, Cookie"


@router.get("/api/games", tags=["games"], summary="Every installed game (its words in the reader's language)")
def list_games(request: Request, response: Response) -> list[dict[str, Any]]:
    lang = language.of(request)
    response.headers["Vary"] = VARY
    return [dict(g.describe(lang), renderer=renderer_of(g.id)) for _, g in sorted(all_games().items())]


@router.get("/api/games/{game_id}", tags=["games"],
            summary="One game, with its how-to-play for players (Markdown)")
def game_info(game_id: str, request: Request, response: Response) -> dict[str, Any]:
    # ``rules`` is the players' how-to-play (PLAY.md); the developer notes (RULES.md)
    # stay in the repository and are not served.
    game = known_game(game_id)
    lang = language.of(request)
    response.headers["Vary"] = VARY
    try:
        rules = game.play_text(lang)
    except OSError:
        rules = ""
    return dict(game.describe(lang), renderer=renderer_of(game.id), rules=rules)


@router.get("/api/games/{game_id}/sample", tags=["games"],
            summary="The public view of a freshly set-up game (pictures for the how-to-play)")
def game_sample(game_id: str, players: int | None = None, seed: int = 1) -> dict[str, Any]:
    game = known_game(game_id)
    n = players if players is not None else (2 if 2 in game.player_counts else game.player_counts[0])
    if n not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise Rejected("bad_players", i18n.msg("{game} is played by {counts} players, not {n}.", game=i18n.msg(game.title),
                                               counts=counts, n=n), 400, domains=game.domains)
    state = game.new(n, seed=seed % (2**31))
    return {"game": game.id, "players": n, "view": state.view(None),
            "to_move": list(state.to_move())}


@router.get("/api/health", tags=["server"], summary="200 {\"ok\": true} when the database answers; else 503",
            responses={503: {"description": "the database does not answer"}})
async def health(manager: TableManager = Depends(get_manager)):
    if await manager.healthy():
        return SafeJSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})
    return SafeJSONResponse({"ok": False, "error": "database", "detail": "The database does not answer."},
                            status_code=503, headers={"Cache-Control": "no-store"})


@router.get("/api/bots", tags=["games"],
            summary="Bot levels (easiest first) with their default specs and kinds a seat can hold; per game, "
                    "the bot spec that plays each level there and the levels' ratings from the bots' round "
                    "robin (null when the game has none)")
def list_bots(limits: Limits = Depends(get_limits)) -> dict[str, Any]:
    from gemtable.analysis.ladder import current_ratings
    from gemtable.bots import BOT_KINDS, LEVELS, game_levels
    from gemtable.bots.base import load_all

    load_all()
    games = all_games().values()
    return {"levels": dict(LEVELS), "kinds": sorted(BOT_KINDS),
            "limits": {"seconds": limits.bot_seconds, "iterations": limits.bot_iterations, **limits.bot_params},
            "specs": {g.id: game_levels(g) for g in games},
            "ratings": {g.id: current_ratings(g) for g in games}}
