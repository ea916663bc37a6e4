"""The registry of games: every package under gemtable.games exporting GAME.

Tools enumerate games here; none imports a game by name, so adding a game
is adding a package.  Third-party games can register through the
``gemtable.games`` entry-point group.  A package that fails to import is
left out (and reported by :func:`load_errors`) so one broken game cannot take
the others down; the test suite asserts there are none.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from importlib.metadata import entry_points

from gemtable.core.game import Game

log = logging.getLogger(__name__)
_GAMES: dict[str, Game] | None = None
_ERRORS: dict[str, str] = {}


def _load(module_name: str) -> Game | None:
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - reported, never silent
        _ERRORS[module_name] = f"{type(exc).__name__}: {exc}"
        log.error("game package %s failed to load: %s", module_name, exc)
        return None
    game = getattr(module, "GAME", None)
    return game if isinstance(game, Game) else None


def _discover() -> dict[str, Game]:
    import gemtable.games as pkg

    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.ispkg:
            game = _load(f"{pkg.__name__}.{info.name}")
            if game is not None:
                found[game.id] = game
    for ep in entry_points(group="gemtable.games"):
        try:
            game = ep.load()
        except Exception as exc:  # noqa: BLE001
            _ERRORS[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        if isinstance(game, Game):
            found.setdefault(game.id, game)
    return found


def all_games() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _discover()
    return _GAMES


def load_errors() -> dict[str, str]:
    """Game packages that failed to import, with the error."""
    all_games()
    return dict(_ERRORS)


def get_game(game_id: str) -> Game:
    games = all_games()
    if game_id not in games:
        known = ", ".join(sorted(games)) or "none"
        raise KeyError(f"unknown game {game_id!r} (registered: {known})")
    return games[game_id]


def game_ids() -> list[str]:
    return list(all_games())
