"""The registry of games: every package under gemtable.games exporting GAME.

Tools enumerate games here; none imports a game by name, so adding a game
is adding a package.  Third-party games can register through the
``gemtable.games`` entry-point group.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points

from gemtable.core.game import Game

_GAMES: dict[str, Game] | None = None


def _discover() -> dict[str, Game]:
    import gemtable.games as pkg

    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    for ep in entry_points(group="gemtable.games"):
        game = ep.load()
        if isinstance(game, Game):
            found.setdefault(game.id, game)
    return found


def all_games() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _discover()
    return _GAMES


def get_game(game_id: str) -> Game:
    games = all_games()
    if game_id not in games:
        known = ", ".join(sorted(games)) or "none"
        raise KeyError(f"unknown game {game_id!r} (registered: {known})")
    return games[game_id]


def game_ids() -> list[str]:
    return list(all_games())
